"""sglang's releases as the deriver reads them: which exist (from pip's index), their order,
and each one's source tree, fetched through pip once into the cache and unpacked (only the
``sglang`` package; nothing is ever imported)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

try:
    import fcntl  # (POSIX; elsewhere fetches are not serialized)
except ImportError:  # pragma: no cover - Windows
    fcntl = None

from sglang_lint.catalog.rules import version_key
from sglang_lint.core.places import cache_home

_AVAILABLE = re.compile(r"^Available versions:\s*(.+)$", re.M)


def cache_dir() -> Path:
    return cache_home()


def fetch_tree(version: str) -> Path:
    """The folder holding release ``version``'s unpacked ``sglang`` package (downloaded once,
    through pip, into the cache)."""
    root = cache_dir() / f"sglang-{version}"
    done = root / ".unpacked"
    if done.exists():
        return root
    cache_dir().mkdir(parents=True, exist_ok=True)
    # one fetch at a time (test workers, two terminals): the others wait, then find it done
    with open(cache_dir() / f"sglang-{version}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        return root if done.exists() else _fetch_tree(version, root, done)


def fetch_wheel(name: str, version: str) -> Path:
    """The wheel of ``name==version`` (no dependencies), downloaded once through pip into the
    cache's wheels folder."""
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = next(wheels.glob(f"{name}-{version}-*.whl"), None)
    if wheel is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
             "--dest", str(wheels), f"{name}=={version}"],
            check=True,
        )
        wheel = next(wheels.glob(f"{name}-{version}-*.whl"))
    return wheel


def _fetch_tree(version: str, root: Path, done: Path) -> Path:
    wheel = fetch_wheel("sglang", version)
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith("sglang/")]
        archive.extractall(partial, members)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    done.touch()
    return root


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
