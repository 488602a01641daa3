"""The TOML schema reader every rule file and data table goes through: typed, named access
to one table, and :class:`RuleFileError`, which names the file and the field at fault.

A leaf: the catalog (rule files) and the server-argument table both read their TOML here.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import sys
from pathlib import Path

from sglang_lint.core.places import cache_home, keep_marshal, prune_kept
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["Fields", "RuleFileError", "read_toml", "tomllib"]


class RuleFileError(Exception):
    """A rule file that cannot be used; names the file and the offending field."""

    def __init__(self, path: Path | str, field_name: str, problem: str):
        self.path = Path(path)
        self.field_name = field_name
        self.problem = problem
        where = f"field '{field_name}'" if field_name else "file"
        super().__init__(f"{self.path}: {where}: {problem}")


class Fields:
    """Typed, named access to one TOML table; every error names file and field path."""

    def __init__(self, table: Any, path: Path, prefix: str = ""):
        if not isinstance(table, dict):
            raise RuleFileError(path, prefix, f"must be a table, got {type(table).__name__}")
        self.table = table
        self.path = path
        self.prefix = prefix
        self.used: set[str] = set()

    def where(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def error(self, key: str, problem: str) -> RuleFileError:
        return RuleFileError(self.path, self.where(key), problem)

    def _get(self, key: str, required: bool) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                raise self.error(key, "is missing")
            return None
        return self.table[key]

    def str(self, key: str, required: bool = True, pattern: re.Pattern | None = None) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        if pattern is not None and not pattern.match(value):
            raise self.error(key, f"{value!r} does not match {pattern.pattern}")
        return value

    def int(self, key: str, required: bool = True, minimum: int = 0) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error(key, f"must be an integer >= {minimum}, got {value!r}")
        return value

    def bool(self, key: str, required: bool = True) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, got {value!r}")
        return value

    def strings(self, key: str, required: bool = True, pattern: re.Pattern | None = None) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise self.error(key, f"must be a non-empty list of strings, got {value!r}")
        for item in value:
            if not isinstance(item, str) or not item:
                raise self.error(key, f"must contain only non-empty strings, got {item!r}")
            if pattern is not None and not pattern.match(item):
                raise self.error(key, f"{item!r} does not match {pattern.pattern}")
        if len(set(value)) != len(value):
            raise self.error(key, "lists a value twice")
        return tuple(value)

    def any(self, key: str, required: bool = True) -> Any:
        return self._get(key, required)

    def sub(self, key: str, required: bool = True) -> "Fields | None":
        value = self._get(key, required)
        if value is None:
            return None
        return Fields(value, self.path, self.where(key))

    def subs(self, key: str, required: bool = True) -> list["Fields"]:
        value = self._get(key, required)
        if value is None:
            return []
        if not isinstance(value, list) or not value:
            raise self.error(key, "must be a non-empty array of tables")
        return [Fields(item, self.path, f"{self.where(key)}[{i}]") for i, item in enumerate(value)]

    def done(self) -> None:
        """Reject keys nobody asked for: a typo in a rule file must not pass silently."""
        unknown = sorted(set(self.table) - self.used)
        if unknown:
            raise self.error(unknown[0], "is not a known field")


# A TOML file this big (the server-argument table of every release, 150 KB; the exports and
# launchers tables, 15-20 KB) is parsed once and kept as marshal data under its content's hash:
# tomllib reads the biggest in 50 ms, marshal in 2.
PARSED_CACHE_MIN_BYTES = 8_000
# Within one process, a data table several rules name (launchers.toml) is read once while its
# file stays the same (path, size, modification time). Callers only read what they get.
_READ: dict[tuple, dict] = {}


def read_toml(path: Path) -> dict:
    """A TOML file's top table; RuleFileError (naming the file) when it cannot be read."""
    try:
        stat = os.stat(path)
        known = _READ.get((str(path), stat.st_size, stat.st_mtime_ns))
        if known is not None:
            return known
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleFileError(path, "", f"cannot be read: {exc.strerror or exc}") from exc
    data = _read_toml(path, raw)
    if len(_READ) > 64:
        _READ.clear()
    _READ[str(path), stat.st_size, stat.st_mtime_ns] = data
    return data


def _read_toml(path: Path, raw: bytes) -> dict:
    cached = None
    if len(raw) >= PARSED_CACHE_MIN_BYTES:
        key = hashlib.blake2b(raw + sys.version.encode(), digest_size=16).hexdigest()
        cached = cache_home() / "tables" / f"{key}.marshal"
        try:
            found = marshal.loads(cached.read_bytes())
            if isinstance(found, dict):
                return found
        except (OSError, ValueError, EOFError, TypeError):
            pass
    data = _parse(path, raw)
    if cached is not None:
        keep_marshal(cached, data)
    return data


def read_tomls(paths: list[Path]) -> list[dict]:
    """Many small TOML files (a rule folder), each as :func:`read_toml` reads it; parsed once
    and kept together as marshal data under the hash of all their names and bytes (not their
    folder: a copy of a folder reads the same set), so that a run that changes no rule file
    parses none (tomllib takes 0.2 ms a file); one that changes any parses those its process
    has not parsed yet (a language server, an edit: the one file)."""
    if len(paths) < KEEP_FROM:
        return [read_toml(path) for path in paths]  # (each file's own parse is kept: read_toml)
    raws = []
    digest = hashlib.blake2b(sys.version.encode(), digest_size=16)
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise RuleFileError(path, "", f"cannot be read: {exc.strerror or exc}") from exc
        raws.append(raw)
        digest.update(path.name.encode() + b"\0" + raw + b"\0")
    cached = cache_home() / "tables" / f"rules-{digest.hexdigest()}.marshal"
    try:
        found = marshal.loads(cached.read_bytes())
        if isinstance(found, list) and len(found) == len(paths):
            return found
    except (OSError, ValueError, EOFError, TypeError):
        pass
    if len(_PARSED) > MOST_PARSED:
        _PARSED.clear()
    parsed = [_PARSED.get(raw) or _PARSED.setdefault(raw, _parse(path, raw)) for path, raw in zip(paths, raws)]
    keep_marshal(cached, parsed)
    prune_kept(cached, "rules-", ".marshal", KEEP_SETS)
    return parsed


# Within one process, each rule file's parse by its bytes (callers only read what they get).
_PARSED: dict[bytes, dict] = {}
MOST_PARSED = 20_000  # (four catalogs' worth)
KEEP_FROM = 100  # fewer files than this are parsed one by one: a kept set for each few would pile up
KEEP_SETS = 8  # kept sets of parsed rule files (other folders, versions, edits), newest first


def _parse(path: Path, raw: bytes) -> dict:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RuleFileError(path, "", f"is not UTF-8: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(path, "", f"is not valid TOML: {exc}") from exc
