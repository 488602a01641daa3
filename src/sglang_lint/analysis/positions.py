"""Where a node is in the file (line and column), computed only for the top-level statements
that hold something to report.

LibCST's ``PositionProvider`` generates the code of the whole module while it tracks
positions: on a 2,000-line file about half of a lint that reports anything, and most of the
language server's budget after a change. Here the module's code is generated plainly, one
top-level statement at a time (about a sixth of that), which gives the line each statement
starts on; a node is looked for in the statements whose code holds its code's first line
(usually one),
and only those get ``PositionProvider``, each in a module of its own, its lines moved by
where the statement starts. A node found in none (one the engine made up, or one whose code
depends on its indentation) falls back to the whole module, as before.
"""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.text.pynames import LINE_END, lines_of


def statement_layout(module: cst.Module) -> tuple[list[str], list[tuple[int, int]]]:
    """Each top-level statement's code (plain code generation, leading blank and comment
    lines included) and the lines [start, end) (0-based) it spans in the module's code."""
    codes = [module.code_for_node(statement) for statement in module.body]
    spans = []
    start = len(module.header)
    for code in codes:
        end = start + len(lines_of(code))
        spans.append((start, end))
        start = end
    return codes, spans


def code_ranges(module: cst.Module):
    """``PositionProvider``'s range of each node of the module. Its code generation is run
    directly: through ``MetadataWrapper`` a pass over the whole tree comes first (for the
    providers that need one; this one does not), half the time of a small statement. Through
    the wrapper where a libcst names the provider's generation otherwise."""
    provider = cst.metadata.PositionProvider()
    try:
        generate, ranges = provider._gen_impl, provider._computed
    except AttributeError:
        return cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True).resolve(cst.metadata.PositionProvider)
    generate(module)
    return ranges


class Positions:
    def __init__(self, module: cst.Module, layout=None):
        """``layout``: when the caller knows them (analysis/reparse.py), a function giving the file's
        lines and the [start, end) lines of each top-level statement: no code is generated."""
        self.module = module
        self.layout = layout
        self._known: dict[cst.CSTNode, cst.metadata.CodeRange] = {}
        self._codes: list[str] | None = None  # each top-level statement's code
        self._first_lines: list[int] = []  # the line before each statement's first line
        self._done: set[int] = set()  # statements whose positions are known
        self._whole = False

    def of(self, node: cst.CSTNode) -> cst.metadata.CodeRange:
        """The node's range; KeyError when it is not in the module."""
        found = self._known.get(node)
        if found is not None:
            return found
        if not self._whole:
            for index in self._candidates(node):
                self._statement(index)
                found = self._known.get(node)
                if found is not None:
                    return found
            self._known.update(code_ranges(self.module))
            self._whole = True
        return self._known[node]

    def _candidates(self, node: cst.CSTNode) -> list[int]:
        """The statements that may hold ``node``: itself, or those whose code holds its code."""
        body = self.module.body
        if self._codes is None and self.layout is not None:
            lines, spans = self.layout()
            self._codes = ["".join(lines[start:end]) for start, end in spans]
            self._first_lines = [start for start, _ in spans]
        if self._codes is None:
            self._codes, spans = statement_layout(self.module)
            self._first_lines = [start for start, _ in spans]
        for index, statement in enumerate(body):
            if statement is node:
                return [index]
        try:
            # Its first line only: a line break inside an expression may carry the indentation
            # of the block it sits in, which the node's code alone does not have.
            text = LINE_END.split(self.module.code_for_node(node), 1)[0]
        except Exception:  # some nodes have no code of their own (a comma left to its parent)
            return []
        return [index for index, code in enumerate(self._codes) if index not in self._done and text in code]

    def _statement(self, index: int) -> None:
        """The positions of one top-level statement's nodes, as lines of the file."""
        self._done.add(index)
        alone = self.module.with_changes(body=[self.module.body[index]], header=[], footer=[])
        shift = self._first_lines[index]
        metadata = cst.metadata
        for node, where in code_ranges(alone).items():
            if node is not alone:
                self._known[node] = metadata.CodeRange(
                    metadata.CodePosition(where.start.line + shift, where.start.column),
                    metadata.CodePosition(where.end.line + shift, where.end.column),
                )
