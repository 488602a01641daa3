"""sglang's releases as the deriver reads them: which exist (from pip's index), their order,
and each one's source tree, fetched through pip once into the cache and unpacked (the ``sglang``
package but its compiled libraries, which nothing here loads: the deriver reads the tree and never
imports it; the tests that run sglang's own validation import its Python and read its data
files). A file that two releases ship with the same bytes is kept once on disk
(:func:`_keep_shared`): 29 trees take some 490 MB where their files add up to 870 MB."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

try:
    import fcntl  # (POSIX; elsewhere fetches are not serialized)
except ImportError:  # pragma: no cover - Windows
    fcntl = None

from sglang_lint.catalog.rules import version_key
from sglang_lint.core.places import cache_home, keep_file

_AVAILABLE = re.compile(r"^Available versions:\s*(.+)$", re.M)


def cache_dir() -> Path:
    return cache_home()


def fetch_tree(version: str) -> Path:
    """The folder holding release ``version``'s unpacked ``sglang`` package (downloaded once,
    through pip, into the cache; the wheel itself is not kept: :func:`tree_wheel` names it)."""
    root = cache_dir() / f"sglang-{version}"
    done = root / UNPACKED
    if done.exists():
        return root
    cache_dir().mkdir(parents=True, exist_ok=True)
    # one fetch at a time (test workers, two terminals): the others wait, then find it done
    with open(cache_dir() / f"sglang-{version}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        return root if done.exists() else _fetch_tree(version, root, done)


UNPACKED = ".unpacked"  # written last into a fetched tree: the name of the wheel it came from
COMPILED = (".so", ".pyd", ".dylib")  # not unpacked: a fifth of a tree's bytes, and a new copy each release


def tree_wheel(root: Path) -> Path | None:
    """The wheel a tree of :func:`fetch_tree` was unpacked from, by name only (the file is gone;
    its name still says the release), or None for another folder."""
    try:
        name = (root / UNPACKED).read_text().strip()
    except OSError:
        return None
    if name.endswith(".whl"):
        return Path(name)
    # a tree unpacked before its marker named the wheel: the wheel was kept beside the trees
    return next((cache_dir() / "wheels").glob(f"{root.name}-*.whl"), None)


def fetch_wheel(name: str, version: str) -> Path:
    """The wheel of ``name==version`` (no dependencies), downloaded once through pip into the
    cache's wheels folder."""
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = next(wheels.glob(f"{name}-{version}-*.whl"), None)
    if wheel is None:
        _download(name, version, wheels)
        wheel = next(wheels.glob(f"{name}-{version}-*.whl"))
    return wheel


def _download(name: str, version: str, folder: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
         "--dest", str(folder), f"{name}=={version}"],
        check=True,
    )


def _fetch_tree(version: str, root: Path, done: Path) -> Path:
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="sglang-lint-wheel-") as downloads:
        _download("sglang", version, Path(downloads))
        wheel = next(Path(downloads).glob(f"sglang-{version}-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.infolist():
                if member.is_dir() or not member.filename.startswith("sglang/") or ".." in member.filename.split("/"):
                    continue  # (another package's files, or a name that would land outside the tree)
                if not member.filename.endswith(COMPILED):
                    _keep_shared(archive.read(member), partial / member.filename)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    done.write_text(wheel.name + "\n")
    return root


def _keep_shared(data: bytes, target: Path) -> None:
    """``target`` holding ``data``: a hard link to the cache's one copy of those bytes
    (``shared/``, by their hash), made first if missing; a plain copy where links cannot be
    made. A tree's files are only ever read (a test that plants a bug copies the file first)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    shared = cache_dir() / "shared" / digest[:2] / digest
    try:
        if not shared.exists() and not keep_file(shared, data):
            raise OSError("the shared copy could not be written")
        os.link(shared, target)
    except OSError:
        target.write_bytes(data)


def available_releases() -> list[str]:
    """Every sglang release pip's index lists, oldest first."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "sglang", "--disable-pip-version-check"],
        capture_output=True, text=True, check=True,
    )
    match = _AVAILABLE.search(done.stdout)
    if match is None:
        raise RuntimeError(f"pip index versions sglang printed no versions:\n{done.stdout}{done.stderr}")
    return sorted((v.strip() for v in match.group(1).split(",") if v.strip()), key=version_key)


def releases_in(spec: str, available: list[str]) -> list[str]:
    """``0.5.1..0.5.23`` (both ends included) or ``0.5.2,0.5.6``: the releases it names,
    oldest first; every one must exist."""
    if ".." in spec:
        low, _, high = spec.partition("..")
        low_key, high_key = version_key(low.strip()), version_key(high.strip())
        chosen = [v for v in available if low_key <= version_key(v) <= high_key]
    else:
        chosen = [v.strip() for v in spec.split(",") if v.strip()]
        missing = [v for v in chosen if v not in available]
        if missing:
            raise ValueError(f"no sglang release {', '.join(missing)}")
    if not chosen:
        raise ValueError(f"no sglang release in {spec!r}")
    return sorted(chosen, key=version_key)
