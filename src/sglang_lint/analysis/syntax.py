"""Small readings of LibCST syntax that every stage shares: a dotted name as text, the names
an assignment target binds, a call's callee name, a literal's value, whether code reads a
variable or mentions a node, and the fields of a node that hold nodes (the walk's, analysis/walk.py)."""

from __future__ import annotations

import ast
import dataclasses
from functools import lru_cache
from typing import Callable, Iterator

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.text.pynames import NOT_LITERAL


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` as text for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def target_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The plain names an assignment target binds (through tuples, lists, starred)."""
    if isinstance(node, cst.Name):
        yield node
    elif isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from target_names(element.value)
    elif isinstance(node, cst.StarredElement):
        yield from target_names(node.value)


# Fields holding a name that is not a read of a variable: ``x.attr``, ``f(keyword=...)``,
# what a statement binds (``x = ``, ``for x in``, ``as x``, ``del x``, a parameter).
_NOT_READS = {  # (by the name of LibCST's node class: no LibCST is needed to make this table)
    "Attribute": ("attr",), "Arg": ("keyword",), "AssignTarget": ("target",),
    "AnnAssign": ("target",), "For": ("target",), "CompFor": ("target",), "NamedExpr": ("target",),
    "AsName": ("name",), "Del": ("target",), "Param": ("name",),
}
_OWN_NAMES = frozenset({"FunctionDef", "ClassDef", "Import", "ImportFrom", "Global", "Nonlocal"})


def reads(node: cst.CSTNode, name: str) -> bool:
    """Does the code ``node`` read the variable ``name`` (of the scope ``node`` is in)?
    Not inside a nested ``def``/``class``, nor a lambda with a parameter of that name."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value == name:
                return True
            continue
        if type(current).__name__ in _OWN_NAMES:
            continue
        if isinstance(current, cst.Lambda) and any(
            isinstance(p, cst.Param) and p.name.value == name
            for p in (*current.params.posonly_params, *current.params.params, *current.params.kwonly_params,
                      current.params.star_arg, current.params.star_kwarg)
        ):
            continue
        skipped = [getattr(current, f) for f in _NOT_READS.get(type(current).__name__, ())]
        stack.extend(c for c in current.children if not any(c is s for s in skipped))
    return False


def callee_name(node: cst.CSTNode) -> str | None:
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def mentions(node: cst.CSTNode, predicate: Callable[[cst.CSTNode], bool]) -> bool:
    """Does any node in the subtree satisfy ``predicate``? (A small, cheap walk.)"""
    stack = [node]
    while stack:
        current = stack.pop()
        if predicate(current):
            return True
        stack.extend(current.children)
    return False


def token_value(node: cst.SimpleString | cst.Integer | cst.Float) -> object:
    """``node.evaluated_value`` of a one-token literal, read once per text (the same strings and
    numbers recur across a file's calls and a run's files); raises as that does."""
    return _token_value(node.value)


@lru_cache(maxsize=4096)
def _token_value(text: str) -> object:
    return ast.literal_eval(text)


def literal_value(node: cst.CSTNode) -> object:
    """The Python value of a literal node, or NOT_LITERAL."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = token_value(node) if isinstance(node, cst.SimpleString) else node.evaluated_value
        except Exception:  # an unusual prefix or escape LibCST cannot evaluate
            return NOT_LITERAL
        return NOT_LITERAL if value is None else value
    if isinstance(node, (cst.Integer, cst.Float)):
        try:
            return token_value(node)
        except Exception:
            return NOT_LITERAL
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_value(node.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    return NOT_LITERAL


_PUNCTUATION = frozenset({
    "lpar", "rpar", "lbracket", "rbracket", "lbrace", "rbrace", "leading_lines", "lines_after_decorators",
    "header", "footer", "semicolon", "comma", "equal", "colon", "newline", "asynchronous", "operator",
    "star", "dot", "arrow", "first_line", "trailing_whitespace", "empty_lines", "indent",
})
# Fields LibCST visits in source order where the dataclass lists them otherwise.
_FIELD_ORDER = {  # (by class name: the table is made before LibCST is imported)
    "FunctionDef": ("decorators", "name", "type_parameters", "params", "returns", "body"),
    "ClassDef": ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
}


def child_fields(node_type: type) -> tuple[str, ...]:
    """The fields of a LibCST node class that may hold nodes, in source order (no whitespace,
    no punctuation): what the walk (analysis/walk.py) descends into."""
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        names = [
            f.name for f in dataclasses.fields(node_type)
            if f.name not in _PUNCTUATION and "whitespace" not in f.name
        ]
        order = _FIELD_ORDER.get(node_type.__name__)
        if order is not None:
            names = [n for n in order if n in names] + [n for n in names if n not in order]
        fields = _CHILD_FIELDS[node_type] = tuple(names)
    return fields


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes directly under ``node`` that :func:`child_fields` names, in source order."""
    found = []
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, (list, tuple)):
            found.extend(item for item in value if isinstance(item, cst.CSTNode))
        elif isinstance(value, cst.CSTNode):
            found.append(value)
    return found
