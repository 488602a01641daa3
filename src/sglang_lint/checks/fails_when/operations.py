"""The operations of the ``fails-when`` language on the values it knows (language.py walks
the expression and hands them its operands): equality, containment, identity, order,
arithmetic, the aggregates and the environment's parsers, each three-valued (UNKNOWN where
Python's answer is not certain from what is known)."""

from __future__ import annotations

import ast
import operator

from sglang_lint.checks.fails_when.members import known
from sglang_lint.checks.fails_when.values import UNKNOWN, Device, Member, Tensor, TruthOnly, is_dtype, member_equal
from sglang_lint.text.pynames import Ref

_ARITHMETIC = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}


_BITWISE = {ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
            ast.RShift: operator.rshift}


def equal(a: object, b: object) -> object:
    """``a == b``: True, False or UNKNOWN (the check also compares the values bindings give)."""
    if a is UNKNOWN or b is UNKNOWN or isinstance(a, TruthOnly) or isinstance(b, TruthOnly):
        return UNKNOWN
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return UNKNOWN  # elementwise in torch
    if isinstance(a, Device) or isinstance(b, Device):
        return same_device(a, b)
    if isinstance(a, Member) or isinstance(b, Member):
        member, other = (a, b) if isinstance(a, Member) else (b, a)
        same = member_equal(member, other)
        return UNKNOWN if same is None else same
    if isinstance(a, Ref) or isinstance(b, Ref):
        if isinstance(a, Ref) and isinstance(b, Ref):
            if a == b:
                return True
            return False if is_dtype(a) and is_dtype(b) else UNKNOWN  # two enum members' names may be aliases
        if isinstance(a, Ref) and isinstance(b, str) or isinstance(b, Ref) and isinstance(a, str):
            return UNKNOWN  # a str enum member equals its value
        return False if (a is None or b is None) else UNKNOWN
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        return _settled_by((equal(x, y) for x, y in zip(a, b)), False)
    if not (known(a) and known(b)):
        return UNKNOWN
    return a == b


def same_device(a: object, b: object) -> object:
    """Devices: of other types, unequal; both the CPU, equal. Two of one accelerator type are
    unknown (``torch.device("cuda")`` is not a tensor's ``cuda:0``), and so is a device against a
    string."""
    if a is None or b is None:
        return False
    if not (isinstance(a, Device) and isinstance(b, Device)) or a.type is UNKNOWN or b.type is UNKNOWN:
        return UNKNOWN
    if a.type != b.type:
        return False
    return True if a.type == "cpu" else UNKNOWN


def contains(container: object, item: object) -> object:
    if container is UNKNOWN or isinstance(container, (Tensor, Ref)):
        return UNKNOWN
    if isinstance(container, str):
        return container.__contains__(item) if isinstance(item, str) else UNKNOWN
    if isinstance(container, dict):
        container = list(container)
    if not isinstance(container, (tuple, list, frozenset)):
        return UNKNOWN
    return _settled_by((equal(element, item) for element in container), True)


def _settled_by(answers, decisive: bool) -> object:
    """Three-valued ``all`` (``decisive`` False) or ``any`` (True) of ``answers``, read until
    one is ``decisive``: that one; else UNKNOWN where one was unknown; else ``not decisive``."""
    result: object = not decisive
    for answer in answers:
        if answer is decisive:
            return decisive
        if answer is UNKNOWN:
            result = UNKNOWN
    return result


def identical(a: object, b: object) -> object:
    """``a is b`` where it is certain: against None or a bool (the only identities sglang tests)."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    for x, y in ((a, b), (b, a)):
        if isinstance(x, TruthOnly):  # a true value is no None and no False; a false one may be either
            return False if x.truth and (y is None or y is False) else UNKNOWN
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a is b
    # (enum members are singletons: identity is equality)
    return equal(a, b) if isinstance(a, (Ref, Member)) and isinstance(b, (Ref, Member)) else UNKNOWN


def orderable(a: object, b: object) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return True
    if isinstance(a, str) and isinstance(b, str):
        return True
    return isinstance(a, tuple) and isinstance(b, tuple) and known(a) and known(b)


def arithmetic(op_type: type, left: object, right: object) -> object:
    """``left <op> right`` for an :mod:`ast` operator class, on known numbers (and ``+`` of
    sequences); UNKNOWN for anything else, or a result too big or failing to compute."""
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    bitwise = _BITWISE.get(op_type)
    if bitwise is not None:  # on ints only (on bools and tensors these are logical or elementwise)
        if type(left) is int and type(right) is int and not (op_type is ast.LShift and right > 64):
            return bitwise(left, right)
        return UNKNOWN
    op = _ARITHMETIC.get(op_type)
    if op is None:
        return UNKNOWN
    numbers = (int, float)
    if isinstance(left, numbers) and isinstance(right, numbers):
        if op_type is ast.Pow and abs(right) > 64 or op_type in (ast.Div, ast.FloorDiv, ast.Mod) and right == 0:
            return UNKNOWN  # sglang fails another way (ZeroDivisionError), not at the raise
        return op(left, right)
    if op_type is ast.Add and type(left) is type(right) and isinstance(left, (str, tuple, list)):
        return op(left, right)
    return UNKNOWN  # (``str % args`` is formatting: the message, not the test)


def environ(parser: str, text: str) -> object:
    """An environment variable's text as sglang reads it: ``envs.X`` of EnvBool / EnvInt /
    EnvFloat / EnvStr, or ``get_bool_env_var`` (true and 1 only). Text sglang would refuse
    is unknown (it fails another way)."""
    lowered = text.strip().lower()
    if parser == "env_str":
        return text
    if parser == "env_bool":
        return True if lowered in ("true", "1", "yes", "y") else False if lowered in ("false", "0", "no", "n") \
            else UNKNOWN
    if parser == "env_truthy":
        return lowered in ("true", "1")
    try:
        return int(text) if parser == "env_int" else float(text)
    except ValueError:
        return UNKNOWN


AGGREGATE_FUNCTIONS = {"min": min, "max": max, "sum": sum, "any": any, "all": all, "sorted": sorted,
                       "tuple": tuple, "list": list, "set": frozenset}


class SetOrderList(list):
    """``list(s)`` of a set: its items are known, their order is not (Python's order of a set
    of strings changes from run to run), so no text of it is certain (checks/messages.py)."""


class SetOrderTuple(tuple):
    """``tuple(s)`` of a set (SetOrderList)."""


def aggregate(name: str, items: object) -> object:
    """``sum(items)``, ``tuple(items)``... of a sequence (or a dict's keys) whose every item is known."""
    if isinstance(items, dict):
        items = list(items)
    if not isinstance(items, (tuple, list, frozenset)) or not known(list(items)):
        return UNKNOWN
    if isinstance(items, frozenset) and name in ("list", "tuple") and len(items) > 1:
        return (SetOrderList if name == "list" else SetOrderTuple)(items)
    return AGGREGATE_FUNCTIONS[name](items)
