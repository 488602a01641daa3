"""Parse a document again after an edit, re-reading only the top-level statements it touched.

The language server lints a document on every change; LibCST's parse of a 2,000-line file is
about 100 ms, most of a lint. A :class:`Reparser` keeps the last tree of one document and the
lines each of its top-level statements spans. On a new text it finds the lines the edit left
alone at the start and at the end, parses only the statements between them (from the new
text, with the module's indentation and line end), and puts the old statement nodes back
around them. The result is kept only if the new statements' code is exactly the text they
were parsed from (the kept ones are the last tree's, whose code was the lines they span);
anything else (an edit in the module's header, footer or first statement, a chunk that does
not parse alone) falls back to parsing the whole text. ``tests/test_reparse.py`` holds the
tree to LibCST's full parse over random edits.
"""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.positions import statement_layout
from sglang_lint.analysis.source import parse
from sglang_lint.screen.ast_reparse import AstChunks, unchanged_ends
from sglang_lint.text.pynames import lines_of


class Reparser:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.module: cst.Module | None = None
        self.spans: list[tuple[int, int]] | None = None  # each statement's lines: [start, end)
        self.reused = 0  # how many parses re-read only part of the text (for tests and the benchmark)
        self.ast_chunks = AstChunks()  # the same document's ast, for the call-site screen

    def parse(self, text: str) -> cst.Module:
        """The tree of ``text`` (SourceError when it does not parse), reusing the last one's
        untouched statements where it can."""
        lines = lines_of(text)
        found = self._reuse(text, lines) if self.module is not None else None
        if found is None:
            module, spans = parse(text), None
        else:
            module, spans = found
            self.reused += 1
        self.lines, self.module, self.spans = lines, module, spans
        return module

    def layout(self) -> tuple[list[str], list[tuple[int, int]]]:
        """The last text's lines, and the lines [start, end) (0-based) each top-level statement
        of its tree spans, leading blank and comment lines included (analysis/positions.py reads them)."""
        return self.lines, self._spans()

    def _spans(self) -> list[tuple[int, int]]:
        if self.spans is None:
            self.spans = statement_layout(self.module)[1]
        return self.spans

    def _reuse(self, text: str, new: list[str]) -> tuple[cst.Module, list[tuple[int, int]]] | None:
        old, module = self.lines, self.module
        if not module.body:
            return None
        prefix, suffix = unchanged_ends(old, new)
        if prefix == len(old) == len(new):
            return module, self._spans()  # nothing changed
        spans = self._spans()
        changed_end = len(old) - suffix  # old lines [prefix, changed_end) changed
        if prefix < spans[0][0] or changed_end > spans[-1][1] or (prefix >= spans[-1][1]):
            return None  # the header, the footer or past the last statement: parse it all
        first = next(i for i, (_, end) in enumerate(spans) if end > prefix)
        last = max(first, max((i for i, (start, _) in enumerate(spans) if start < changed_end), default=first))
        delta = len(new) - len(old)
        code_start = spans[first][0] + len(module.body[first].leading_lines)  # after its blank and comment lines
        if first == last and 0 < first and code_start < prefix and changed_end < spans[first][1]:
            # Inside one statement's code, its first and last lines untouched: the lines where
            # it meets its neighbours (blank and comment lines a block before may own) are as
            # the last parse owned them; that statement alone is read.
            found = self._splice(text, new, first, first, delta)
            if found is not None:
                return found
        # One statement more on each side: the lines where the chunk meets the kept statements
        # are then lines the edit did not change, owned as the full parse owned them (a blank or
        # comment line between two statements belongs to the next one, or to the block before).
        first, last = first - 1, min(last + 1, len(spans) - 1)
        if first < 0:
            return None  # the first statement: the module's header is decided with it
        return self._splice(text, new, first, last, delta)

    def _splice(self, text: str, new: list[str], first: int, last: int, delta: int):
        """The last tree with its statements ``first``..``last`` parsed again from the new
        lines (and the new spans), or None when that cannot be trusted."""
        module, spans = self.module, self._spans()
        if last == len(spans) - 1 and module.footer:
            return None  # the last statement's block may take the footer's lines: parsed whole
        start, end = spans[first][0], spans[last][1] + delta
        if end <= start:
            return None
        chunk_text = "".join(new[start:end])
        try:
            chunk = cst.parse_module(chunk_text, config=cst.PartialParserConfig(
                default_indent=module.default_indent, default_newline=module.default_newline))
        except Exception:
            return None
        if not chunk.body or chunk.footer or chunk.default_indent != module.default_indent:
            return None
        statements = list(chunk.body)
        if chunk.header:
            statements[0] = statements[0].with_changes(leading_lines=[*chunk.header, *statements[0].leading_lines])
        body = [*module.body[:first], *statements, *module.body[last + 1:]]
        at_end = last == len(spans) - 1
        rebuilt = module.with_changes(body=body, has_trailing_newline=chunk.has_trailing_newline
                                      if at_end else module.has_trailing_newline)
        # The kept statements are the last tree's, whose code was the lines they span; the new
        # ones must give the chunk back exactly. (Where the chunk ends the file, the module's
        # footer is the last tree's, after the lines the edit left alone; a file without its
        # last newline gives a chunk its statements' code does not match: parsed whole.)
        codes = [rebuilt.code_for_node(statement) for statement in statements]
        if "".join(codes) != chunk_text:
            return None
        chunk_spans = []
        line = start
        for code in codes:
            count = len(lines_of(code))
            chunk_spans.append((line, line + count))
            line += count
        if line != end:
            return None
        moved = [(a + delta, b + delta) for a, b in spans[last + 1:]]
        return rebuilt, [*spans[:first], *chunk_spans, *moved]
