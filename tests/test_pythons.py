"""Python 3.10 to 3.13, as pyproject.toml declares: the sources use no newer syntax, and the
installed command gives the same findings on the fixtures under every interpreter of those
versions this machine has (pyenv's, or python3.X on PATH)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, fixture_files, installed_env

VERSIONS = ("3.10", "3.11", "3.12", "3.13")


def test_declared_versions():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'requires-python = ">=3.10"' in text
    for version in VERSIONS:
        assert f"Programming Language :: Python :: {version}" in text


@pytest.mark.parametrize("path", sorted((ROOT / "src").rglob("*.py")), ids=lambda p: p.name)
def test_sources_parse_as_python_3_10(path: Path):
    ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 10))


def test_no_module_newer_than_python_3_10():
    """tomllib is 3.11's: every reader takes it from rulefile, which falls back to tomli."""
    newer = {"tomllib"}
    for path in sorted((ROOT / "src").rglob("*.py")):
        if path.name == "rulefile.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            assert not newer & {n.split(".")[0] for n in names}, f"{path.relative_to(ROOT)}:{node.lineno}"


def interpreter(version: str) -> str | None:
    """A working python of that version: on PATH, or one of pyenv's (whose shims fail
    unless that version is selected)."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(str(p) for p in (Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python{version}"))
    wanted = str(tuple(map(int, version.split("."))))
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip() == wanted:
            return candidate
    return None


@pytest.mark.packaging
@pytest.mark.parametrize("version", [v for v in VERSIONS if v != f"{sys.version_info[0]}.{sys.version_info[1]}"])
def test_same_findings_under_each_python(version: str, tmp_path: Path):
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no python{version} on this machine")
    env = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(env)], check=True)
    subprocess.run([str(env / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(ROOT)],
                   check=True, timeout=900)
    files = [str(p) for p in fixture_files()]
    theirs = subprocess.run([str(env / "bin" / "sglang-lint"), "--no-cache", *files], capture_output=True, text=True,
                            env=installed_env())
    ours = subprocess.run([sys.executable, "-m", "sglang_lint", "--no-cache", *files], capture_output=True, text=True)
    # exit 1 is also what a crash gives: the findings must be there and nothing on stderr
    assert (theirs.returncode, theirs.stderr) == (ours.returncode, ours.stderr) == (1, "")
    assert theirs.stdout == ours.stdout != ""
    flake8 = subprocess.run([str(env / "bin" / "flake8"), "--isolated", "--select", "SGL", *files],
                            capture_output=True, text=True, env=installed_env())
    assert flake8.stdout.count(" SGL0") == ours.stdout.count(" SGL0")
