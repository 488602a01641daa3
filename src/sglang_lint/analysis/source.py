"""A file's bytes to text and to a LibCST tree, or :class:`~sglang_lint.core.model.SourceError`."""

from __future__ import annotations

import io
import re
import tokenize

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.core.model import SourceError

MAX_PARSE_BYTES = 4_000_000  # sglang 0.5.23's largest file is 0.3 MB


def decode_source(data: bytes) -> str:
    """Bytes to text the way Python does (PEP 263 coding line, BOM), or SourceError."""
    return decode_with_encoding(data)[0]


def decode_with_encoding(data: bytes) -> tuple[str, str]:
    """(text, encoding); ``text.encode(encoding)`` gives ``data`` back (a BOM is part of
    the ``utf-8-sig`` encoding, so it is dropped from the text and comes back on encoding)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot decode: {exc}") from exc
    return text, encoding


def check_size(size: int) -> None:
    if size > MAX_PARSE_BYTES:
        # LibCST needs about 100 bytes of memory per byte of source and seconds per MB: a
        # generated file this big is reported, not parsed.
        raise SourceError(
            f"not analysed: {size / 1e6:.1f} MB is over the {MAX_PARSE_BYTES / 1e6:.0f} MB limit of files "
            "sglang-lint parses (it calls a catalog API)"
        )


_PARSER_PLACE = re.compile(r"^parser error: error at \d+:\d+: ")


# The last modules parsed, by their text: a fix lints the text it was given again (engine/fixes.py),
# and an editor asks again of a text it has not changed. (LibCST's trees are immutable; a big
# file's is not kept, a few MB of objects per 100 KB of source.)
_RECENT: dict[str, cst.Module] = {}
_RECENT_MOST = 2
_RECENT_LARGEST = 256_000


def parse(source: str) -> cst.Module:
    module = _RECENT.get(source)
    if module is None:
        module = _parse(source)
        if len(source) <= _RECENT_LARGEST:
            if len(_RECENT) >= _RECENT_MOST:
                _RECENT.pop(next(iter(_RECENT)), None)
            _RECENT[source] = module
    return module


def _parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        # (LibCST's own text counts lines from 0: the place is the one the error line gives)
        message = _PARSER_PLACE.sub("", exc.message)
        raise SourceError(f"cannot parse: {message}", exc.raw_line, max(exc.raw_column, 0)) from exc
    except (RecursionError, MemoryError) as exc:
        raise SourceError(f"cannot parse: {type(exc).__name__}") from exc
