"""Autofix: apply the findings' fixes to a file, changing nothing else in it.

A fix replaces one literal (or one name) by the allowed value it clearly meant. The text
between and around the edits is copied untouched, so quotes, prefixes, comments, tabs and
line endings (CRLF, lone CR) stay byte for byte. After each round the file is linted again,
until no fix is left (fixing twice changes nothing); a round whose result would not parse
is thrown away.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field

from sglang_lint.analysis.source import decode_with_encoding, parse
from sglang_lint.core.model import Diagnostic, SourceError
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet
from sglang_lint.launch.paths import is_launch_file
from sglang_lint.text.pynames import line_starts

MAX_ROUNDS = 4


@dataclass
class FixResult:
    text: str
    fixed: list[Diagnostic] = field(default_factory=list)  # as reported before each fix
    remaining: list[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.fixed)


def chosen_edits(
    text: str, diagnostics: list[Diagnostic], unsafe: bool
) -> list[tuple[int, int, str, list[Diagnostic]]]:
    """(start, end, new text, findings it fixes) for the fixes to apply, as text offsets.

    Several findings may share one edit (a constant used at two calls: its literal is
    edited once). Two different edits of the same text, or overlapping ones, are both
    dropped: neither is certain then. An edit whose text is not what the finding saw is
    dropped too."""
    starts = line_starts(text)
    by_range: dict[tuple[int, int], list[tuple[str, Diagnostic]]] = {}
    for diagnostic in diagnostics:
        edit = diagnostic.fix
        if edit is None or not (edit.safe or unsafe):
            continue
        if not (0 < edit.line <= len(starts) and 0 < edit.end_line <= len(starts)):
            continue
        start = starts[edit.line - 1] + edit.col
        end = starts[edit.end_line - 1] + edit.end_col
        if text[start:end] != edit.old:
            continue
        by_range.setdefault((start, end), []).append((edit.new, diagnostic))
    chosen = []
    for (start, end), wanted in sorted(by_range.items()):
        if len({new for new, _ in wanted}) != 1:
            continue  # two rules want different text here
        chosen.append((start, end, wanted[0][0], [d for _, d in wanted]))
    # Drop overlapping edits (both of each pair).
    overlapping = set()
    for index in range(1, len(chosen)):
        if chosen[index][0] < chosen[index - 1][1]:
            overlapping.update({index - 1, index})
    return [edit for index, edit in enumerate(chosen) if index not in overlapping]


def apply_edits(text: str, edits) -> str:
    pieces = []
    last = 0
    for start, end, new, _ in edits:
        pieces.append(text[last:start])
        pieces.append(new)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def fix_text(text: str, path: str | None, ruleset: RuleSet | None = None, unsafe: bool = False) -> FixResult:
    """Fix ``text`` until no applicable fix is left; raises SourceError if it cannot be
    parsed at all."""
    result = FixResult(text)
    diagnostics = lint(text, path, ruleset)
    python = not is_launch_file(path, text[:256].encode("utf-8", "replace"))
    for _ in range(MAX_ROUNDS):
        edits = chosen_edits(result.text, diagnostics, unsafe)
        if not edits:
            break
        fixed_text = apply_edits(result.text, edits)
        try:
            if python:
                parse(fixed_text)  # never write what Python could not read
            new_diagnostics = lint(fixed_text, path, ruleset)
        except SourceError:
            break
        result.text = fixed_text
        result.fixed += [d for *_, found in edits for d in found]
        diagnostics = new_diagnostics
    result.remaining = diagnostics
    return result


def fix_bytes(data: bytes, path: str | None, ruleset: RuleSet | None = None, unsafe: bool = False):
    """(new bytes, result): the file's bytes with the fixes made, in its own encoding (a BOM
    and a PEP 263 coding line are kept); the bytes are ``data`` itself when nothing changed."""
    text, encoding = decode_with_encoding(data)
    result = fix_text(text, path, ruleset, unsafe)
    if not result.changed:
        return data, result
    try:
        new_data = result.text.encode(encoding)
    except UnicodeEncodeError:  # a fix the file's encoding cannot hold: leave the file alone
        return data, FixResult(text, [], lint(text, path, ruleset))
    return new_data, result


class WriteError(Exception):
    pass


def write_atomically(path: str, data: bytes) -> None:
    """Replace the file's content by ``data``: written to a temporary file beside it, then
    renamed over it, so an interrupted run leaves the old file or the new one, never half.
    The file keeps its permissions; a symlink keeps pointing at the file it names."""
    real = os.path.realpath(path)
    info = os.stat(real)
    if not info.st_mode & stat.S_IWUSR:
        raise WriteError("read-only file")
    folder, name = os.path.split(real)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".sglang-lint-fix", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        try:
            os.chown(temporary, info.st_uid, info.st_gid)
        except OSError:
            pass  # not ours to give away; the owner is then whoever runs the fix
        os.replace(temporary, real)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
