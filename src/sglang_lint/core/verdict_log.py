"""Verdicts kept across runs by what decides them: a check of a derived table and the inputs a
launch gives it. A launch changes less often than its file, so a file edited and linted again
(pre-commit, flake8 on save) finds its launches' verdicts here instead of parsing and
evaluating their checks again.

One append-only file in the result cache's folder (the entry point names it; none: nothing is
kept), named by the package's source files (``places.package_stamp``: another release of
sglang-lint, or an edited module, evaluates otherwise and starts its own log; the two newest
are kept): fixed records, a key's 16-byte digest then the verdict's byte, each written with one
``O_APPEND`` write, so processes linting at once (flake8 ``-j``, ``sglang-lint -j``) add to it
without a lock. A record cut short (a process killed while writing) leaves later keys
misaligned: they match nothing and are evaluated again, never read wrong. A log grown past
:data:`MOST_BYTES` is started again.
"""

from __future__ import annotations

import hashlib
import os
import sys

from sglang_lint.core.places import package_stamp, prune_kept

PREFIX, SUFFIX = "verdicts-", ".bin"
KEEP_LOGS = 2
DIGEST = 16
RECORD = DIGEST + 1
MOST_BYTES = 1 << 21  # some 120,000 verdicts: read whole at a run's first use

_folder: str | None = None
_log: VerdictLog | None = None


class VerdictLog:
    """The verdicts of one file: read at the first look-up, added to in memory, appended to the
    file by :meth:`flush`."""

    def __init__(self, path: str):
        self.path = path
        self.known: dict | None = None
        self.new: list = []
        self.written = False

    def get(self, key: bytes) -> bool | None:
        if self.known is None:
            self.known = self._read()
        found = self.known.get(key)
        return None if found is None else bool(found)

    def put(self, key: bytes, verdict: bool) -> None:
        if self.known is None:
            self.known = self._read()
        if key not in self.known:
            self.known[key] = int(verdict)
            self.new.append(key + (b"\x01" if verdict else b"\x00"))

    def flush(self) -> None:
        if not self.new:
            return
        blob, self.new = b"".join(self.new), []
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(handle, blob)
            finally:
                os.close(handle)
        except OSError:
            return  # a cache that cannot be written only costs time
        if not self.written:
            self.written = True
            prune_kept(self.path, PREFIX, SUFFIX, KEEP_LOGS - 1)

    def _read(self) -> dict:
        try:
            with open(self.path, "rb") as stream:
                data = stream.read(MOST_BYTES + 1)
        except OSError:
            return {}
        if len(data) > MOST_BYTES:
            try:
                os.remove(self.path)
            except OSError:
                pass
            return {}
        # (a record being appended by another process as this one reads is left out)
        return {data[at:at + DIGEST]: data[at + DIGEST] for at in range(0, len(data) - RECORD + 1, RECORD)}


def keep_in(folder: str | None) -> None:
    """Keep verdicts in ``folder`` (None: keep none). The entry point says where its results
    are kept; the verdicts go beside them, so a run with a new cache folder is cold."""
    global _folder, _log
    folder = None if folder is None else os.fspath(folder)
    if folder != _folder:
        flush()
        _folder, _log = folder, None


def folder() -> str | None:
    """Where verdicts are kept (None: nowhere)."""
    return _folder


def log() -> VerdictLog | None:
    """The log of the folder :func:`keep_in` named, or None."""
    global _log
    if _folder is None:
        return None
    if _log is None:
        _log = VerdictLog(os.path.join(_folder, log_name()))
    return _log


def log_name() -> str:
    """The log's file name: the package's source files and Python's version, as a digest."""
    stamp = f"{package_stamp()}\0python {sys.version_info[:2]}"
    return f"{PREFIX}{hashlib.blake2b(stamp.encode(), digest_size=8).hexdigest()}{SUFFIX}"


def flush() -> None:
    """Append the verdicts found since the last flush (after each file: a worker process may
    end without running ``atexit``)."""
    if _log is not None:
        _log.flush()
