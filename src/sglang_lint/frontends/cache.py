"""The result cache: what linting a file gave, keyed by the file's content.

One cache file per rule set: its name is a fingerprint of the tool's version and source files
(an edited checkout starts a new cache), the Python and LibCST versions, the selected codes
and every rule file and data table as the compiled rule index keys them (path, size,
modification time: catalog/index.py ``fingerprint``), so a changed rule file or a new release starts
a new cache and never reads a stale one. Inside
it, each entry is keyed by a hash of the file's bytes and the module name its path gives
(which relative imports depend on): a changed file misses, an unchanged one (wherever it
was copied) hits.

Stored with :mod:`marshal` (plain tuples and strings; nothing is executed on load), written
to a temporary file and renamed, so a killed run never leaves half a cache; a cache that
cannot be read is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

from sglang_lint.catalog.index import fingerprint
from sglang_lint.core.model import FileResult
from sglang_lint.core.places import code_stamp, keep_gitignore, keep_marshal, prune_kept, results_folder
from sglang_lint.core.version import __version__

FORMAT = 3
KEEP_FILES = 8  # cache files of other rule sets kept (branches, versions), newest first
MAX_ENTRIES = 100_000


def default_cache_dir() -> Path:
    """places.results_folder: outside the linted tree."""
    return Path(results_folder())


def ruleset_fingerprint(ruleset, releases=(), folders_print=fingerprint) -> str:
    """The rule set's identity; ``releases``: the sglang releases it was narrowed to
    (``RuleSet.for_releases``), which change what some rules accept, not only which run.

    A set read lazily from rule folders (``RuleSet.identity``) is named by those folders and
    how its rules were picked from them, so that a run the cache answers reads no rule; any
    other by its rules' codes and the folders they were read from. ``folders_print``: how the
    rule folders are fingerprinted (the command's: once per run)."""
    digest = hashlib.blake2b(digest_size=16)
    if ruleset.identity is not None:
        folders, picked = ruleset.identity
        rules = f"catalog {picked}"
    else:
        folders = sorted({str(rule.path.parent) for rule in ruleset.rules})
        rules = "codes " + ",".join(rule.code for rule in ruleset.rules)
    for part in (
        f"format {FORMAT}", f"sglang-lint {__version__}", code_stamp(), f"screen {ruleset.screen}", rules,
        "releases " + ",".join(releases), "project " + repr(getattr(ruleset, "project_targets", ())),
        "prefixes " + repr(getattr(ruleset, "prefixes", ())), "machine " + repr(getattr(ruleset, "machine", None)),
    ):
        digest.update(part.encode() + b"\0")
    # The rule files and the data tables beside them, as the compiled index keys them (path,
    # size, modification time of every TOML file): no rule file is read for this.
    # (a folder inside another, rules/derived in rules, is read with it: not twice)
    paths = [Path(folder) for folder in folders]
    inside = sorted(str(f) for f in paths if not any(p != f and f.is_relative_to(p) for p in paths))
    digest.update(folders_print(inside).encode())
    return digest.hexdigest()


def file_key(data: bytes, module: tuple) -> bytes:
    digest = hashlib.blake2b(data, digest_size=16)
    digest.update(b"\0" + repr(module).encode())
    return digest.digest()


class ResultCache:
    """``get``/``put`` results by :func:`file_key`; ``save`` once at the end of a run.

    Entries are :meth:`FileResult.to_data` (results that depend only on the file and the
    rules: never a crash of ours)."""

    def __init__(self, folder: Path, fingerprint: str):
        self.folder = Path(folder)
        self.path = self.folder / f"{fingerprint}.marshal"
        self.entries: dict[bytes, tuple] = {}
        self.used: set[bytes] = set()
        self.changed = False
        try:
            loaded = marshal.loads(self.path.read_bytes())
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError, EOFError, TypeError):
            self.entries = {}

    def get(self, key: bytes) -> FileResult | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        self.used.add(key)
        try:
            return FileResult.from_data(entry)
        except (TypeError, ValueError):
            return None

    def put(self, key: bytes, result: FileResult) -> None:
        self.entries[key] = result.to_data()
        self.used.add(key)
        self.changed = True

    def save(self) -> None:
        """Write the entries, atomically. Past :data:`MAX_ENTRIES` only those this run used
        or made are kept, so the cache does not grow without end."""
        if not self.changed:
            return
        entries = self.entries
        if len(entries) > MAX_ENTRIES:
            entries = {key: entries[key] for key in self.used if key in entries}
        keep_gitignore(self.folder)
        if keep_marshal(self.path, entries):  # (a cache that cannot be written only costs time)
            prune_kept(self.path, "", ".marshal", KEEP_FILES)
