"""Every value the fails-when check could give an argument, read on the file's :mod:`ast` for
the call-site screen (so that a call whose condition is false for all of them is never parsed
with LibCST).

The engine (checks/fails_when/check.py ``CallValues.value``) gives an argument one value or UNKNOWN: a
name's value is the one every reaching binding gives, after the guards in force and the
writes of the file are taken into account. This module mirrors that computation case by case
on :mod:`ast`, with the same value makers (checks/fails_when/makers.py), but reads a name's bindings in any
order, all of them (screen/ast_scopes.py): the engine's value is then either UNKNOWN or one of the
values listed here. The condition's three-valued logic is monotone (a value in place of
UNKNOWN never turns True into False), so if the condition is not true for any combination of
listed values, the engine cannot find it true either.

Where the mirror is not certain to compute what the engine would (a ``global``, a literal
LibCST reads otherwise, too many combinations), the answer is :data:`MAYBE` and the screen
lets the call through."""

from __future__ import annotations

import ast
import itertools

from sglang_lint.screen.ast_scopes import GLOBAL, VALUE
from sglang_lint.checks.fails_when.makers import (
    BUILTIN_DICT,
    CST_OPERATORS,
    MAX_DEPTH,
    made_by,
    makes,
    scalar_ref,
    tensor_method,
)
from sglang_lint.checks.fails_when.language import UNKNOWN, Tensor, arithmetic, equal
from sglang_lint.text.pynames import NOT_LITERAL, SCALARS, UNSURE, Ref, ast_dotted_name, ast_literal


class _Maybe(Exception):
    """The mirror cannot tell what the engine would compute here."""


MAYBE = None  # what :meth:`AstValues.combinations` answers then
MAX_CANDIDATES = 32  # values of one expression, or combinations of a call's arguments
_OPERATORS = frozenset(CST_OPERATORS.values())
_SPREAD = object()  # ``**base`` in a dict display


class AstValues:
    """The values the engine may give expressions seen from one call's scope. ``records``: the
    rule's record classes by qualified name; ``enums``: its enum classes by every name they
    are known by (as ``CallValues``)."""

    def __init__(self, facts, records: dict, enums: dict):
        self.syntax = facts.syntax
        self.scopes = facts.scopes
        self.guarded = facts.guarded
        self.site = facts.site  # the call judged (ast_scopes.CallSite), or None
        self.changed = facts.facts.method_called_on  # (read off the text: a subset of the engine's)
        self.records = records
        self.enums = enums

    def combinations(self, nodes: list[ast.expr]) -> list[tuple] | None:
        """Each combination of the nodes' candidate values, or MAYBE (one is MAYBE, or too many)."""
        try:
            return _product([self._values(node, self.scopes, 0, frozenset()) for node in nodes])
        except (_Maybe, RecursionError):
            return MAYBE

    # -- CallValues.value, case by case ---------------------------------------------------------

    def _values(self, node: ast.expr, scopes: tuple, depth: int, seen: frozenset) -> list:
        if depth > MAX_DEPTH:
            return [UNKNOWN]  # (as the engine: each step below counts as CallValues.value counts it)
        if isinstance(node, ast.Constant) and not (node.value is None or isinstance(node.value, SCALARS)):
            raise _Maybe  # bytes, ...: LibCST's literal reading differs from ast's
        literal = ast_literal(node)
        if literal is not NOT_LITERAL:
            return [literal]
        deeper = depth + 1
        if isinstance(node, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return [UNKNOWN]
            kind = tuple if isinstance(node, ast.Tuple) else list
            return [kind(items) for items in _product([self._values(e, scopes, deeper, seen) for e in node.elts])]
        if isinstance(node, ast.Dict):
            return self._dict(node, scopes, deeper, seen)
        if isinstance(node, ast.Call):
            return self._made(node, scopes, depth, seen)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _OPERATORS:
                return [UNKNOWN]
            sides = _product([self._values(n, scopes, deeper, seen) for n in (node.left, node.right)])
            return _unique([_arithmetic(type(node.op), left, right) for left, right in sides])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return _unique([-v if isinstance(v, (int, float)) and not isinstance(v, bool) else UNKNOWN
                            for v in self._values(node.operand, scopes, deeper, seen)])
        if isinstance(node, ast.IfExp):
            pairs = _product([self._values(n, scopes, deeper, seen) for n in (node.body, node.orelse)])
            return _unique([body if equal(body, orelse) is True else UNKNOWN for body, orelse in pairs])
        if isinstance(node, ast.Name):
            return self._name(node.id, scopes, depth, seen)
        if isinstance(node, ast.Attribute):
            return [self._attribute(node, scopes)]
        return [UNKNOWN]

    def _dict(self, node: ast.Dict, scopes: tuple, depth: int, seen: frozenset) -> list:
        parts = []
        for key, value in zip(node.keys, node.values):
            if key is None:  # ``{**base, ...}``
                parts.append([(_SPREAD, base) for base in self._values(value, scopes, depth, seen)])
                continue
            literal = ast_literal(key)
            if literal is NOT_LITERAL:
                return [UNKNOWN]
            parts.append([(literal, v) for v in self._values(value, scopes, depth, seen)])
        results = []
        for items in _product(parts):
            result: dict = {}
            for key, value in items:
                if key is _SPREAD and not isinstance(value, dict):
                    result = UNKNOWN
                    break
                if key is _SPREAD:
                    result.update(value)
                else:
                    result[key] = value
            results.append(result)
        return _unique(results)

    def _name(self, name: str, scopes: tuple, depth: int, seen: frozenset) -> list:
        """``CallValues._name``: the value of every reaching binding, when they agree. A binding
        being evaluated already (``x = x * 2`` reads ``x``) is left out: the engine reads the
        bindings that reach that point; where one reaches itself (a loop), its own value is
        past the engine's depth, so the bindings cannot agree and the value is UNKNOWN."""
        if scopes[-1] is self.scopes[-1] and self.guarded(name):
            return [UNKNOWN]  # (CallValues._name: a test in force at the call reads it)
        # (at the call itself, none of its bindings read yet: those that reach it; the engine
        # reads a binding's own names where that binding is, which the screen does not place)
        found = self.syntax.reaching(name, scopes, None if seen else self.site)
        if found is None:
            return [UNKNOWN]
        bindings, owner = found
        values = [UNKNOWN]  # (a guard, a mutation, a parameter, bindings that disagree)
        for binding in bindings:
            if binding[0] == GLOBAL:
                raise _Maybe
            if binding[0] == VALUE and id(binding) not in seen:
                values += self._values(binding[1], owner, depth + 1, seen | {id(binding)})
        return _unchanged(_unique(values), lambda: self.changed(name))

    def _attribute(self, node: ast.Attribute, scopes: tuple) -> object:
        """``CallValues.value`` of an attribute: an enum member or a dtype, where the dotted
        name qualifies."""
        qualified = self._qualify(node, scopes)
        if qualified is None:
            return UNKNOWN
        owner, _, member = qualified.rpartition(".")
        enum = self.enums.get(owner)
        if enum is not None:
            return enum.member(member) if member in enum.members else UNKNOWN
        return scalar_ref(Ref(qualified))

    def _made(self, call: ast.Call, scopes: tuple, depth: int, seen: frozenset) -> list:
        """``CallValues._made``: a tensor, device, record or dict the call makes."""
        func = call.func
        qualified = self._qualify(func, scopes)
        if isinstance(func, ast.Attribute) and qualified is None:
            bases = self._values(func.value, scopes, depth + 1, seen)
            if not any(isinstance(base, Tensor) for base in bases):
                return [UNKNOWN]
            return _unique([tensor_method(base, func.attr, args) if isinstance(base, Tensor) else UNKNOWN
                            for base, args in itertools.product(bases, self._arguments(call, scopes, depth, seen))])
        if qualified is None and isinstance(func, ast.Name) and func.id == "dict" \
                and self.syntax.lookup("dict", scopes) is None:
            qualified = BUILTIN_DICT
        if not makes(qualified, self.records):
            return [UNKNOWN]
        return _unique([made_by(qualified, self.records, args) for args in self._arguments(call, scopes, depth, seen)])

    def _arguments(self, call: ast.Call, scopes: tuple, depth: int, seen: frozenset) -> list[list]:
        """Each combination of ``CallValues._argument`` pairs (keyword or None, value) the call's
        arguments may have, positional ones first (as Python requires, bar a ``*``)."""
        parts = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                parts.append([("*", UNKNOWN)])
            else:
                parts.append([(None, v) for v in self._values(arg, scopes, depth + 1, seen)])
        for keyword in call.keywords:
            if keyword.arg is None:  # ``**kw``
                parts.append([("*", UNKNOWN)])
            else:
                parts.append([(keyword.arg, v) for v in self._values(keyword.value, scopes, depth + 1, seen)])
        return [list(items) for items in _product(parts)]

    def _qualify(self, node: ast.expr, scopes: tuple) -> str | None:
        qualified = self.syntax.qualify(node, scopes)
        if qualified is UNSURE:
            raise _Maybe
        return qualified


class TextValues(AstValues):
    """:class:`AstValues` before the file's ast is read (the text screen): a name's values are
    those the file's statements ``name = value`` assign, in any scope (screen/calls.py
    ``FileFacts.assigned_values``: a superset of the bindings that reach the call, each
    value parsed alone); where the text cannot show what the engine would read (a binding
    it cannot read, a name an import or ``global`` may bind, a call the engine may read
    (``may_know``: checks/fails_when/check.py ``_may_know``), a dotted name that may qualify), MAYBE."""

    def __init__(self, facts, may_know):
        self.facts, self.may_know = facts, may_know
        self.scopes, self.site, self.records, self.enums = (), None, {}, {}

    def _name(self, name: str, scopes: tuple, depth: int, seen: frozenset) -> list:
        if self.facts.may_qualify(name):
            raise _Maybe
        values = [UNKNOWN]
        for value in self.facts.assigned_values(name.encode()):  # (parsed once: ``seen`` holds their ids)
            if value is None:
                raise _Maybe
            if id(value) not in seen:
                values += self._values(value, scopes, depth + 1, seen | {id(value)})
        return _unchanged(_unique(values), lambda: self.facts.method_called_on(name))

    def _attribute(self, node: ast.Attribute, scopes: tuple) -> object:
        dotted = ast_dotted_name(node)
        if dotted is not None and self.facts.may_qualify(dotted.partition(".")[0]):
            raise _Maybe  # (an enum member or a dtype, where its head is imported)
        return UNKNOWN

    def _made(self, call: ast.Call, scopes: tuple, depth: int, seen: frozenset) -> list:
        if self.may_know(call):
            raise _Maybe
        return [UNKNOWN]


def _unchanged(values: list, changed) -> list:
    """A name's values, where the file changes it in place (``changed()``: a method is called
    on it, screen/calls.py ``FileFacts.method_called_on``, asked only where it matters): the engine
    then gives it no value but a tensor whose shape nothing changes (checks/fails_when/check.py
    ``CallValues._name``), so only its tensors remain beside UNKNOWN."""
    kept = [value for value in values if value is UNKNOWN or isinstance(value, Tensor)]
    return kept if len(kept) < len(values) and changed() else values


def _arithmetic(op_type, left, right) -> object:
    try:
        return arithmetic(op_type, left, right)
    except (ArithmeticError, ValueError, MemoryError):
        return UNKNOWN


def _product(parts: list[list]) -> list[tuple]:
    total = 1
    for part in parts:
        total *= len(part)
        if total > MAX_CANDIDATES:
            raise _Maybe
    return list(itertools.product(*parts))


def _unique(values: list) -> list:
    """The values without repeats (compared by identity and ``equal``), at most MAX_CANDIDATES."""
    kept: list = []
    for value in values:
        if not any(value is other or _same(value, other) for other in kept):
            kept.append(value)
    if len(kept) > MAX_CANDIDATES:
        raise _Maybe
    return kept


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and equal(a, b) is True
