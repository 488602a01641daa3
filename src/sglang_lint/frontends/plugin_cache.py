"""The flake8 plugin's result cache: what the plugin reported for a file, keyed by its content.

flake8 keeps nothing between runs, so without this every ``flake8`` over a tree lints every
file again, though most did not change. The command has its own cache (frontends/cache.py), one file per
rule set written once at the end of a run; flake8 gives a plugin no end of run, and runs files
in several worker processes. So here:

* The cache is a folder named by a fingerprint of everything the results depend on besides the
  file: the format, sglang-lint's version and source files (an edited checkout), Python's and
  LibCST's versions, and the rule files and data tables (the compiled index's key). A new
  sglang-lint or an edited rule starts a new folder; the older folders beyond a few are removed.
* An entry's key is a hash of the file's text, its module name (relative imports depend on
  it), the codes flake8 reports and the sglang release(s) the file is judged against. Its value
  is what the plugin reported: ``(line, column, text)`` tuples, never a crash of ours.
* Each process writes only its own shard file (``<pid>-<random>.marshal``, written whole to a
  temporary file and renamed), at its exit and every :data:`FLUSH_EVERY` new entries; a
  reader merges every shard. A process that read more than :data:`MAX_SHARDS` writes their
  union to a shard of its own and removes them, one process at a time and only while they are
  all there (with ``flake8 -j 64`` every worker reads them: one union, not 64, is read next).
  Stored with :mod:`marshal` (plain tuples and strings: nothing is executed on load); a
  shard that cannot be read is ignored.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys

from sglang_lint.core.places import code_stamp, keep_gitignore, keep_marshal, prune_kept
from sglang_lint.core.version import __version__

FORMAT = 1
FLUSH_EVERY = 500  # new entries a process keeps before it writes its shard (also at its exit)
MAX_SHARDS = 16  # shards read before a process writes their union into its own
MAX_ENTRIES = 200_000  # past this, a union keeps only what this process read or made
KEEP_FOLDERS = 4  # folders of other fingerprints kept (branches, versions), newest first
MERGING = "merging.lock"  # held by the one process writing a union (flake8 -j 64: not 64 unions)
STALE_LOCK = 300  # seconds after which a lock is taken to be left by a process that died


def folder_fingerprint(index_key: str) -> str:
    """The cache folder's name: what the plugin's results depend on besides the file (the
    compiled index's ``key`` stands for every rule file and data table)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (f"format {FORMAT}", f"sglang-lint {__version__}", code_stamp(), f"rules {index_key}"):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def entry_key(text: str, module: object, selected: str, releases: tuple) -> bytes:
    """A file's key: its text, its module name, the codes reported (``selected``: one string for
    the whole run) and the release(s) it is judged against."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16)
    digest.update(f"\0{module!r}\0{selected}\0{releases!r}".encode("utf-8", "surrogatepass"))
    return digest.digest()


class PluginCache:
    """``get``/``put`` a file's reported tuples by :func:`entry_key`, in ``folder`` (the base
    folder joined with :func:`folder_fingerprint`)."""

    def __init__(self, folder: str):
        self.folder = folder
        self.entries: dict[bytes, tuple] | None = None  # read on first need
        self.read_shards: list[str] = []
        self.used: set[bytes] = set()
        self.new: dict[bytes, tuple] = {}
        self.shard: str | None = None  # this process's shard (a forked worker makes its own)
        self.pid = os.getpid()
        self.registered: int | None = None  # the process that registered save() for its exit

    def get(self, key: bytes) -> tuple | None:
        if self.entries is None:
            self._read()
        found = self.entries.get(key)
        if found is not None:
            self.used.add(key)
        return found

    def put(self, key: bytes, reported: list[tuple[int, int, str]]) -> None:
        if self.entries is None:
            self._read()
        if os.getpid() != self.pid:  # a worker forked from a process that had made entries
            self.pid, self.shard, self.new = os.getpid(), None, {}
        value = tuple(reported)
        self.entries[key] = self.new[key] = value
        self.used.add(key)
        if self.registered != self.pid:  # (a forked worker starts with no finalizer of its parent's)
            self._save_at_exit()
        if len(self.new) % FLUSH_EVERY == 0:
            self.save()

    def _read(self) -> None:
        self.entries = {}
        try:
            names = sorted(name for name in os.listdir(self.folder) if name.endswith(".marshal"))
        except OSError:
            return
        for name in names:
            try:
                with open(os.path.join(self.folder, name), "rb") as stream:
                    loaded = marshal.load(stream)
            except (OSError, ValueError, EOFError, TypeError):
                continue  # removed by another process's union, or damaged: only costs time
            if isinstance(loaded, dict):
                self.entries.update(loaded)
                self.read_shards.append(name)

    def save(self) -> None:
        """Write this process's shard (its new entries); past :data:`MAX_SHARDS` shards read,
        one process at a time (:func:`_claim`) also writes their union and removes them."""
        if not self.new or os.getpid() != self.pid:
            return  # (a forked worker's copy of its parent's entries: the parent writes them)
        if self.shard is None:
            self.shard = f"{os.getpid()}-{os.urandom(4).hex()}.marshal"
            keep_gitignore(os.path.dirname(self.folder))  # (the base folder: the user's --sglang-cache-dir)
            prune_kept(self.folder, "", "", KEEP_FOLDERS, folders=True)
        keep_marshal(os.path.join(self.folder, self.shard), self.new)
        if len(self.read_shards) > MAX_SHARDS and _claim(os.path.join(self.folder, MERGING)):
            try:
                self._merge()
            finally:
                _release(os.path.join(self.folder, MERGING))

    def _merge(self) -> None:
        """Write the union of the shards read (and this process's entries) to a shard of its
        own, then remove the shards read. Past :data:`MAX_ENTRIES`, only what this process
        read or made is kept."""
        if not all(os.path.exists(os.path.join(self.folder, name)) for name in self.read_shards):
            self.read_shards = []  # another process merged them
            return
        content = self.entries if len(self.entries) <= MAX_ENTRIES else {key: self.entries[key] for key in self.used}
        union = f"{os.getpid()}-{os.urandom(4).hex()}.marshal"
        if not keep_marshal(os.path.join(self.folder, union), content):
            return  # (nothing written: nothing removed)
        for name in self.read_shards:
            try:
                os.remove(os.path.join(self.folder, name))
            except OSError:
                pass  # removed already
        self.read_shards = [union]

    def _save_at_exit(self) -> None:
        """Save when this process ends: ``atexit`` in the main process; multiprocessing's
        finalizers in a pool worker (it leaves through ``os._exit``, which skips ``atexit``)."""
        import atexit

        self.registered = os.getpid()
        atexit.register(self.save)
        if "multiprocessing" in sys.modules:
            from multiprocessing import util

            util.Finalize(None, self.save, exitpriority=10)


def _claim(lock: str) -> bool:
    """Take ``lock`` (a file created only if it does not exist); a lock older than
    :data:`STALE_LOCK` seconds was left by a process that died and is taken over."""
    import time

    for _ in range(2):
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            try:
                if time.time() - os.stat(lock).st_mtime < STALE_LOCK:
                    return False
                os.remove(lock)
            except OSError:
                return False
        except OSError:
            return False
    return False


def _release(lock: str) -> None:
    try:
        os.remove(lock)
    except OSError:
        pass
