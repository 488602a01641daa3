"""The compiled rule index: what the cheap stage needs from the catalog, without loading it.

Loading the catalog means importing LibCST and every check kind and reading some 5,000 rule
files; a file that calls no catalog name needs none of it. The index keeps, in one marshal file
under the cache (``tables/index-<key>.marshal``), in two parts:

* the callee names the rules trigger on (a frozenset, about 75 KB): all a file that mentions
  none of them needs, read on every start;
* the rule codes, each rule's file, the releases, the rules with server-argument checks, and
  the prefilter's trigger table (every rule of every release: a superset of what any target
  release runs, so a file it skips is skipped by the full prefilter too), unpacked only when
  a file mentions a name.

Beside it, ``tables/ruledata-<key>.bin`` holds each rule file's table (what tomllib reads from
it) as marshal data, found by code and read one rule at a time (:class:`RuleData`): a run
that needs a few thousand rules (flake8's worker on a large tree) reads them in
milliseconds instead of parsing as many TOML files (0.8 ms each).

The key is a fingerprint of the rule folders, this tool's version and the index format; the
folders are stamped two ways:

* a catalog installed inside the package (a wheel in site-packages) by its folders alone (each
  one's inode, modification time and link count: installing, upgrading or reinstalling it adds
  and removes files, which changes them), so the start-up costs a few ``stat`` calls however
  many rules there are. Its files are pip's to change, not to be edited in place;
* any other folder (the repository's ``rules/`` when run from a checkout or an editable
  install, ``extra-rules`` folders) by every TOML file in it (path, size, modification time):
  editing one takes effect on the next run.

An index that cannot be read, or holds anything unexpected, is built again, never trusted;
when a new one is written, all but the newest few of the others are removed.

Standard library and one leaf only (no pathlib, typing or re until needed): importing this must
stay cheap (the flake8 plugin and the command pay it on every run).
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

from sglang_lint.core.version import __version__
from sglang_lint.core.places import cache_folder, keep_file, keep_marshal, prune_kept, rules_folder, shipped_rules_folder

FORMAT = 8
KEEP_INDEXES = 8  # index files of other rule folders or versions kept (branches, venvs), newest first
IDENTIFIER_BYTES = bytes(c if (c >= 128 or c == ord("_") or chr(c).isalnum()) else ord(" ") for c in range(256))


_LAST_TEXT: list = [(b"", frozenset())]  # the last text whose identifiers were asked for, and them


def identifiers_of(data: bytes) -> frozenset:
    """The text's identifiers (its bytes with every byte that cannot be part of one turned
    into a space, split: two C loops). The index's first question and the prefilter's both
    read them, for the same text in a row (the flake8 plugin asks three times per file):
    the last text's are kept (a comparison of bytes, not another split; one tuple, read
    once, so that threads never mix two texts')."""
    last = _LAST_TEXT[0]
    if len(data) == len(last[0]) and data == last[0]:
        return last[1]
    found = frozenset(data.translate(IDENTIFIER_BYTES).split())
    _LAST_TEXT[0] = (data, found)
    return found


class Identifier(str):
    """A trigger's other word that code can only write as a whole identifier: the last name
    of a rule's module (an import spells a module's parts between dots) or a receiver class's
    name. The prefilter finds it among the text's identifiers (one set lookup); any other word
    is a substring (``speculative`` of ``speculative_dflash_block_size=``)."""

    __slots__ = ()


class AnyIdentifier(tuple):
    """A trigger's other word written as any one of several identifiers (the classes a method
    rule's receiver may be of): the prefilter asks whether the text's identifiers meet the set,
    one set operation however many there are."""

    __slots__ = ()


class RuleIndex:
    """The codes and triggers of a rule folder set; :meth:`may_match` is the first question
    asked of a file, :meth:`codes_for` says which rules a file needs loaded. Only ``names`` is
    read up front; the rest (``codes``, ``paths``, ``releases``, the triggers) on first use."""

    def __init__(self, names: frozenset, details, key: str = "", data_path: str | None = None):
        self.names = names
        self.key = key  # the fingerprint of the rule files it was built from
        self._details = details  # (codes, triggers, paths, releases, launch codes), or a callable giving them
        self._prefilter = None
        self._paths = None
        self._data_path = data_path  # where the rule data are kept (None: read every rule file)
        self._data = None
        self._last_present: tuple = (None, frozenset())

    def _part(self, index: int):
        if callable(self._details):
            self._details = self._details()
        return self._details[index]

    @property
    def codes(self) -> tuple:
        return self._part(0)

    @property
    def paths(self) -> dict:
        """Each rule's file, by code."""
        if self._paths is None:
            self._paths = dict(zip(self._part(0), self._part(2)))
        return self._paths

    @property
    def releases(self) -> tuple:
        """Every release the rules and their tables name (target.py)."""
        return self._part(3)

    def tables_of(self, codes: list[str]) -> list[dict | None]:
        """The table of each code's rule file from the rule data kept beside the index (None
        for one not there or damaged: the caller reads that file itself)."""
        if self._data is None:
            self._data = RuleData(self, self._data_path)
        return self._data.tables(codes)

    @property
    def launch_codes(self) -> tuple:
        """The rules with a server-argument check (whose targets are sglang's launch entry
        points, which the project pass starts from: project.py)."""
        return self._part(4)

    def codes_for(self, source: str | bytes, module: str | None = None) -> frozenset[str]:
        """The rules with a trigger written in this text (the text prefilter, per rule): the
        only ones that can fire on it, whatever the release. A run over a few files loads
        just these (ruletable.py ``rules_of``)."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        present = self._present(data)
        if not present:
            return frozenset()
        return frozenset(trigger.code for trigger in self._prefilter_for(present).fired(data, module))

    def mentions(self, source: str | bytes) -> bool:
        """Does the text hold, as an identifier, a name some rule triggers on? False: the
        common case, answered here, before anything else is imported."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        return bool(self._present(data))

    def may_match(self, source: str | bytes, module: str | None = None) -> bool:
        """Could any rule of any release fire on this text? False: nothing more to do."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        present = self._present(data)
        return bool(present) and self._prefilter_for(present).skip_reason(data, module) is None

    def _present(self, data: bytes) -> frozenset:
        """The trigger names among the text's identifiers (the last text's kept: the flake8
        plugin asks :meth:`mentions`, then :meth:`codes_for`)."""
        identifiers = identifiers_of(data)
        last = self._last_present
        if last[0] is identifiers:
            return last[1]
        present = self.names.intersection(identifiers)
        self._last_present = (identifiers, present)
        return present

    @property
    def prefilter(self):
        """The text prefilter (no call-site screen) of every trigger."""
        return self._prefilter_for(self.names)

    def _prefilter_for(self, names):
        """The text prefilter with (at least) the triggers of these names compiled: each name's
        triggers are compiled the first time a text holds it (some 5,000 triggers, most of
        them never needed by a run over a few files)."""
        if self._prefilter is None:
            from sglang_lint.screen.prefilter import Prefilter

            self._prefilter = Prefilter([], screen=False)
        missing = [name for name in names if name not in self._prefilter.by_name]
        if missing:
            grouped = self._part(1)
            self._prefilter.extend([_Trigger(*item) for name in missing for item in grouped[name]])
        return self._prefilter


class _Trigger:
    """A check's trigger as the index keeps it (what prefilter.CompiledTrigger reads), with
    the code of its rule."""

    __slots__ = ("name", "shape", "also", "module", "screen", "code")

    def __init__(self, name: str, shape: str, also: tuple, module: str | None, code: str):
        self.name, self.shape, self.module, self.screen, self.code = name, shape, module, None, code
        import re

        self.also = tuple(word[1] if word[0] == "s" else Identifier(word[1]) if word[0] == "w"
                          else AnyIdentifier(word[1]) if word[0] == "a"
                          else re.compile(word[1], word[2]) for word in also)


_LOADED: dict = {}


def rule_index(dirs=None) -> RuleIndex:
    """The index of these rule folders (default: the shipped catalog), from the cache when its
    key matches, else built from the rule files (and kept)."""
    folders = tuple(os.fspath(d) for d in (dirs or [rules_folder()]))
    key = fingerprint(folders)
    if key not in _LOADED:
        path = os.path.join(cache_folder(), "tables", f"index-{key}.marshal")
        found = _read(path, folders)
        names, details = found if found is not None else _build_and_keep(path, folders)
        _LOADED[key] = RuleIndex(names, details, key=key,
                                 data_path=os.path.join(cache_folder(), "tables", f"ruledata-{key}.bin"))
    return _LOADED[key]


def _build_and_keep(path: str, folders: tuple) -> tuple:
    names, details = build(folders)
    names_blob, details_blob = marshal.dumps(names), marshal.dumps(details)
    keep_marshal(path, (FORMAT, _digest(names_blob), names_blob, _digest(details_blob), details_blob))
    prune_kept(path, "index-", ".marshal", KEEP_INDEXES)
    return names, details


def fingerprint(dirs) -> str:
    """The hash of the rule folders (see the module's text: an installed catalog by its
    folders, any other by its TOML files), the tool's version and the index format."""
    lines = [f"index {FORMAT} sglang-lint {__version__} {sys.version_info[:2]}"]
    shipped = shipped_rules_folder()
    for folder in map(os.fspath, dirs):
        if shipped is not None and os.path.realpath(folder) == shipped:
            lines.append(f"installed {folder}")
            _folders(folder, lines)
        else:
            lines.append(f"folder {folder}")
            _tomls(folder, lines)
    return _digest("\n".join(lines).encode("utf-8", "surrogateescape"))


def _digest(data: bytes) -> str:
    """Two independent 32-bit checksums and the length: zlib is loaded already wherever this
    runs (hashlib's OpenSSL binding would cost flake8's start 2.5 ms); this keys a cache and
    checks our own file for damage, it guards against no adversary."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def _folders(folder: str, lines: list[str]) -> None:
    """A line ``path inode mtime links`` for the folder and each folder inside it. A folder
    with two links has no sub-folder (its ``.`` and its name in its parent), so the one that
    holds the derived rules is never listed; where the file system counts otherwise, it is."""
    try:
        stat = os.stat(folder)
    except OSError:
        lines.append(f"{folder} missing")
        return
    lines.append(f"{folder} {stat.st_ino} {stat.st_mtime_ns} {stat.st_nlink}")
    if stat.st_nlink == 2:
        return
    try:
        inside = sorted(entry.path for entry in os.scandir(folder) if entry.is_dir())
    except OSError:
        return
    for sub in inside:
        _folders(sub, lines)


def _tomls(folder: str, lines: list[str]) -> None:
    """A line ``path size mtime`` for every TOML file under the folder, in name order (one
    stat per file, little else)."""
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


def build(dirs) -> tuple:
    """(trigger names, (codes, triggers by name, rule files, releases, launch codes)) from the
    rule files: the catalog loaded in full (and validated: a malformed rule file raises here)."""
    from pathlib import Path

    from sglang_lint.engine.ruletable import load_rules, rule_triggers  # the heavy part: only to build
    from sglang_lint.engine.target import known_releases

    rules = load_rules([Path(d) for d in dirs])
    triggers = []
    for rule in rules:
        for trigger in rule_triggers([rule]):
            also = tuple(("w" if isinstance(word, Identifier) else "s", str(word)) if isinstance(word, str)
                         else ("a", tuple(word)) if isinstance(word, AnyIdentifier)
                         else ("r", word.pattern, word.flags) for word in trigger.also)
            triggers.append((trigger.name, trigger.shape, also, trigger.module, rule.code))
    grouped: dict[bytes, tuple] = {}
    for trigger in triggers:  # (in the rules' order, within each name)
        grouped[trigger[0].encode()] = grouped.get(trigger[0].encode(), ()) + (trigger,)
    paths = tuple(str(rule.path) for rule in rules)
    launch = tuple(rule.code for rule in rules if any(check.kind == "server-args" for check in rule.checks))
    return frozenset(grouped), (tuple(rule.code for rule in rules), grouped, paths, known_releases(rules), launch)


def _read(path: str, folders: tuple) -> tuple | None:
    """(names, a callable giving the details) from the file, when the names' checksum holds
    (else None: it is built again). The file is (FORMAT, checksum, names as marshal, checksum,
    details as marshal): a file cut short, edited or written by another format never passes.
    The details are checked when they are unpacked; damaged there, the index is built anew."""
    try:
        with open(path, "rb") as stream:
            outer = marshal.loads(stream.read())
        if not (isinstance(outer, tuple) and len(outer) == 5 and outer[0] == FORMAT):
            return None
        _, names_digest, names_blob, details_digest, details_blob = outer
        if not (isinstance(names_blob, bytes) and isinstance(details_blob, bytes)) or \
                _digest(names_blob) != names_digest:
            return None
        names = marshal.loads(names_blob)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(names, frozenset) and all(isinstance(name, bytes) for name in names)):
        return None

    def details() -> tuple:
        unpacked = None
        if _digest(details_blob) == details_digest:
            try:
                unpacked = marshal.loads(details_blob)
            except (ValueError, EOFError, TypeError):
                unpacked = None
        if isinstance(unpacked, tuple) and len(unpacked) == 5 and isinstance(unpacked[1], dict) and all(
                isinstance(unpacked[i], tuple) for i in (0, 2, 3, 4)) and set(unpacked[1]) == names:
            return unpacked
        return _build_and_keep(path, folders)[1]

    return names, details


class RuleData:
    """Each rule file's table, kept in one file: ``8-byte length | header | tables``, the
    header a marshal ``(FORMAT, key, {code: (offset, length, crc32)})`` and each table a
    marshal dict at its offset (counted from the header's end). Read one rule at a time
    (a seek and a read); a table whose checksum fails, a header that does not load or names
    another key, or a file that is missing is never trusted: the file is written again from
    the rule files (once per process), and a rule it still cannot give is read from its own
    file by the caller."""

    def __init__(self, index: RuleIndex, path: str | None):
        self.index, self.path = index, path
        self._spans: dict | None = None
        self._start = 0  # where the tables begin
        self._rebuilt = False

    def tables(self, codes: list[str]) -> list[dict | None]:
        if self.path is None:
            return [None] * len(codes)
        found = self._read(codes)
        if None in found and not self._rebuilt:
            self._rebuilt = True
            self._keep()
            found = self._read(codes)
        return found

    def _read(self, codes: list[str]) -> list[dict | None]:
        """Each code's table, through one open of the file."""
        if self._spans is None:
            self._spans = self._header() or {}
        try:
            with open(self.path, "rb") as stream:
                return [self._table(stream, self._spans.get(code)) for code in codes]
        except OSError:
            return [None] * len(codes)

    def _table(self, stream, span: tuple | None) -> dict | None:
        if span is None:
            return None
        offset, length, checksum = span
        try:
            stream.seek(self._start + offset)
            blob = stream.read(length)
            if len(blob) != length or zlib.crc32(blob) != checksum:
                return None
            table = marshal.loads(blob)
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return table if isinstance(table, dict) else None

    def _header(self) -> dict | None:
        try:
            with open(self.path, "rb") as stream:
                size = int.from_bytes(stream.read(8), "little")
                header = marshal.loads(stream.read(size)) if 0 < size < 1 << 28 else None
                self._start = 8 + size
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if not (isinstance(header, tuple) and len(header) == 3 and header[:2] == (FORMAT, self.index.key)
                and isinstance(header[2], dict)):
            return None
        spans = header[2]
        if not all(isinstance(span, tuple) and len(span) == 3 and all(isinstance(n, int) for n in span)
                   for span in spans.values()):
            return None
        return spans

    def _keep(self) -> None:
        """Write the file from every rule file of the index (read as the catalog reads them)."""
        from pathlib import Path

        from sglang_lint.core.rulefile import read_tomls

        codes = self.index.codes
        try:
            tables = read_tomls([Path(self.index.paths[code]) for code in codes])
        except Exception:
            self._spans = {}
            return  # a rule file that cannot be read: each caller reads (and reports) its own
        blobs = [marshal.dumps(table) for table in tables]
        spans, offset = {}, 0
        for code, blob in zip(codes, blobs):
            spans[code] = (offset, len(blob), zlib.crc32(blob))
            offset += len(blob)
        header = marshal.dumps((FORMAT, self.index.key, spans))
        self._spans, self._start = spans, 8 + len(header)
        if keep_file(self.path, len(header).to_bytes(8, "little") + header + b"".join(blobs)):
            prune_kept(self.path, "ruledata-", ".bin", KEEP_INDEXES)
