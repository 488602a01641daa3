"""Four small value checks the derived catalog needs, one per shape of sglang guard:

* ``forbidden-values``: ``if x == "a": raise`` / ``if x in (...): raise``;
* ``must-be-none``: ``if x is not None: raise`` ("not supported");
* ``truthy``: ``if not x: raise`` (None, False, 0 and "" fail);
* ``number-range``: ``if n <= 0: raise`` / ``if n < 0 or n > 8: raise`` (a number outside);
* ``falsy``: ``if x: raise`` (a true value fails);
* ``instance-of``: ``if not isinstance(x, torch.Tensor): raise`` / ``if isinstance(x, str): raise``
  (a literal of the wrong type fails; only types whose relation to literals is certain).

Each judges only values the resolver knows at the call (every reaching binding)."""

from __future__ import annotations

import ast
import dataclasses

import functools
import operator
from dataclasses import dataclass

from sglang_lint.checks.allowed_values import SCALARS
from sglang_lint.checks.base import (
    CheckKind,
    argument_values,
    guarded_on,
    require_argument,
    show_call,
    show_value,
    target_trigger,
)
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import value_screen
from sglang_lint.text.pynames import Ref, literal_in


@dataclass(frozen=True)
class ValueTest:
    summary: str
    values: tuple = ()  # number-range: ((op, bound), ...) a number must all satisfy
    strict: bool = False  # only values certain at the call: no parameter defaults


def _parse_with_values(fields, targets):
    require_argument(fields, targets)
    values = fields.any("values")
    if not isinstance(values, list) or not values or not all(isinstance(v, SCALARS) for v in values):
        raise fields.error("values", f"must be a non-empty list of literals, got {values!r}")
    return ValueTest(fields.str("summary"), tuple(values), fields.bool("strict", required=False) or False)


def _parse_bounds(fields, targets):
    require_argument(fields, targets)
    holds = fields.any("holds")
    if not isinstance(holds, list) or not holds or not all(
            isinstance(h, list) and len(h) == 2 and h[0] in COMPARE and _is_number(h[1]) for h in holds):
        raise fields.error("holds", f"must be a non-empty list of [op, number] with op one of {tuple(COMPARE)}, "
                                    f"got {holds!r}")
    return ValueTest(fields.str("summary"), tuple((op, bound) for op, bound in holds),
                     fields.bool("strict", required=False) or False)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


COMPARE = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def within_bounds(value: int | float, bounds) -> bool:
    """Does the number satisfy every (op, bound)? The one reading of a number-range, for the
    check, the deriver's guards and its examples."""
    return all(COMPARE[op](value, bound) for op, bound in bounds)


def _is_out_of_range(params: ValueTest, value: object) -> bool:
    """A number (never a bool: True > 0 is not what sglang tests) outside a bound."""
    return _is_number(value) and not within_bounds(value, params.values)


_HASHABLE = frozenset({"collections.abc.Hashable", "typing.Hashable", "object"})
_NUMBER = frozenset({"numbers.Number", "numbers.Complex"})
# The types a literal of each kind is an instance of (builtins by their plain name).
INSTANCE_OF = {
    str: _HASHABLE | {"str", *(f"{m}.{n}" for m in ("collections.abc", "typing") for n in (
        "Sequence", "Iterable", "Collection", "Container", "Sized", "Reversible"))},
    int: _HASHABLE | _NUMBER | {"int", "numbers.Integral", "numbers.Rational", "numbers.Real"},
    bool: _HASHABLE | _NUMBER | {"bool", "int", "numbers.Integral", "numbers.Rational", "numbers.Real"},
    float: _HASHABLE | _NUMBER | {"float", "numbers.Real"},
    type(None): _HASHABLE | {"NoneType"},
}
# Types whose relation to every literal is known (a literal is an instance of none of the
# others): a type check against any other class says nothing certain about a literal.
KNOWN_TYPES = frozenset().union(*INSTANCE_OF.values()) | {
    "list", "tuple", "dict", "set", "frozenset", "bytes", "bytearray", "complex",
    "torch.Tensor", "torch.device", "torch.dtype", "torch.nn.Module", "numpy.ndarray",
    *(f"{m}.{n}" for m in ("collections.abc", "typing") for n in (
        "Mapping", "MutableMapping", "MutableSequence", "Set", "MutableSet", "Callable", "Iterator",
        "Generator")),
    "typing.List", "typing.Dict", "typing.Tuple",
}


def type_alternatives(node: ast.expr) -> list:
    """The classes an ``isinstance`` test names, as written: a tuple's items and a union's
    operands (``list | tuple``, Python 3.10's spelling of ``(list, tuple)``), nested or not."""
    if isinstance(node, ast.Tuple):
        return [alternative for item in node.elts for alternative in type_alternatives(item)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return type_alternatives(node.left) + type_alternatives(node.right)
    return [node]


def is_instance_literal(value: object, types) -> bool | None:
    """``isinstance(value, types)`` for a literal value (None when it is not one)."""
    kinds = INSTANCE_OF.get(type(value))
    if kinds is None or isinstance(value, Ref):
        return None
    return any(t in kinds for t in types)


def _parse_types(fields, targets):
    require_argument(fields, targets)
    types = tuple(fields.strings("types", required=False) or ())
    not_types = tuple(fields.strings("not_types", required=False) or ())
    unknown = [t for t in types + not_types if t not in KNOWN_TYPES]
    if unknown or not (types or not_types):
        raise fields.error("types", f"needs types from the known ones, got {unknown or 'none'}")
    return ValueTest(fields.str("summary"), (types, not_types), fields.bool("strict", required=False) or False)


def _is_wrong_type(params: ValueTest, value: object) -> bool:
    types, not_types = params.values
    if types and is_instance_literal(value, types) is False:
        return True
    return bool(not_types) and is_instance_literal(value, not_types) is True


def _is_true(params: ValueTest, value: object) -> bool:
    return not isinstance(value, Ref) and isinstance(value, SCALARS) and bool(value)


def _types_shown(params: ValueTest) -> str:
    types, not_types = params.values
    wanted = f"an instance of {' or '.join(types)}" if types else ""
    unwanted = f"not {' or '.join(not_types)}" if not_types else ""
    return ", ".join(part for part in (wanted, unwanted) if part)


def _parse(fields, targets):
    require_argument(fields, targets)
    return ValueTest(fields.str("summary"), strict=fields.bool("strict", required=False) or False)


def _is_forbidden(params: ValueTest, value: object) -> bool:
    return literal_in(value, params.values)


def _is_set(params: ValueTest, value: object) -> bool:
    return value is not None and not isinstance(value, Ref)


def _is_falsy(params: ValueTest, value: object) -> bool:
    return not isinstance(value, Ref) and (value is None or isinstance(value, SCALARS) and not value)


def _checker(fails, explain):
    def run(site, rule, check, target):
        params: ValueTest = check.params
        for _, known in argument_values(site, target.argument, target.position):
            if not fails(params, known.value) or (params.strict and known.default):
                continue
            if known.via and guarded_on(site, known.via[0]):
                continue
            node = known.written if known.default else known.node
            said = dataclasses.replace(params, summary=with_argument(params.summary, rule.raise_site.parameter,
                                                                     known.value))
            yield Finding(node, f"{show_call(site, target, known)}: {explain(said, known.value)}")

    return run


def _triggers(fails):
    def triggers(check):
        params: ValueTest = check.params
        return [
            target_trigger(
                target,
                screen=value_screen(target.argument, target.position, functools.partial(fails, params), None,
                                    params.strict, target.omitted),
            )
            for target in check.targets
        ]

    return triggers


FORBIDDEN = CheckKind(
    name="forbidden-values", site="call", parse=_parse_with_values, triggers=_triggers(_is_forbidden),
    through_wrappers=True, fails=_is_forbidden,
    run=_checker(_is_forbidden, lambda p, v: f"{p.summary} ({show_value(v)} is not accepted)"),
)
MUST_BE_NONE = CheckKind(
    name="must-be-none", site="call", parse=_parse, triggers=_triggers(_is_set), through_wrappers=True,
    fails=_is_set,
    run=_checker(_is_set, lambda p, v: f"{p.summary} (only None is accepted here)"),
)
TRUTHY = CheckKind(
    name="truthy", site="call", parse=_parse, triggers=_triggers(_is_falsy), through_wrappers=True,
    fails=_is_falsy,
    run=_checker(_is_falsy, lambda p, v: f"{p.summary} ({show_value(v)} is empty, zero or None)"),
)
NUMBER_RANGE = CheckKind(
    name="number-range", site="call", parse=_parse_bounds, triggers=_triggers(_is_out_of_range),
    through_wrappers=True, fails=_is_out_of_range,
    run=_checker(_is_out_of_range, lambda p, v: f"{p.summary} ({show_value(v)} is not "
                                                f"{' and '.join(f'{op} {b!r}' for op, b in p.values)})"),
)
INSTANCE_OF_KIND = CheckKind(
    name="instance-of", site="call", parse=_parse_types, triggers=_triggers(_is_wrong_type),
    through_wrappers=True, fails=_is_wrong_type,
    run=_checker(_is_wrong_type, lambda p, v: f"{p.summary} ({show_value(v)} is a {type(v).__name__}; "
                                              f"sglang wants {_types_shown(p)})"),
)
FALSY = CheckKind(
    name="falsy", site="call", parse=_parse, triggers=_triggers(_is_true), through_wrappers=True,
    fails=_is_true,
    run=_checker(_is_true, lambda p, v: f"{p.summary} ({show_value(v)} is true; it must be false, None or empty)"),
)
