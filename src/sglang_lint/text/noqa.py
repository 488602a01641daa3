"""``# noqa`` for the command and the plugin alike.

flake8 honours ``# noqa`` / ``# noqa: SGL001,SGL003`` (codes match by prefix, as flake8
matches them) on the reported line only. A finding of sglang-lint sits on an argument, often
deep inside a call written over many lines, so both front ends also honour the comment on
the first or the last line of that call; and ``# sglang-lint: noqa`` on a line of its own
silences the whole file (``# sglang-lint: noqa: SGL001`` only those codes). The plugin
applies this itself before flake8 applies its own rule, so both give the same findings.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from flake8.defaults import NOQA_INLINE_REGEXP  # the very pattern flake8 uses

FILE_NOQA = re.compile(
    r"^\s*#\s*sglang-lint\s*:\s*noqa(?::\s?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?\s*$", re.IGNORECASE | re.MULTILINE
)
FLAKE8_FILE_NOQA = re.compile(r"^\s*# flake8[:=]\s*noqa\s*$", re.IGNORECASE | re.MULTILINE)


def _codes(text: str | None) -> tuple[str, ...] | None:
    """None for a blanket noqa, else the codes (upper case)."""
    if text is None:
        return None
    return tuple(code.upper() for code in re.split(r"[,\s]+", text) if code.strip())


def _silences(codes: tuple[str, ...] | None, code: str) -> bool:
    return codes is None or code in codes or code.startswith(codes)


def file_noqa(source: str) -> tuple[str, ...] | None | bool:
    """False when the file is not silenced; None when all of it is; else the codes.
    (``# flake8: noqa`` silences it all too: flake8 skips such a file.)"""
    if FLAKE8_FILE_NOQA.search(source):
        return None
    match = FILE_NOQA.search(source)
    if match is None:
        return False
    return _codes(match.group("codes"))


def line_noqa(line: str) -> tuple[str, ...] | None | bool:
    match = NOQA_INLINE_REGEXP.search(line)
    if match is None:
        return False
    return _codes(match.group("codes"))


def filter_noqa(diagnostics: Iterable, lines: Sequence[str], whole_file: str | None = None) -> list:
    """The diagnostics no ``# noqa`` silences. ``lines`` are the file's physical lines."""
    text = whole_file if whole_file is not None else "".join(lines)
    silenced_file = file_noqa(text)
    kept = []
    for diagnostic in diagnostics:
        if silenced_file is not False and _silences(silenced_file, diagnostic.code):
            continue
        candidates = {diagnostic.line, *diagnostic.span}
        if any(
            (codes := line_noqa(lines[number - 1])) is not False and _silences(codes, diagnostic.code)
            for number in candidates
            if 0 < number <= len(lines)
        ):
            continue
        kept.append(diagnostic)
    return kept
