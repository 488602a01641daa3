"""Guards: what the test before a ``raise`` demands of a parameter of its function.

``if mode not in ("a", "b"): raise``, ``if x is None: raise``, an ``if``/``elif`` chain
whose ``else`` raises, a ``match`` whose last case raises: each gives the parameter and its
:class:`Constraint`; any other shape raises :class:`Skip`, whose message is the reason
counted. A compared value is read as the engine reads it, :func:`sglang_lint.text.pynames.ast_literal`
(a scalar or None); :func:`value_set` reads the tuple/list/set/dict-keys of such values a
guard compares with, from the guard or a constant of the same module only.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from sglang_lint.checks.allowed_values import folded
from sglang_lint.checks.base import condition_passes
from sglang_lint.checks.value_tests import KNOWN_TYPES, is_instance_literal, type_alternatives, within_bounds
from sglang_lint.derive.source.tree import Module, walk_all
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal, literal_in


class Skip(Exception):
    """This raise site cannot become a precise rule; the message says why."""


@dataclass(frozen=True)
class Constraint:
    """What the guard demands of the parameter for the call not to raise."""

    # allowed-values | forbidden-values | not-none | must-be-none | truthy | falsy | number-range | instance-of
    kind: str
    # number-range: ((op, bound), ...), each of which a number must satisfy;
    # instance-of: (types it must be one of, types it must not be)
    values: tuple = ()
    none_allowed: bool = False
    # allowed-values: how sglang folds a string before it compares it (checks/allowed_values.FOLDS:
    # ``MAP.get(x.lower())``); anything but a string is then not judged
    fold: str | None = None

    def fails(self, value: object) -> bool:
        """Does a literal value (NOT_LITERAL: unknown) certainly make the guard raise?"""
        if value is NOT_LITERAL:
            return False
        if self.fold is not None:
            return isinstance(value, str) and not literal_in(folded(value, self.fold), self.values)
        if self.kind == "instance-of":
            types, not_types = self.values
            return (bool(types) and is_instance_literal(value, types) is False) or (
                bool(not_types) and is_instance_literal(value, not_types) is True)
        if self.kind == "falsy":
            return bool(value)
        if self.kind == "number-range":
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            return number and not within_bounds(value, self.values)
        return {
            "allowed-values": lambda: not (value is None and self.none_allowed) and not literal_in(value, self.values),
            "forbidden-values": lambda: literal_in(value, self.values),
            "not-none": lambda: value is None,
            "must-be-none": lambda: value is not None,
            "truthy": lambda: not value,
        }[self.kind]()

    def violation(self, parameter: str) -> str | None:
        """A Python expression of ``parameter`` that is true where the guard raises (for a
        fails-when path to leave those calls to this rule); None for ``instance-of``."""
        values = _display(self.values) if self.kind in ("allowed-values", "forbidden-values") else ""
        if self.fold is not None:
            return f"isinstance({parameter}, str) and {parameter}.{self.fold}() not in {values}"
        if self.kind == "allowed-values":
            return f"{parameter} is not None and {parameter} not in {values}" if self.none_allowed \
                else f"{parameter} not in {values}"
        if self.kind == "number-range":
            return "not (" + " and ".join(f"{parameter} {op} {bound!r}" for op, bound in self.values) + ")"
        return {"forbidden-values": f"{parameter} in {values}", "not-none": f"{parameter} is None",
                "must-be-none": f"{parameter} is not None", "truthy": f"not {parameter}",
                "falsy": f"bool({parameter})"}.get(self.kind)

    def describe(self, parameter: str) -> str:
        if self.kind == "instance-of":
            types, not_types = self.values
            return " and ".join([f"isinstance({parameter}, ({', '.join(types)}))"] * bool(types) + [
                f"not isinstance({parameter}, ({', '.join(not_types)}))"] * bool(not_types))
        if self.kind == "falsy":
            return f"{parameter} is falsy"
        if self.kind == "number-range":
            return " and ".join(f"{parameter} {op} {bound!r}" for op, bound in self.values)
        shown = ", ".join(repr(v) for v in self.values)
        if self.fold is not None:
            parameter = f"{parameter}.{self.fold}()"
        return {
            "allowed-values": f"{parameter} in ({shown}{', None' if self.none_allowed else ''})",
            "forbidden-values": f"{parameter} not in ({shown})",
            "not-none": f"{parameter} is not None",
            "must-be-none": f"{parameter} is None",
            "truthy": f"{parameter} is truthy",
        }[self.kind]


def _display(values: tuple) -> str:
    """A tuple display of literals, valid Python (a one-element tuple keeps its comma)."""
    return "(" + ", ".join(repr(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _literal(node: ast.expr) -> object:
    """The scalar or None ``node`` is written as; Skip for anything else."""
    value = ast_literal(node)
    if value is NOT_LITERAL:
        raise Skip("compares with a value that is not a literal")
    return value


def value_set(node: ast.expr, module: Module, depth: int = 0) -> tuple[tuple, bool]:
    """The literals of a tuple/list/set (or a module constant bound once to one, or the
    keys of a literal dict), and whether None is among them."""
    if isinstance(node, ast.Name) and node.id in module.constants and depth < 3:
        return value_set(module.constants[node.id], module, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        if len(node.args) == 1 and not node.keywords:
            return value_set(node.args[0], module, depth + 1)
        raise Skip("the allowed set is built at run time")
    if isinstance(node, ast.Dict):
        elements = node.keys
        if any(k is None for k in elements):
            raise Skip("the allowed set is built at run time")
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        elements = node.elts
    elif isinstance(node, ast.Name):
        raise Skip("the allowed set is a name bound at run time or more than once (registry lookup)")
    else:
        raise Skip("the allowed set is built at run time")
    values = [_literal(e) for e in elements]
    none = None in values
    values = [v for v in values if v is not None]
    if not values:
        raise Skip("empty allowed set")
    return tuple(dict.fromkeys(values)), none


@dataclass(frozen=True)
class Lookup:
    """``found = MAP.get(p)`` (or ``MAP.get(p.lower())``) on a parameter, before a guard that
    raises when nothing is found: the allowed values are MAP's keys, less those whose value
    fails the guard too. ``skipped``: why no rule can be made of such a guard."""

    parameter: str
    keys: tuple = ()
    fold: str | None = None
    falsy: tuple = ()  # keys whose value is certainly falsy (``if not found: raise`` raises on them)
    none: tuple = ()  # keys whose value is None (``if found is None: raise`` raises on them)
    skipped: str | None = None

    def constraint(self, spelling: str) -> Constraint:
        """What passes ``if not found`` (``spelling`` "falsy") or ``if found is None`` ("none")."""
        if self.skipped is not None:
            raise Skip(self.skipped)
        failing = self.falsy if spelling == "falsy" else self.none
        values = tuple(k for k in self.keys if not any(literal_in(k, (f,)) for f in failing))
        none = None in values and self.fold is None  # (a folded None raises AttributeError)
        values = tuple(v for v in values if v is not None)
        if not values:
            raise Skip("empty allowed set")
        return Constraint("allowed-values", values, none, self.fold)


@dataclass
class Params:
    """What a function's parameters are, and what stands for them at a statement."""

    positional: list[str]
    keyword_only: list[str]
    aliases: dict[str, str]  # "self.x" -> parameter
    dead: set[str]
    # In a helper the function calls: the helper's parameter -> the function's it was given.
    renames: dict[str, str] = field(default_factory=dict)
    # A local name bound to a registry lookup on a parameter (derive/reading/lookups.py) -> the lookup
    lookups: dict[str, Lookup] = field(default_factory=dict)

    def looked_up(self, test: ast.expr, raising: bool = True) -> tuple[str, Constraint] | None:
        """A test of a looked-up value: (parameter, what passes) where ``test`` holding raises
        (``not found``, ``found is None``), or, ``raising=False``, where it failing raises
        (``if found: ... else: raise``); None for any other test."""
        name, spelling = _lookup_test(test, raising)
        lookup = self.lookups.get(name) if name is not None else None
        if lookup is None:
            return None
        return lookup.parameter, lookup.constraint(spelling)

    def subject(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name) and node.id in self.renames:
            return self.renames[node.id]
        if isinstance(node, ast.Name) and node.id in self.all and node.id not in self.dead:
            return node.id
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.aliases.get(f"{node.value.id}.{node.attr}")
        return None

    @property
    def all(self) -> set[str]:
        return set(self.positional) | set(self.keyword_only)


def _lookup_test(test: ast.expr, raising: bool) -> tuple[str | None, str]:
    """(the name tested, "falsy" or "none") of ``not found`` / ``found is None`` (``raising``),
    or ``found`` / ``found is not None``; (None, "") for any other test."""
    if raising and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
            and isinstance(test.operand, ast.Name):
        return test.operand.id, "falsy"
    if not raising and isinstance(test, ast.Name):
        return test.id, "falsy"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and is_none(test.comparators[0]):
        nothing = (ast.Is, ast.Eq) if raising else (ast.IsNot, ast.NotEq)
        if isinstance(test.ops[0], nothing):
            return test.left.id, "none"
    return None, ""


def constraint_of(test: ast.expr, params: Params, module: Module) -> tuple[str, Constraint]:
    """(parameter, what it must satisfy) for ``if test: raise``; Skip otherwise."""
    subject, constraint = _constraint_of(test, params, module)
    if constraint.kind == "instance-of" and not any(constraint.fails(v) for v in LITERALS):
        raise Skip("a type check no literal fails")
    return subject, constraint


def _constraint_of(test: ast.expr, params: Params, module: Module) -> tuple[str, Constraint]:
    looked_up = params.looked_up(test)
    if looked_up is not None:  # ``found = MAP.get(p)`` before it
        return looked_up
    checked = _isinstance_of(test, params, module)
    if checked is not None:  # raises when it is one of these types
        return checked[0], Constraint("instance-of", ((), checked[1]))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        subject = params.subject(inner)
        if subject:
            return subject, Constraint("truthy")
        checked = _isinstance_of(inner, params, module)
        if checked is not None:  # raises unless it is one of these types
            return checked[0], Constraint("instance-of", (checked[1], ()))
        name, positive = _positive(inner, params, module)
        return name, positive
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in FLIPPED:
        if params.subject(test.left) is None and params.subject(test.comparators[0]) is not None:
            # ``0 >= n``: the parameter on the right; read as ``n <= 0``.
            test = ast.Compare(test.comparators[0], [FLIPPED[type(test.ops[0])]()], [test.left])
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        subject = params.subject(test.left)
        if subject is None:
            if isinstance(test.left, ast.Name) and test.left.id in params.dead:
                raise Skip("the parameter is rebound before the guard")
            raise Skip("the guard tests an expression, not the parameter itself")
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, ast.NotIn):
            values, none = value_set(right, module)
            return subject, Constraint("allowed-values", values, none)
        if isinstance(op, ast.In):
            values, none = value_set(right, module)
            if none:
                raise Skip("forbids None among other values")
            return subject, Constraint("forbidden-values", values)
        if isinstance(op, (ast.Is, ast.Eq)) and is_none(right):
            return subject, Constraint("not-none")
        if isinstance(op, (ast.IsNot, ast.NotEq)) and is_none(right):
            return subject, Constraint("must-be-none")
        if isinstance(op, ast.NotEq):
            return subject, Constraint("allowed-values", (_literal_or_skip(right, module),))
        if isinstance(op, ast.Eq):
            return subject, Constraint("forbidden-values", (_literal_or_skip(right, module),))
        if type(op) in PASSING_WHEN_NOT:
            return subject, Constraint("number-range", ((PASSING_WHEN_NOT[type(op)], _bound(right, module)),))
        raise Skip("compares by identity")
    if isinstance(test, ast.BoolOp):
        parts = []
        for value in test.values:
            try:
                parts.append(constraint_of(value, params, module))
            except Skip:
                if isinstance(test.op, ast.And):
                    raise Skip("the guard is and-ed with another condition") from None
        if not parts:
            raise Skip("no part of the guard tests the parameter alone")
        if isinstance(test.op, ast.Or):
            if len(parts) == len(test.values) and len({n for n, _ in parts}) == 1 and all(
                    c.kind == "number-range" for _, c in parts):
                # ``n < 0 or n > 8``: a number passes only inside every bound.
                return parts[0][0], Constraint("number-range", tuple(b for _, c in parts for b in c.values))
            if len(parts) == len(test.values) == 2 and len({n for n, _ in parts}) == 1 and all(
                    c.kind == "instance-of" for _, c in parts) and sum(bool(c.values[0]) for _, c in parts) <= 1:
                # ``not isinstance(v, Sequence) or isinstance(v, str)``: one of these, none of those.
                types = tuple(t for _, c in parts for t in c.values[0])
                return parts[0][0], Constraint("instance-of", (types, tuple(t for _, c in parts for t in c.values[1])))
            return parts[0]  # each disjunct alone raises: the first is certain
        names = {name for name, _ in parts}
        kinds = {c.kind for _, c in parts}
        if len(names) == 1 and kinds == {"allowed-values"}:
            values = tuple(dict.fromkeys(v for _, c in parts for v in c.values))
            return parts[0][0], Constraint("allowed-values", values, any(c.none_allowed for _, c in parts))
        raise Skip("the guard is and-ed with another condition")
    if params.subject(test):
        return params.subject(test), Constraint("falsy")
    raise Skip("the guard does not test the parameter directly")


BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "list", "tuple", "dict", "set", "frozenset", "bytes",
                           "bytearray", "complex", "object"})


def _isinstance_of(test: ast.expr, params: Params, module: Module) -> tuple[str, tuple[str, ...]] | None:
    """``isinstance(p, T)`` on a parameter: (p, T's qualified names); Skip when T holds a class
    whose relation to a literal is not known; None for any other test."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords):
        return None
    subject = params.subject(test.args[0])
    if subject is None:
        return None
    spec = test.args[1]
    names = [_type_name(e, module) for e in type_alternatives(spec)]
    if not names or any(n is None or n not in KNOWN_TYPES for n in names):
        raise Skip("a type check against a class a literal may belong to")
    if all(is_instance_literal(v, names) for v in LITERALS):
        raise Skip("a type check every literal passes")
    return subject, tuple(names)


LITERALS = ("text", 1, 1.5, True, None)  # one of each kind a call may write


_TYPE_MODULES = frozenset(name.split(".")[0] for name in KNOWN_TYPES if "." in name)


def _type_name(node: ast.expr, module: Module) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" \
            and len(node.args) == 1 and is_none(node.args[0]):
        return "NoneType"
    dotted = []
    while isinstance(node, ast.Attribute):
        dotted.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    head = module.imports.get(node.id)
    if head is None:
        if dotted and node.id in _TYPE_MODULES:  # ``import torch`` then ``torch.Tensor``
            head = node.id
        elif dotted or node.id not in BUILTIN_TYPES or node.id in module.definitions:
            return None
        else:
            head = node.id
    name = ".".join([head, *dotted])
    return name.removeprefix("builtins.")


def _positive(test: ast.expr, params: Params, module: Module) -> tuple[str, Constraint]:
    """``not (test)``: raises unless ``test`` holds; ``test`` says which values pass."""
    options = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    subject, values, none = None, [], False
    for option in options:
        if not (isinstance(option, ast.Compare) and len(option.ops) == 1):
            raise Skip("the guard does not test the parameter directly")
        name = params.subject(option.left)
        if name is None or (subject is not None and name != subject):
            raise Skip("the guard tests more than the parameter")
        subject = name
        op, right = option.ops[0], option.comparators[0]
        if isinstance(op, ast.In):
            found, has_none = value_set(right, module)
            values += found
            none |= has_none
        elif isinstance(op, ast.Eq):
            values.append(_literal_or_skip(right, module))
        else:
            raise Skip("the guard does not test the parameter directly")
    none |= None in values
    values = [v for v in values if v is not None]
    if not values:
        raise Skip("empty allowed set")
    return subject, Constraint("allowed-values", tuple(dict.fromkeys(values)), none)


# ``if n < bound: raise``: a number passes when ``n >= bound`` (the operator that passes).
PASSING_WHEN_NOT = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<"}
FLIPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def _bound(node: ast.expr, module: Module) -> int | float:
    """The number a range guard compares with (a literal or a module constant)."""
    value = _literal_or_skip(node, module)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Skip("compares by order with a value that is not a number")
    return value


_NEGATED = {ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot,
            ast.IsNot: ast.Is, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.LtE: ast.Gt, ast.Gt: ast.LtE}


def negated(test: ast.expr) -> ast.expr:
    """The test that raises for ``assert test``: ``x in S`` -> ``x not in S``, ``a and b`` ->
    ``not a or not b``, ``x is not None`` -> ``x is None``; ``not test`` otherwise."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.BoolOp):
        return ast.BoolOp(ast.Or() if isinstance(test.op, ast.And) else ast.And(), [negated(v) for v in test.values])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(ast.Not(), test)


def assert_as_raise(statement: ast.Assert) -> ast.Raise:
    """``assert test, msg`` as the ``raise AssertionError(msg)`` it is when ``test`` fails."""
    args = [statement.msg] if statement.msg is not None else []
    exc = ast.Call(ast.Name("AssertionError", ast.Load()), args, [])
    return ast.copy_location(ast.Raise(exc, None), statement)


@dataclass(frozen=True)
class Condition:
    """What must hold of another parameter for a guard to run: ``holds`` is ``in`` / ``not in``
    (its value among ``values``, None included where listed), ``truthy`` or ``falsy``."""

    parameter: str
    holds: str
    values: tuple = ()

    def passes(self, value: object) -> bool:
        return condition_passes(self.holds, self.values, value)

    def source(self) -> str:
        """The condition as a Python expression."""
        if self.holds in ("truthy", "falsy"):
            return self.parameter if self.holds == "truthy" else f"not {self.parameter}"
        if self.values == (None,):
            return f"{self.parameter} {'is' if self.holds == 'in' else 'is not'} None"
        return f"{self.parameter} {self.holds} {_display(self.values)}"

    def describe(self) -> str:
        if self.holds in ("truthy", "falsy"):
            return f"{self.parameter} is {self.holds}"
        return f"{self.parameter} {self.holds} ({', '.join(repr(v) for v in self.values)})"


def conditions_of(test: ast.expr, params: Params, module: Module) -> list[Condition]:
    """The conditions, each on one parameter, that ``test`` holding amounts to (an ``and`` of
    them); Skip when a part is not such a test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for value in test.values for c in conditions_of(value, params, module)]
    subject = params.subject(test)
    if subject is not None:
        return [Condition(subject, "truthy")]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and params.subject(test.operand):
        return [Condition(params.subject(test.operand), "falsy")]
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        subject = params.subject(test.left)
        op, right = test.ops[0], test.comparators[0]
        if subject is not None:
            if isinstance(op, (ast.Is, ast.IsNot)) and is_none(right):
                return [Condition(subject, "in" if isinstance(op, ast.Is) else "not in", (None,))]
            if isinstance(op, (ast.Eq, ast.NotEq)):
                value = _literal_or_skip(right, module)
                return [Condition(subject, "in" if isinstance(op, ast.Eq) else "not in", (value,))]
            if isinstance(op, (ast.In, ast.NotIn)):
                values, none = value_set(right, module)
                return [Condition(subject, "in" if isinstance(op, ast.In) else "not in",
                                  values + ((None,) if none else ()))]
    raise Skip("the guard's condition is not a test of parameters against literals")


def _literal_or_skip(node: ast.expr, module: Module) -> object:
    if isinstance(node, ast.Name) and node.id in module.constants:
        node = module.constants[node.id]
    return _literal(node)


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def chain_constraint(statement: ast.If, params: Params, module: Module) -> tuple[str, Constraint] | None:
    """``if p == a: ... elif p in (b, c): ... else: raise``: p must be one of a, b, c."""
    looked_up = params.looked_up(statement.test, raising=False)
    if looked_up is not None:  # ``if found: ... else: raise`` after ``found = MAP.get(p)``
        if len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.If):
            raise Skip("an if/elif chain tests a registry lookup and more")
        return looked_up if ends_in_raise(statement.orelse) else None
    subject, values, none = None, [], False
    current: ast.stmt = statement
    while isinstance(current, ast.If):
        name, constraint = _positive(current.test, params, module)
        if subject is not None and name != subject:
            raise Skip("the if/elif chain tests more than one parameter")
        subject = name
        values += constraint.values
        none |= constraint.none_allowed
        orelse = current.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):
            current = orelse[0]
            continue
        if orelse and ends_in_raise(orelse):
            return subject, Constraint("allowed-values", tuple(dict.fromkeys(values)), none)
        return None
    return None


def match_constraint(statement: ast.Match, params: Params) -> tuple[str, Constraint] | None:
    subject = params.subject(statement.subject)
    if subject is None or not statement.cases:
        return None
    last = statement.cases[-1]
    if not (isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None and last.guard is None):
        return None
    if not ends_in_raise(last.body):
        return None
    values = []
    for case in statement.cases[:-1]:
        if case.guard is not None:
            raise Skip("a match case has a guard")
        patterns = case.pattern.patterns if isinstance(case.pattern, ast.MatchOr) else [case.pattern]
        for pattern in patterns:
            if isinstance(pattern, ast.MatchValue):
                values.append(_literal(pattern.value))
            elif isinstance(pattern, ast.MatchSingleton) and pattern.value is None:
                values.append(None)
            else:
                raise Skip("a match case is not a literal")
    none = None in values
    values = [v for v in values if v is not None]
    return subject, Constraint("allowed-values", tuple(dict.fromkeys(values)), none)


def ends_in_raise(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise) and not any(
        isinstance(n, ast.Return) for s in body for n in walk_all(s)
    )


def raise_message(raise_node: ast.Raise, plain: bool = False) -> tuple[str, str]:
    """The exception's name and its message as written, each f-string placeholder with its
    conversion and format spec (``plain``: the expression alone, as rule keys and names read it)."""
    exc = raise_node.exc
    if exc is None:
        return "raise", ""
    func = exc.func if isinstance(exc, ast.Call) else exc
    name = ast.unparse(func) if func is not None else "?"
    if isinstance(exc, ast.Call) and exc.args:
        first = exc.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return name, first.value
        if isinstance(first, ast.JoinedStr):
            return name, "".join(v.value if isinstance(v, ast.Constant) else _field(v, plain) for v in first.values)
        return name, ast.unparse(first)
    return name, ""


def _field(value: ast.FormattedValue, plain: bool = False) -> str:
    """An f-string's placeholder as written, its conversion and format kept (``{x!r}``,
    ``{x:.2f}``): how the value is shown depends on them."""
    if plain:
        return "{" + ast.unparse(value.value) + "}"
    conversion = f"!{chr(value.conversion)}" if value.conversion > 0 else ""
    spec = ""
    if value.format_spec is not None:
        parts = value.format_spec.values
        # a spec computed at run time (``{x:{width}}``) is written as one no value takes
        spec = ":" + ("".join(p.value for p in parts) if all(isinstance(p, ast.Constant) for p in parts) else "?")
    return "{" + ast.unparse(value.value) + conversion + spec + "}"


def normalize_message(text: str) -> str:
    """A message as written, with its placeholders blanked: ``{x=}`` and ``x={x!r}`` agree."""
    text = re.sub(r"\{([^{}]*?)=\}", lambda m: m.group(1).strip() + "={}", text)
    text = re.sub(r"\{[^{}]*\}", "{}", text)
    return re.sub(r"\s+", " ", text).strip()


def shown_message(exception: str, message: str) -> str:
    """What a rule records as the message: the text, or ``Exc()`` for a bare raise."""
    return message or f"{exception}()"


CHECK_VERBS = re.compile(r"^_*(check|require|ensure|assert|raise|verify|validate|fail|expect)", re.IGNORECASE)


def is_check_helper(function: ast.FunctionDef) -> bool:
    """A function that is only guards and named for it (``_nvmlCheckReturn(ret)``,
    ``_require_available(flag)``): sglang calls it with a failing value on purpose."""
    if not CHECK_VERBS.match(function.name) and not re.search(r"[cC]heck|[rR]equire", function.name):
        return False
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    guards = [s for s in body if isinstance(s, ast.If) and ends_in_raise(s.body) and not s.orelse]
    rest = [s for s in body if s not in guards]
    return bool(guards) and all(isinstance(s, (ast.Return, ast.Pass)) for s in rest)
