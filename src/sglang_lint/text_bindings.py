"""The values a file's statements bind a name to, read from its text before anything is
parsed (the call-site screen's first look, screen.py): where :func:`~sglang_lint.textscan.may_assign`
finds the name bound, which of those are statements ``name = value`` and what they assign."""

from __future__ import annotations

import ast
import re

from sglang_lint.textscan import BracketMap, assignments, scan_to_end

BINDING = re.compile(
    rb"[ \t]*(?:(?P<walrus>:=)|(?::[^=,()\n]*)?(?P<equals>=)(?!=)[ \t]*"
    rb"(?P<literal>[-\"'0-9.]|[rRbBuUfF]{1,2}[\"']|None\b|True\b|False\b)?)"
)


def assigned_values(data: bytes, brackets: BracketMap, name: bytes):
    """The value of each statement ``name = value`` or ``name: T = value`` of the file
    (the bindings ast_values.py ``AstValues._name`` reads), found where
    :func:`~sglang_lint.textscan.may_assign` finds ``name`` bound; None for any other
    binding it may be (an unpacking, ``:=``, a value that does not parse alone). What only
    looks like one binds no value: ``name`` in a comment or a string (but ``:=`` in an
    f-string), a keyword argument or a parameter's default (``f(name=1)``: a parameter's
    value is unknown to the engine), ``name.x = ...``, ``name[i] = ...``, ``a[name] = ...``,
    ``f(name, k=1)``."""
    for start, equals in assignments(data, name):
        code = brackets.code_at(start)
        match = BINDING.match(data, start + len(name))
        walrus = match is not None and match.group("walrus")
        if code is False or code is None and not walrus:
            continue  # in a comment or a string; in an f-string only ``:=`` binds
        if code is None or walrus:
            yield None
            continue
        depth = brackets.depth_at(start)
        if depth > 0 and match is not None:
            continue  # a keyword argument or a parameter's default
        following = data[start + len(name):equals].lstrip()[:1]
        if match is None:
            if brackets.depth_at(equals) > 0 or following in (b".", b"[") or brackets.in_call_or_subscript(start):
                continue  # a keyword's ``=`` (``f(name, k=1)``), ``name.x = ...``, ``a[name] = ...``
            if following != b":":
                yield None  # an unpacking (or what the text cannot tell)
                continue
            if depth > 0:
                continue  # ``def f(name: Dict[str, int] = ...)``: a parameter's default
            value_start = equals + 1  # ``name: Dict[str, int] = ...``
        else:
            value_start = match.end("equals")
        yield _value_assigned(data, start, value_start, name)


def _value_assigned(data: bytes, start: int, value_start: int, name: bytes) -> ast.expr | None:
    """The value a statement at ``start`` (``name = ...``, ``a = name = ...``, ``name: T =
    ...``) or after ``value_start`` binds ``name`` to; None where it does not parse alone."""
    line_start = data.rfind(b"\n", 0, start) + 1
    whole = not data[line_start:start].strip(b" \t")
    text = statement_value(data, line_start if whole else value_start)
    try:
        if text is None:
            return None
        if not whole:
            return ast.parse(b"(" + text + b"\n)", mode="eval").body
        statement = ast.parse(text.strip()).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(statement) != 1 or not isinstance(statement[0], (ast.Assign, ast.AnnAssign)):
        return None
    targets = statement[0].targets if isinstance(statement[0], ast.Assign) else [statement[0].target]
    named = any(isinstance(target, ast.Name) and target.id == name.decode() for target in targets)
    return statement[0].value if named and statement[0].value is not None else None


def statement_value(data: bytes, start: int) -> bytes | None:
    """The text from ``start`` to the end of its logical line (brackets and strings
    followed across lines), or None past textscan's limit of a call's length."""
    end = scan_to_end(data, start, until_newline=True)
    return data[start:end] if end is not None else None
