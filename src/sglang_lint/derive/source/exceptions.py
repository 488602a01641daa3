"""The exception a ``raise`` or ``assert`` throws and its message as sglang writes it, and
which exceptions a ``try`` around it stops."""

from __future__ import annotations

import ast

# An exception's bases up to BaseException (any other is taken as an Exception).
_BASES = {
    "ValueError": ("Exception", "BaseException"),
    "AssertionError": ("Exception", "BaseException"),
    "RuntimeError": ("Exception", "BaseException"),
    "NotImplementedError": ("RuntimeError", "Exception", "BaseException"),
    "TypeError": ("Exception", "BaseException"),
    "KeyError": ("LookupError", "Exception", "BaseException"),
}


def exception_of(statement: ast.Raise | ast.Assert) -> tuple[str, str]:
    """(exception class name, message) of a raise or assert."""
    if isinstance(statement, ast.Assert):
        message = message_text(statement.msg) if statement.msg is not None else ast.unparse(statement.test)
        return "AssertionError", message
    exc = statement.exc
    if isinstance(exc, ast.Call):
        name = ast.unparse(exc.func).rpartition(".")[2]
        return name, message_text(exc.args[0]) if exc.args else ""
    return (ast.unparse(exc).rpartition(".")[2] if exc is not None else "", "")


def message_text(node: ast.expr) -> str:
    """A message as sglang writes it: literal parts kept, each placeholder as ``{...}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return message_text(node.left) + message_text(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return message_text(node.func.value)
    return "{...}"


def message_fields(node: ast.expr | None) -> list:
    """The expression of each ``{...}`` placeholder :func:`message_text` writes, in order, as
    sglang's f-string shows it (``!r`` as ``repr(x)``, a literal format spec as
    ``format(x, ".2f")``); None for one with no such expression (a message that is a name,
    a nested spec)."""
    if node is None or isinstance(node, ast.Constant) and isinstance(node.value, str):
        return []
    if isinstance(node, ast.JoinedStr):
        return [_field(v) for v in node.values if not isinstance(v, ast.Constant)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return message_fields(node.left) + message_fields(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return message_fields(node.func.value)
    return [None]


def _field(value: ast.expr) -> ast.expr | None:
    if not isinstance(value, ast.FormattedValue):
        return None
    if value.format_spec is not None:
        parts = value.format_spec.values if isinstance(value.format_spec, ast.JoinedStr) else [None]
        if value.conversion != -1 or not all(isinstance(p, ast.Constant) for p in parts):
            return None  # (both, or a spec computed at run time: not written)
        spec = ast.Constant("".join(p.value for p in parts))
        shown = ast.Call(ast.Name("format", ast.Load()), [value.value, spec], [])
    elif value.conversion in (ord("r"), ord("a")):
        shown = ast.Call(ast.Name("repr" if value.conversion == ord("r") else "ascii", ast.Load()), [value.value], [])
    else:
        return value.value
    shown.shown = True  # type: ignore[attr-defined]  (the f-string's way of showing, not sglang's call)
    return shown


def raises_again(handler: ast.ExceptHandler) -> bool:
    return bool(handler.body) and isinstance(handler.body[-1], ast.Raise)


def handler_names(handler: ast.ExceptHandler) -> tuple:
    if handler.type is None:
        return ("BaseException",)
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(ast.unparse(t).rpartition(".")[2] for t in types)


def caught(exception: str, catching: tuple) -> bool:
    if not catching:
        return False
    bases = _BASES.get(exception, ("Exception", "BaseException"))
    return any(name == exception or name in bases for name in catching)
