"""The order of sglang releases (a leaf: the command's start-up reads it)."""

from __future__ import annotations

import re
from functools import lru_cache

_VERSION_PARTS = re.compile(r"([0-9]+(?:\.[0-9]+)*)(?:[.-]?([a-z]+)[.-]?([0-9]*))?")


@lru_cache(maxsize=4096)
def version_key(version: str) -> tuple:
    """A release's place in order: ``0.5.23`` -> ((0, 5, 23), 1, 0); a pre-release suffix
    (``rc1``, ``dev0``, ``a1``) sorts before its release, a ``.postN`` after it, by N."""
    match = _VERSION_PARTS.fullmatch(version.strip().lower())
    if match is None:
        return (tuple(int(p) for p in re.findall(r"[0-9]+", version)), 1, 0)
    numbers = tuple(int(part) for part in match.group(1).split("."))
    suffix, number = match.group(2), int(match.group(3) or 0)
    if suffix is None:
        return (numbers, 1, 0)
    return (numbers, 2 if suffix == "post" else 0, number)
