"""Values known by kind, not by literal: what the engine knows of a value it cannot compute.
A call whose result is a non-empty text whatever its arguments (``json.dumps(schema)`` writes at
least ``null``), an f-string with literal text: such a value is no ``None`` and is true, so a
check that only asks that (two grammars set at once) is decided by it."""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

NON_EMPTY_TEXT_CALLS = frozenset({"json.dumps"})


def non_empty_text(node: cst.BaseExpression, model, scope) -> bool:
    """Is the value certainly a non-empty ``str`` (the node, or the one binding of a name)?"""
    if isinstance(node, cst.FormattedString):
        return any(isinstance(part, cst.FormattedStringText) and part.value for part in node.parts)
    made = model.constructor_call(node, scope)
    return made is not None and model.qualify(made.func, scope) in NON_EMPTY_TEXT_CALLS


def shown_kind(node: cst.BaseExpression) -> str:
    """How a message shows such a value: its source, cut, and what it is known to be."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return f"{text if len(text) <= 40 else text[:37] + '...'} (a non-empty text)"
