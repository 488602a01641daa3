"""The compiled rule index: what the cheap stage needs from the catalog, without loading it.

Loading the catalog means importing LibCST and every check kind and reading some 5,000 rule
files; a file that calls no catalog name needs none of it. The index keeps, in one marshal file
under the cache (``tables/index-<key>.marshal``), in two parts:

* the callee names the rules trigger on (a frozenset): all a file that mentions
  none of them needs, read on every start;
* the rule codes, each rule's file, the releases, the rules with server-argument checks, and
  the prefilter's trigger table (every rule of every release: a superset of what any target
  release runs, so a file it skips is skipped by the full prefilter too), unpacked only when
  a file mentions a name.

Beside it, ``tables/ruledata-<key>.bin`` holds each rule file's table (rule_data.py). The index
is built by a function the caller passes (engine/index_build.py: the rule files loaded with the
check kinds, stages above this one); the prefilter compiles its triggers (screen/prefilter.py
``IndexScreen``).

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

Standard library and two leaves only (no pathlib, typing or re): importing this must stay cheap
(the flake8 plugin and the command pay it on every run).
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

from sglang_lint.core.places import cache_folder, keep_marshal, prune_kept, shipped_rules_folder
from sglang_lint.core.version import __version__
from sglang_lint.text.words import identifiers_of

FORMAT = 8
KEEP_INDEXES = 8  # index files of other rule folders or versions kept (branches, venvs), newest first


class RuleIndex:
    """The codes and triggers of a rule folder set; :meth:`may_match` is the first question
    asked of a file, :meth:`codes_for` says which rules a file needs loaded. Only ``names`` is
    read up front; the rest (``codes``, ``paths``, ``releases``, the triggers) on first use."""

    def __init__(self, names: frozenset, details, key: str = "", data_path: str | None = None):
        self.names = names
        self.key = key  # the fingerprint of the rule files it was built from
        self._details = details  # (codes, triggers, paths, releases, launch codes), or a callable giving them
        self._paths = None
        self.data_path = data_path  # where the rule data are kept (None: read every rule file)
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
        """Every release the rules and their tables name (catalog/target.py)."""
        return self._part(3)

    def triggers_of(self, name: bytes) -> tuple:
        """The triggers filed under a name, as kept: (name, shape, other words, module, code)."""
        return self._part(1)[name]

    @property
    def launch_codes(self) -> tuple:
        """The rules with a server-argument check (whose targets are sglang's launch entry
        points, which the project pass starts from: frontends/project.py)."""
        return self._part(4)

    def mentions(self, source: str | bytes) -> bool:
        """Does the text hold, as an identifier, a name some rule triggers on? False: the
        common case, answered here, before anything else is imported."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        return bool(self.present(data))

    def present(self, data: bytes) -> frozenset:
        """The trigger names among the text's identifiers (the last text's kept: the flake8
        plugin asks :meth:`mentions`, then the prefilter's ``codes_for``)."""
        identifiers = identifiers_of(data)
        last = self._last_present
        if last[0] is identifiers:
            return last[1]
        present = self.names.intersection(identifiers)
        self._last_present = (identifiers, present)
        return present


_LOADED: dict = {}


def rule_index(folders: tuple, key: str, build) -> RuleIndex:
    """The index of these rule folders, whose :func:`fingerprint` is ``key``, from the cache
    when the key matches, else made by ``build(folders)`` (the rule files loaded with the check
    kinds, above this stage: engine/index_build.py) and kept."""
    if key not in _LOADED:
        path = os.path.join(cache_folder(), "tables", f"index-{key}.marshal")
        found = _read(path, folders, build)
        names, details = found if found is not None else _build_and_keep(path, folders, build)
        _LOADED[key] = RuleIndex(names, details, key=key,
                                 data_path=os.path.join(cache_folder(), "tables", f"ruledata-{key}.bin"))
    return _LOADED[key]


def _build_and_keep(path: str, folders: tuple, build) -> tuple:
    names, details = build(folders)
    names_blob, details_blob = marshal.dumps(names), marshal.dumps(details)
    keep_marshal(path, (FORMAT, digest(names_blob), names_blob, digest(details_blob), details_blob))
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
    return digest("\n".join(lines).encode("utf-8", "surrogateescape"))


def digest(data: bytes) -> str:
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


def _read(path: str, folders: tuple, build) -> tuple | None:
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
                digest(names_blob) != names_digest:
            return None
        names = marshal.loads(names_blob)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(names, frozenset) and all(isinstance(name, bytes) for name in names)):
        return None

    def details() -> tuple:
        unpacked = None
        if digest(details_blob) == details_digest:
            try:
                unpacked = marshal.loads(details_blob)
            except (ValueError, EOFError, TypeError):
                unpacked = None
        if isinstance(unpacked, tuple) and len(unpacked) == 5 and isinstance(unpacked[1], dict) and all(
                isinstance(unpacked[i], tuple) for i in (0, 2, 3, 4)) and set(unpacked[1]) == names:
            return unpacked
        return _build_and_keep(path, folders, build)[1]

    return names, details
