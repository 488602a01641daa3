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

import hashlib
import marshal
import os
import re
import sys
from pathlib import Path
from typing import Sequence

from sglang_lint import __version__
from sglang_lint.rulefile import cache_home, default_rules_dir, keep_marshal

FORMAT = 2
IDENTIFIER_BYTES = bytes(c if (c >= 128 or c == ord("_") or chr(c).isalnum()) else ord(" ") for c in range(256))


class RuleIndex:
    """The codes and triggers of a rule folder set; :meth:`may_match` is the first question
    asked of a file."""

    def __init__(self, codes: tuple[str, ...], names: frozenset[bytes], triggers: tuple):
        self.codes = codes
        self.names = names
        self._triggers = triggers
        self._prefilter = None

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
    """A check's trigger as the index keeps it (what prefilter.CompiledTrigger reads)."""

    __slots__ = ("name", "shape", "also", "module", "screen")

    def __init__(self, name: str, shape: str, also: tuple, module: str | None):
        self.name, self.shape, self.module, self.screen = name, shape, module, None
        self.also = tuple(word[1] if word[0] == "s" else re.compile(word[1], word[2]) for word in also)


_LOADED: dict = {}


def rule_index(dirs: Sequence[Path] | None = None) -> RuleIndex:
    """The index of these rule folders (default: the shipped catalog), from the cache when its
    key matches, else built from the rule files (and kept)."""
    folders = tuple(Path(d) for d in (dirs or [default_rules_dir()]))
    key = fingerprint(folders)
    if key not in _LOADED:
        path = cache_home() / "tables" / f"index-{key}.marshal"
        data = None
        try:
            data = _valid(marshal.loads(path.read_bytes()))
        except (OSError, ValueError, EOFError, TypeError):
            pass
        if data is None:
            data = build(folders)
            keep_marshal(path, data)
        _LOADED[key] = RuleIndex(data[1], frozenset(name.encode() for name in data[2]), data[3])
    return _LOADED[key]


def fingerprint(dirs: Sequence[Path]) -> str:
    """The hash of the folders' TOML files (path, size, modification time), the tool's version
    and the index format."""
    digest = hashlib.blake2b(f"index {FORMAT} sglang-lint {__version__} {sys.version_info[:2]}".encode(),
                             digest_size=16)
    for folder in dirs:
        for path, stat in _tomls(str(folder)):
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _tomls(folder: str) -> list:
    found = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir():
            found += _tomls(entry.path)
        elif entry.name.endswith(".toml"):
            found.append((entry.path, entry.stat()))
    return found


def build(dirs: Sequence[Path]) -> tuple:
    """(FORMAT, codes, trigger names, triggers) from the rule files: the catalog loaded in full."""
    from sglang_lint.ruletable import load_rules, rule_triggers  # the heavy part: only to build

    rules = load_rules(list(dirs))
    triggers = []
    for trigger in rule_triggers(rules):
        also = tuple(("s", word) if isinstance(word, str) else ("r", word.pattern, word.flags)
                     for word in trigger.also)
        triggers.append((trigger.name, trigger.shape, also, trigger.module))
    names = tuple(sorted({trigger[0] for trigger in triggers}))
    return FORMAT, tuple(rule.code for rule in rules), names, tuple(triggers)


def _valid(data) -> tuple | None:
    """The index data when it has the expected shape, else None (it is built again)."""
    if not (isinstance(data, tuple) and len(data) == 4 and data[0] == FORMAT):
        return None
    codes, names, triggers = data[1], data[2], data[3]
    if not all(isinstance(part, tuple) for part in (codes, names, triggers)):
        return None
    if not all(isinstance(c, str) for c in codes) or not all(isinstance(n, str) for n in names):
        return None
    for item in triggers:
        if not (isinstance(item, tuple) and len(item) == 4 and isinstance(item[0], str) and isinstance(item[1], str)
                and isinstance(item[2], tuple) and (item[3] is None or isinstance(item[3], str))):
            return None
        if item[0] not in names:
            return None
        for word in item[2]:
            if not (isinstance(word, tuple) and len(word) in (2, 3) and word[0] in ("s", "r")):
                return None
    return data
