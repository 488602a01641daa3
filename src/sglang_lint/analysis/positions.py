"""Where a node is in the file (line and column), computed only for the top-level statements
that hold something to report.

LibCST's ``PositionProvider`` generates the code of the whole module while it tracks
positions: on a 2,000-line file about half of a lint that reports anything, and most of the
language server's budget after a change. Here the lines each top-level statement spans are
read from Python's :mod:`ast` of the same text (each statement's first line, less its leading
blank and comment lines), or, where that does not line up, from the module's code generated
plainly, one statement at a time; a node is looked for in the statements whose lines hold its
code's first line (usually one), and only those get ``PositionProvider``'s positions, each in a
module of its own, its lines moved by where the statement starts. A statement's code is then
compared with the lines it was placed at: where they differ, the generated layout is used. A
node found in none (one the engine made up, or one whose code depends on its indentation) falls
back to the whole module.
"""

from __future__ import annotations

import ast
import functools

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


def ast_layout(text: str, module: cst.Module, tree: ast.Module | None = None):
    """``text``'s lines and the lines [start, end) (0-based) each top-level statement of
    ``module`` (LibCST's tree of ``text``) spans, as :func:`statement_layout` gives them, read
    from ``tree`` (Python's ast of ``text``; parsed here when not given) without generating
    code; None where the two trees do not line up (the ast does not parse, or holds other
    statements). A statement begins at its first token (a decorated one at its first
    decorator), less the blank and comment lines LibCST gives it; every line of the module
    belongs to one statement, its header or its footer, so each ends where the next begins.
    (The caller checks each statement's code against its lines: :class:`Positions`.)"""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    nodes = tree.body
    starts = []
    at = 0
    for statement in module.body:
        if at >= len(nodes):
            return None
        node = nodes[at]
        decorators = getattr(node, "decorator_list", None)
        first = (decorators[0] if decorators else node).lineno - 1
        starts.append(first - len(statement.leading_lines))
        at += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    lines = lines_of(text)
    ends = starts[1:] + [len(lines) - len(module.footer)]
    if at != len(nodes) or any(end <= start for start, end in zip(starts, ends)) or (starts and starts[0] < 0):
        return None
    return lines, list(zip(starts, ends))


def code_ranges(module: cst.Module) -> dict:
    """``PositionProvider``'s range of each node of the module (:func:`_spans`, as LibCST's
    ``CodeRange``)."""
    return {node: _code_range(span) for node, span in _spans(module).items()}


def _code_range(span: tuple):
    """A (start line, start column, end line, end column) span as LibCST's ``CodeRange``."""
    metadata = cst.metadata
    a, b, c, d = span
    return metadata.CodeRange(metadata.CodePosition(a, b), metadata.CodePosition(c, d))


def _spans(module: cst.Module) -> dict:
    """``PositionProvider``'s range of each node of the module (:func:`_spans_and_code`)."""
    return _spans_and_code(module)[0]


def _spans_and_code(module: cst.Module) -> tuple[dict, str]:
    """``PositionProvider``'s range of each node of the module, as (start line, start column,
    end line, end column), and the module's code. Its code generation is run with a state of the same rules
    (:func:`_span_state`) that keeps plain tuples: LibCST's makes two ``CodePosition`` and
    a ``CodeRange`` per node, most of them overwritten, and enters a generator-made context
    per node, two thirds of its time. Through ``MetadataWrapper`` where a libcst lacks the
    state's hooks."""
    state_class = _span_state()
    if state_class is None:
        ranges = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True).resolve(cst.metadata.PositionProvider)
        return {node: (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in ranges.items()}, \
            module.code
    provider = _Spans()
    state = state_class(default_indent=module.default_indent, default_newline=module.default_newline,
                        provider=provider)
    module._codegen(state)
    return provider._computed, "".join(state.tokens)


class _Spans:
    """What the code generation state writes the ranges into (LibCST's provider's place)."""

    __slots__ = ("_computed",)

    def __init__(self):
        self._computed: dict = {}


@functools.cache
def _span_state():
    """LibCST's ``PositionProvidingCodegenState`` with its position hooks writing tuples (the
    same positions: test_positions compares every node with ``PositionProvider``'s); None
    where this libcst's state has other hooks."""
    from libcst.metadata import position_provider

    base = getattr(position_provider, "PositionProvidingCodegenState", None)
    if base is None or not all(hasattr(base, hook) for hook in _HOOKS):
        return None
    newline = position_provider.NEWLINE_RE

    class SpanState(base):
        __slots__ = ()

        def add_indent_tokens(self) -> None:
            for token in self.indent_tokens:
                self.add_token(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            if "\n" in value or "\r" in value:
                segments = newline.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def before_codegen(self, node) -> None:
            self._stack.append((self.line, self.column))

        def after_codegen(self, node) -> None:
            start = self._stack.pop()
            computed = self.provider._computed
            if node not in computed:  # (a syntactic position, recorded already, stands)
                computed[node] = (*start, self.line, self.column)

        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            return _Syntactic(self, node, start_node, end_node)

    return SpanState


_HOOKS = ("add_indent_tokens", "add_token", "before_codegen", "after_codegen", "record_syntactic_position")


class _Syntactic:
    """The range of a node without the white space it owns, from ``start_node``'s start and to
    ``end_node``'s end where given (LibCST's ``record_syntactic_position``)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node):
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc) -> bool:
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node][:2] if self.start_node is not None else self.start
        end = computed[self.end_node][2:] if self.end_node is not None else (state.line, state.column)
        computed[self.node] = (*start, *end)
        return False


class Positions:
    def __init__(self, module: cst.Module, layout=None):
        """``layout``: a function giving the file's lines and the [start, end) lines of each
        top-level statement (:func:`ast_layout`, or analysis/reparse.py's, which knows them), or
        None where it cannot: no code is generated for the layout."""
        self.module = module
        self.layout = layout
        self._known: dict[cst.CSTNode, tuple] = {}  # (start line, column, end line, column)
        self._ranges: dict[cst.CSTNode, cst.metadata.CodeRange] = {}  # those asked for
        self._codes: list[str] | None = None  # each top-level statement's code
        self._first_lines: list[int] = []  # the line before each statement's first line
        self._generated = False  # whether the layout is the module's generated code (nothing to check)
        self._done: set[int] = set()  # statements whose positions are known
        self._whole = False

    def of(self, node: cst.CSTNode) -> cst.metadata.CodeRange:
        """The node's range; KeyError when it is not in the module."""
        found = self._ranges.get(node)
        if found is None:
            found = self._ranges[node] = _code_range(self._span(node))
        return found

    def _span(self, node: cst.CSTNode) -> tuple:
        found = self._known.get(node)
        if found is not None:
            return found
        if not self._whole:
            for index in self._candidates(node):
                self._statement(index)
                found = self._known.get(node)
                if found is not None:
                    return found
            self._known.update(_spans(self.module))
            self._whole = True
        return self._known[node]

    def _candidates(self, node: cst.CSTNode) -> list[int]:
        """The statements that may hold ``node``: itself, or those whose code holds its code."""
        body = self.module.body
        if self._codes is None:
            given = self.layout() if self.layout is not None else None
            if given is None:
                self._generate_layout()
            else:
                lines, spans = given
                self._codes = ["".join(lines[start:end]) for start, end in spans]
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
        spans, code = _spans_and_code(alone)
        if not self._generated and not _same_code(code, self._codes[index], self.module.has_trailing_newline):
            self._generate_layout()  # (the layout given misplaced this statement)
        shift = self._first_lines[index]
        known = self._known
        for node, (a, b, c, d) in spans.items():
            if node is not alone:
                known[node] = (a + shift, b, c + shift, d)

    def _generate_layout(self) -> None:
        self._codes, spans = statement_layout(self.module)
        self._first_lines = [start for start, _ in spans]
        self._generated = True


def _same_code(code: str, lines: str, trailing_newline: bool) -> bool:
    """Is ``code`` (a statement's, generated in a module of its own) the text of ``lines``? (In
    a module without a newline at its end, LibCST leaves out the last one of its code.)"""
    return code == lines or (not trailing_newline and lines.startswith(code)
                             and LINE_END.fullmatch(lines[len(code):]) is not None)
