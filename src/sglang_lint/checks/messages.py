"""sglang's message as it would print it for the call or launch judged: each placeholder of
the raise's f-string replaced by the value it takes there, where that value is certain.

A rule records the message as the deriver read it: an f-string's placeholder is ``{...}``
where the deriver kept its value apart (the start-up and sampling tables: the k-th ``{...}``
is the k-th of the row's ``shown`` expressions), or ``{expr}`` with sglang's own expression
(the derived rules of one call, and ``str.format`` templates). A placeholder whose value is not
certain stays visibly one, never as f-string syntax: ``<expr>`` (sglang's expression), or
``<?>`` where the message records none.
"""

from __future__ import annotations

import ast
import re
from typing import Callable

from sglang_lint.checks.fails_when.values import UNKNOWN

ANONYMOUS = "{...}"  # a placeholder whose expression the message does not record
UNKNOWN_SHOWN = "<?>"  # how an anonymous placeholder whose value is not known is shown
# How an f-string shows a value, as a rule writes it around the value's expression: ``repr(x)``
# for ``{x!r}``, ``ascii(x)`` for ``{x!a}``, ``format(x, ".2f")`` for ``{x:.2f}``.
SHOWN_WRAPPERS = frozenset({"repr", "ascii", "format"})
_FIELD = re.compile(r"\{([^{}]*)\}")


def filled(message: str, value_of: Callable[[int, str], object]) -> str:
    """``message`` with each placeholder replaced: ``value_of(k, expr)`` (k counts the
    anonymous ``{...}`` placeholders, ``expr`` is ``...`` for those) gives the text to show,
    or UNKNOWN (then ``<expr>``, ``<?>`` for an anonymous one)."""
    if "{" not in message:
        return message
    count = [0]

    def one(match: re.Match) -> str:
        expr = match.group(1).strip()
        if expr == "...":
            index = count[0]
            count[0] += 1
            shown = value_of(index, expr)
            return UNKNOWN_SHOWN if shown is UNKNOWN else str(shown)
        shown = value_of(-1, expr)
        return f"<{_written(expr) or '?'}>" if shown is UNKNOWN else str(shown)

    return _FIELD.sub(one, message)


_TAIL = re.compile(r"(?:!([rsa]))?(?::([^{}]*))?")


def _split(expr: str) -> tuple[str, str | None, str | None]:
    """A placeholder's text as (expression, conversion, format spec), cut where an f-string's
    expression ends: the first ``!`` or ``:`` before which the text is an expression."""
    for index, char in enumerate(expr):
        if char in "!:" and index and (char != "!" or expr[index + 1:index + 2] != "="):
            tail = _TAIL.fullmatch(expr[index:])
            if tail is not None and _is_expression(expr[:index]):
                return expr[:index], tail.group(1), tail.group(2)
    return expr, None, None


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _written(expr: str) -> str:
    """A placeholder as a finding shows it when its value is not known: the expression alone."""
    return _split(expr)[0]


# A ``str.format`` field (``{name}``, ``{0}``, ``{name!r:>8}``): in a message whose f-string
# fields are all ``{...}`` (the start-up and sampling tables), other braces are sglang's own text
# (``--kv-canary in {log, raise}``).
_TEMPLATE_FIELD = re.compile(r"^(?:[A-Za-z_]\w*(?:\.\w+|\[\w+\])*|\d*)(?:![rsa])?(?::[^{}]*)?$")


def template_field(expr: str) -> object:
    """A ``{expr}`` of a message whose f-string fields are all ``{...}``: UNKNOWN (shown
    ``<expr>``) for a ``str.format`` field, the braces as they stand for anything else."""
    return UNKNOWN if _TEMPLATE_FIELD.match(expr) else "{" + expr + "}"


def as_text(value: object) -> object:
    """A value as an f-string's plain placeholder shows it (``str()``), for the values whose
    text Python fixes: None, bools, ints, floats, strings; UNKNOWN for any other (a tensor,
    an enum member, a record: their text is their class's)."""
    if value is None or type(value) in (bool, int, float, str):
        return str(value)
    if type(value) in (list, tuple, dict) and _plain(value):
        return str(value)
    return UNKNOWN


def shown_as(value: object, how: ast.Call | None = None) -> object:
    """The text an f-string shows for ``value`` (``how``: the wrapper of SHOWN_WRAPPERS the
    rule writes around it, None for a plain placeholder), or UNKNOWN."""
    if value is UNKNOWN or as_text(value) is UNKNOWN:
        return UNKNOWN
    if how is None:
        return as_text(value)
    name = how.func.id if isinstance(how.func, ast.Name) else ""
    if name in ("repr", "ascii") and len(how.args) == 1:
        return repr(value) if name == "repr" else ascii(value)
    if name == "format" and len(how.args) == 2 and isinstance(how.args[1], ast.Constant) \
            and isinstance(how.args[1].value, str) and type(value) is not dict:
        try:
            return format(value, how.args[1].value)
        except (ValueError, TypeError):
            return UNKNOWN
    return UNKNOWN


def _plain(value: object, depth: int = 0) -> bool:
    if depth > 8:
        return False
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) in (list, tuple):
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def with_values(summary: str, values: list) -> str:
    """A derived rule's summary (sglang's message with ``{expr}`` placeholders, their
    conversion and format spec kept, as derive/reading/guards.py writes them) with its k-th placeholder
    showing ``values[k]`` as the f-string would, where known (UNKNOWN: ``<expr>``). Values that
    do not pair one to one with the placeholders show none."""
    if "{" not in summary:
        return summary
    paired = iter(values if len(values) == len(_FIELD.findall(summary)) else ())
    return filled(summary, lambda index, expr: _as_written(expr, next(paired, UNKNOWN)))


def _as_written(expr: str, value: object) -> object:
    """``value`` as the placeholder ``{expr}`` prints it (its conversion and spec), or UNKNOWN."""
    if value is UNKNOWN:
        return UNKNOWN
    _, conversion, spec = _split(expr)
    if conversion in ("r", "a"):
        how = ast.Call(ast.Name("repr" if conversion == "r" else "ascii", ast.Load()), [ast.Name("v")], [])
        return shown_as(value, how) if spec is None else UNKNOWN
    if spec:
        return shown_as(value, ast.Call(ast.Name("format", ast.Load()), [ast.Name("v"), ast.Constant(spec)], []))
    return shown_as(value)


def with_argument(summary: str, parameter: str | None = None, value: object = UNKNOWN) -> str:
    """with_values for a call whose checked ``parameter`` has ``value``: the placeholders that
    are the parameter itself show it, every other is shown as ``<expr>``."""
    return with_values(summary, [value if parameter is not None and _split(field)[0] == parameter else UNKNOWN
                                 for field in _FIELD.findall(summary)])
