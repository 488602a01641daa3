"""Where sglang-lint's files are: the shipped catalog and the cache (a leaf: start-up reads it,
so it imports next to nothing)."""

from __future__ import annotations

import marshal
import os
from pathlib import Path


def default_rules_dir() -> Path:
    """The catalog shipped in the wheel, or the repository's rules/ when run from source."""
    here = Path(__file__).resolve().parent
    shipped = here / "rules"
    if shipped.is_dir():
        return shipped
    return here.parent.parent / "rules"


def cache_home() -> Path:
    """Where sglang-lint keeps what it can compute again: ``$SGLANG_LINT_CACHE``, else
    ``$XDG_CACHE_HOME/sglang-lint``, else ``~/.cache/sglang-lint``."""
    root = os.environ.get("SGLANG_LINT_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "sglang-lint"


def keep_marshal(path: Path, data) -> None:
    """Write ``data`` as marshal, atomically (a temporary file, then a rename); a cache that
    cannot be written only costs time."""
    try:
        blob = marshal.dumps(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            stream.write(blob)
        os.replace(temporary, path)
    except (OSError, ValueError):
        pass
