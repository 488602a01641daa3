"""The compiled rule index: what the cheap stage needs from the catalog, without loading it.

Loading the catalog means importing LibCST and every check kind and reading some 1,500 rule
files; a file that calls no catalog name needs none of it. The index keeps, in one marshal file
under the cache (``tables/index-<key>.marshal``), the rule codes, the callee names the rules
trigger on, and the prefilter's trigger table (every rule of every release: a superset of what
any target release runs, so a file it skips is skipped by the full prefilter too). The key is
the hash of the rule folders' files (path, size, modification time: the rule files and the data
tables beside them, ``extra-rules`` folders included), this tool's version and the index
format: editing any of them makes a new index on the next run. An index that cannot be read,
or holds anything unexpected, is built again, never trusted.

Standard library and two leaves only: importing this must stay cheap (the flake8 plugin and
the command pay it on every run).
"""

from __future__ import annotations

import marshal
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Sequence

from sglang_lint import __version__
from sglang_lint.places import cache_home, default_rules_dir, keep_marshal

FORMAT = 3
IDENTIFIER_BYTES = bytes(c if (c >= 128 or c == ord("_") or chr(c).isalnum()) else ord(" ") for c in range(256))


class RuleIndex:
    """The codes and triggers of a rule folder set; :meth:`may_match` is the first question
    asked of a file, :meth:`codes_for` says which rules a file needs loaded."""

    def __init__(self, codes: tuple[str, ...], names: frozenset[bytes], triggers: tuple,
                 paths: tuple[str, ...] = (), releases: tuple[str, ...] = (), key: str = ""):
        self.codes = codes
        self.names = names
        self.paths = dict(zip(codes, paths))  # each rule's file
        self.releases = releases  # every release the rules and their tables name (target.py)
        self.key = key  # the fingerprint of the rule files it was built from
        self._triggers = triggers
        self._prefilter = None

    def codes_for(self, source: str | bytes, module: str | None = None) -> frozenset[str]:
        """The rules with a trigger written in this text (the text prefilter, per rule): the
        only ones that can fire on it, whatever the release. A run over a few files loads
        just these (ruletable.py ``rules_of``)."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        if not self.mentions(data):
            return frozenset()
        return frozenset(trigger.code for trigger in self.prefilter.fired(data, module))

    def mentions(self, source: str | bytes) -> bool:
        """Does the text hold, as an identifier, a name some rule triggers on? False: the
        common case, answered here, before anything else is imported."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        return not self.names.isdisjoint(data.translate(IDENTIFIER_BYTES).split())

    def may_match(self, source: str | bytes, module: str | None = None) -> bool:
        """Could any rule of any release fire on this text? False: nothing more to do."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        return self.mentions(data) and self.prefilter.skip_reason(data, module) is None

    @property
    def prefilter(self):
        """The text prefilter (no call-site screen), made on first need."""
        if self._prefilter is None:
            from sglang_lint.prefilter import Prefilter

            self._prefilter = Prefilter([_Trigger(*item) for item in self._triggers], screen=False)
        return self._prefilter


class _Trigger:
    """A check's trigger as the index keeps it (what prefilter.CompiledTrigger reads), with
    the code of its rule."""

    __slots__ = ("name", "shape", "also", "module", "screen", "code")

    def __init__(self, name: str, shape: str, also: tuple, module: str | None, code: str):
        self.name, self.shape, self.module, self.screen, self.code = name, shape, module, None, code
        self.also = tuple(word[1] if word[0] == "s" else re.compile(word[1], word[2]) for word in also)


_LOADED: dict = {}


def rule_index(dirs: Sequence[Path] | None = None) -> RuleIndex:
    """The index of these rule folders (default: the shipped catalog), from the cache when its
    key matches, else built from the rule files (and kept)."""
    folders = tuple(Path(d) for d in (dirs or [default_rules_dir()]))
    key = fingerprint(folders)
    if key not in _LOADED:
        path = cache_home() / "tables" / f"index-{key}.marshal"
        data = _read(path)
        if data is None:
            data = build(folders)
            payload = marshal.dumps(data)
            keep_marshal(path, (FORMAT, _digest(payload), payload))
        _LOADED[key] = RuleIndex(data[1], frozenset(name.encode() for name in data[2]), *data[3:], key=key)
    return _LOADED[key]


def fingerprint(dirs: Sequence[Path]) -> str:
    """The hash of the folders' TOML files (path, size, modification time), the tool's version
    and the index format."""
    lines = [f"index {FORMAT} sglang-lint {__version__} {sys.version_info[:2]}"]
    for folder in dirs:
        lines.append(f"folder {folder}")
        _tomls(str(folder), lines)
    return _digest("\n".join(lines).encode("utf-8", "surrogateescape"))


def _digest(data: bytes) -> str:
    """Two independent 32-bit checksums and the length: zlib is loaded already wherever this
    runs (hashlib's OpenSSL binding would cost flake8's start 2.5 ms); this keys a cache and
    checks our own file for damage, it guards against no adversary."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def _tomls(folder: str, lines: list[str]) -> None:
    """A line ``path size mtime`` for every TOML file under the folder, in name order (this
    runs on every start: one stat per file, little else)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.endswith(".toml"):
            stat = entry.stat()
            lines.append(f"{entry.path} {stat.st_size} {stat.st_mtime_ns}")
        elif entry.is_dir():
            _tomls(entry.path, lines)


def build(dirs: Sequence[Path]) -> tuple:
    """(FORMAT, codes, trigger names, triggers, rule files, releases) from the rule files: the
    catalog loaded in full."""
    from sglang_lint.ruletable import load_rules, rule_triggers  # the heavy part: only to build
    from sglang_lint.target import known_releases

    rules = load_rules(list(dirs))
    triggers = []
    for rule in rules:
        for trigger in rule_triggers([rule]):
            also = tuple(("s", word) if isinstance(word, str) else ("r", word.pattern, word.flags)
                         for word in trigger.also)
            triggers.append((trigger.name, trigger.shape, also, trigger.module, rule.code))
    names = tuple(sorted({trigger[0] for trigger in triggers}))
    paths = tuple(str(rule.path) for rule in rules)
    return FORMAT, tuple(rule.code for rule in rules), names, tuple(triggers), paths, known_releases(rules)


def _read(path: Path) -> tuple | None:
    """The index data of the file, when its checksum holds (else None: it is built again). The
    file is (FORMAT, checksum of the payload, the payload as marshal): a file cut short, edited
    or written by another format never passes."""
    try:
        outer = marshal.loads(path.read_bytes())
        if not (isinstance(outer, tuple) and len(outer) == 3 and outer[0] == FORMAT):
            return None
        _, digest, payload = outer
        if not isinstance(payload, bytes) or _digest(payload) != digest:
            return None
        data = marshal.loads(payload)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return data if isinstance(data, tuple) and len(data) == 6 and data[0] == FORMAT else None
