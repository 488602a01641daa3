"""A document's :mod:`ast` kept between edits, for the language server's call-site screen.

The screen's second look reads the whole file's ast (screen/ast_scopes.py); on a 2,000-line document
that parse is 15-30 ms of every change. :class:`AstChunks` keeps the last text's top-level
statements, each with the lines it starts at, and on a new text parses again only the
statements the edit touched (with one statement more on each side), from the new text; the
others are the last tree's own nodes. Their line numbers are not rewritten (that would walk
every node): each top-level statement carries a shift, the number of lines its positions are
off by, which :meth:`AstFile.call_at` applies.

Why parsing a stretch of whole statements alone gives what the full parse gives: the stretch
starts where a top-level statement starts, after lines the edit left alone, which the last
parse read as complete statements (no bracket or string left open, no indentation); if the
stretch parses alone, it ends in that same state, so the lines after it, also untouched, read
as they did. A stretch that does not parse alone (an edit that opens a bracket, or indents a
line into the statement before) and an edit of the lines before the first statement (the
encoding line, the header) fall back to parsing the whole text. ``tests/test_ast_reparse.py``
holds the screen's answers to a fresh parse's over random edits.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass

from sglang_lint.screen.ast_scopes import AstFile


@dataclass(frozen=True)
class _Statement:
    node: ast.stmt
    shift: int  # the node's line numbers + shift = its lines in the text
    first: int  # its first line in the text (1-based; a decorator's, where it has one)


class AstChunks:
    def __init__(self) -> None:
        self.lines: list[bytes] | None = None
        self.statements: list[_Statement] = []
        self.reused = 0  # how many texts were read by parsing only part of them (tests)
        self._last: AstFile | None = None

    def ast_file(self, data: bytes, module: str | None = None, is_package: bool = False) -> AstFile | None:
        """The screen's view of ``data`` (None when it does not parse, or is not UTF-8)."""
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = data.splitlines(keepends=True)  # (bytes split at \n, \r\n and \r, as the parser counts)
        if self.lines is not None and lines == self.lines and self._last is not None:
            return self._last
        # (a coding line may name another encoding: the stretch alone would be read as UTF-8)
        reusable = self.lines is not None and b"coding" not in b"".join(lines[:2])
        statements = self._reuse(lines) if reusable else None
        if statements is None:
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None  # (the last text that parsed is kept: the next edit is read against it)
            statements = [_Statement(node, 0, _first_line(node)) for node in tree.body]
        else:
            self.reused += 1
        found = AstFile.read(data, ast.Module(body=[s.node for s in statements], type_ignores=[]), module, is_package)
        if found is None:
            return None
        found.shifts = [s.shift for s in statements]
        self.lines, self.statements, self._last = lines, statements, found
        return found

    def _reuse(self, new: list[bytes]) -> list[_Statement] | None:
        old, statements = self.lines, self.statements
        if not statements:
            return None
        prefix, suffix = unchanged_ends(old, new)
        # The old lines prefix+1 .. len(old)-suffix (1-based) changed (none: lines were inserted).
        first_changed, last_changed = prefix + 1, max(prefix + 1, len(old) - suffix)
        if first_changed <= max(2, statements[0].first - 1):
            return None  # the header, the encoding line or the first statement's own start
        starts = [s.first for s in statements]
        # each statement owns its lines up to the next one's first line
        first = max(0, _owner(starts, first_changed) - 1)
        last = min(len(statements) - 1, _owner(starts, last_changed) + 1)
        start_line = starts[first]
        delta = len(new) - len(old)
        end_old = starts[last + 1] - 1 if last + 1 < len(statements) else len(old)  # inclusive, 1-based
        end_new = end_old + delta
        if end_new < start_line - 1:
            return None
        try:
            stretch = ast.parse(b"".join(new[start_line - 1 : end_new]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        shift = start_line - 1
        middle = [_Statement(node, shift, _first_line(node) + shift) for node in stretch.body]
        after = [_Statement(s.node, s.shift + delta, s.first + delta) for s in statements[last + 1:]]
        return [*statements[:first], *middle, *after]


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min(node.lineno, *(d.lineno for d in decorators)) if decorators else node.lineno


def _owner(starts: list[int], line: int) -> int:
    """The index of the statement whose lines hold ``line`` (the last one starting at or
    before it; the first one for a line above every statement)."""
    return max(0, bisect.bisect_right(starts, line) - 1)


def unchanged_ends(old: list, new: list) -> tuple[int, int]:
    """How many lines at the start and at the end of ``new`` are those of ``old`` (never
    counting a line twice): what an edit left alone (analysis/reparse.py reads it too)."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, suffix
