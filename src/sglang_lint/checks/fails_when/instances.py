"""``isinstance`` in the fails-when evaluator (checks/fails_when/language.py): whether a value it knows is
an instance of the classes a condition names, three-valued. sglang's own plain classes, the
builtins and ABCs whose relation to a literal is certain (checks/value_tests.py), torch's
tensor class."""

from __future__ import annotations

import ast

from sglang_lint.checks.fails_when.values import UNKNOWN, Device, Member, Record, Tensor, TruthOnly
from sglang_lint.checks.value_tests import INSTANCE_OF, KNOWN_TYPES, type_alternatives
from sglang_lint.text.pynames import Ref


def is_instance(value: object, types_node: ast.expr) -> object:
    """``isinstance(value, types)``: True, False or UNKNOWN, where ``types_node`` is the
    condition's class (or tuple or union of classes) as written."""
    types = [ast.unparse(n) for n in type_alternatives(types_node)]
    own = [t for t in types if t.startswith("sglang.")]
    if any(t not in KNOWN_TYPES for t in types if t not in own):
        return UNKNOWN
    verdict = _own_instance(value, own)
    others = [t for t in types if t not in own]
    if verdict is True or not others:
        return verdict
    theirs = _builtin_instance(value, others)
    return True if theirs is True else UNKNOWN if UNKNOWN in (verdict, theirs) else False


def _own_instance(value: object, types: list[str]) -> object:
    """``isinstance`` against sglang classes. The deriver names only plain ones (no base but
    other plain sglang classes, no metaclass): a literal, display, tensor or device is none of
    them, and a record made at the call is an instance of its own class alone."""
    if value is UNKNOWN or isinstance(value, (Ref, TruthOnly)):
        return UNKNOWN  # (an enum member, an object of unknown class)
    if isinstance(value, Record):
        return value.kind in types
    return False


def _builtin_instance(value: object, types: list[str]) -> object:
    if isinstance(value, Tensor) and value.library != "torch":
        return UNKNOWN
    if isinstance(value, Tensor):
        return "torch.Tensor" in types or "object" in types
    if value is UNKNOWN or isinstance(value, (Ref, Device, Member)):
        return UNKNOWN
    container = {tuple: "tuple", list: "list", dict: "dict", frozenset: "frozenset"}.get(type(value))
    if container is not None:
        return container in types or "object" in types or (
            container in ("tuple", "list") and any(t.endswith(("Sequence", "Iterable", "Collection", "Sized"))
                                                   for t in types)) or (
            container == "dict" and any(t.endswith(("Mapping", "Iterable", "Collection", "Sized", "Dict"))
                                        for t in types)) or (
            container == "list" and "typing.List" in types) or (container == "tuple" and "typing.Tuple" in types)
    kinds = INSTANCE_OF.get(type(value))
    if kinds is None:
        return UNKNOWN
    return any(t in kinds for t in types)
