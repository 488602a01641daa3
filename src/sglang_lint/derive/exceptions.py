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
