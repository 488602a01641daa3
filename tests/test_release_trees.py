"""A release's tree as the cache keeps it (derive/source/wheels.py): the ``sglang`` package of
its wheel but the compiled libraries, each file shared with any other release that ships the
same bytes, the wheel itself not kept but named."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from sglang_lint.derive.source import wheels
from sglang_lint.derive.source.tree import sglang_version

RELEASES = {  # release -> its wheel's members
    "0.5.1": {"sglang/__init__.py": b"", "sglang/srt/server_args.py": b"TP = 1\n",
              "sglang/README.md": b"python -m sglang.launch_server --tp 2\n",
              "sglang/srt/_fast.cpython-311-x86_64-linux-gnu.so": b"\x7fELF",
              "sglang/kernels/jit/csrc/kernel.cu": b"// kernel\n",
              "sglang-0.5.1.dist-info/METADATA": b"Name: sglang\n", "sglang/../../outside.py": b"x = 1\n"},
    "0.5.2": {"sglang/__init__.py": b"", "sglang/srt/server_args.py": b"TP = 2\n",
              "sglang/README.md": b"python -m sglang.launch_server --tp 2\n",
              "sglang/srt/_fast.cpython-311-x86_64-linux-gnu.so": b"\x7fELF2",
              "sglang/kernels/jit/csrc/kernel.cu": b"// kernel\n"},
}


@pytest.fixture
def fake_pip(tmp_path, monkeypatch):
    """pip's download, writing each release's wheel (made here) into the folder it is given."""
    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    downloads = []

    def download(name: str, version: str, folder: Path) -> None:
        downloads.append(version)
        with zipfile.ZipFile(folder / f"{name}-{version}-cp311-cp311-manylinux_2_34_x86_64.whl", "w") as wheel:
            for member, data in RELEASES[version].items():
                wheel.writestr(member, data)

    monkeypatch.setattr(wheels, "_download", download)
    return downloads


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_tree_is_the_package_but_its_compiled_libraries(fake_pip, tmp_path):
    root = wheels.fetch_tree("0.5.1")
    assert root == tmp_path / "cache" / "sglang-0.5.1"
    assert files(root) == {
        ".unpacked": b"sglang-0.5.1-cp311-cp311-manylinux_2_34_x86_64.whl\n",
        "sglang/README.md": b"python -m sglang.launch_server --tp 2\n",
        "sglang/__init__.py": b"",
        "sglang/kernels/jit/csrc/kernel.cu": b"// kernel\n",  # (sglang looks for it at import)
        "sglang/srt/server_args.py": b"TP = 1\n",
    }
    assert not (tmp_path / "outside.py").exists() and not (tmp_path / "cache" / "outside.py").exists()
    assert list((tmp_path / "cache").glob("**/*.whl")) == []  # the wheel is not kept ...
    assert wheels.tree_wheel(root) == Path("sglang-0.5.1-cp311-cp311-manylinux_2_34_x86_64.whl")  # ... but named
    assert sglang_version(root, wheels.tree_wheel(root)) == "0.5.1"
    assert wheels.fetch_tree("0.5.1") == root and fake_pip == ["0.5.1"]  # fetched once


def test_a_file_two_releases_ship_alike_is_kept_once(fake_pip):
    old, new = wheels.fetch_tree("0.5.1"), wheels.fetch_tree("0.5.2")
    same = ("sglang/README.md", "sglang/kernels/jit/csrc/kernel.cu", "sglang/__init__.py")
    for name in same:
        assert (old / name).stat().st_ino == (new / name).stat().st_ino
    assert (old / "sglang/srt/server_args.py").stat().st_ino != (new / "sglang/srt/server_args.py").stat().st_ino
    assert (new / "sglang/srt/server_args.py").read_bytes() == b"TP = 2\n"


def test_a_tree_of_an_older_cache_finds_the_wheel_kept_beside_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path))
    root = tmp_path / "sglang-0.5.3"
    (root / "sglang").mkdir(parents=True)
    (root / ".unpacked").touch()
    (tmp_path / "wheels").mkdir()
    kept = tmp_path / "wheels" / "sglang-0.5.3-py3-none-any.whl"
    kept.touch()
    assert wheels.tree_wheel(root) == kept
    assert wheels.tree_wheel(tmp_path / "elsewhere") is None


def test_where_links_cannot_be_made_the_bytes_are_copied(fake_pip, monkeypatch):
    def refuse(source, target):
        raise OSError("links are not supported here")

    monkeypatch.setattr(wheels.os, "link", refuse)
    root = wheels.fetch_tree("0.5.1")
    assert (root / "sglang/srt/server_args.py").read_bytes() == b"TP = 1\n"
    assert (root / "sglang/srt/server_args.py").stat().st_nlink == 1
    shutil.rmtree(root)
