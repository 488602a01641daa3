"""Each rule file's table (what tomllib reads from it), kept beside the compiled index as
marshal data and read one rule at a time: a run that needs a few thousand rules (flake8's
worker on a large tree) reads them in milliseconds instead of parsing as many TOML files."""

from __future__ import annotations

import marshal
import zlib
from pathlib import Path

from sglang_lint.catalog.index import FORMAT, KEEP_INDEXES, RuleIndex
from sglang_lint.core.places import keep_file, prune_kept
from sglang_lint.core.rulefile import read_tomls

_DATA: dict[str, "RuleData"] = {}  # the index's key -> its rule data


def rule_tables(index: RuleIndex, codes: list[str]) -> list[dict | None]:
    """The table of each code's rule file from the rule data kept beside the index (None for
    one not there or damaged: the caller reads that file itself)."""
    data = _DATA.get(index.key)
    if data is None or data.index is not index:  # (an index read again: its data read again too)
        data = _DATA[index.key] = RuleData(index, index.data_path)
    return data.tables(codes)


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
