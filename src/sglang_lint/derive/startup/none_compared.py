"""Failures that are not a ``raise``: start-up code that orders ``None`` against a number.

``if self.speculative_eagle_topk > 1:`` raises ``TypeError`` where the launch leaves the field
``None`` (a companion flag left out, so sglang's own default never filled it), as surely as an
assert would. The start-up run (derive/startup/run.py) hands each statement it runs here before
running it; every comparison ``<``, ``<=``, ``>``, ``>=`` the statement certainly evaluates,
one side a number written in sglang's source and the other a value the launch decides, is a
site: the path to the statement, the operands before it that let it run (``a and x > 1``: ``a``),
and ``x is None``. Python's own message is the site's message.

Never a site: a comparison in a loop or under a ``try`` that catches ``TypeError``, inside a
lambda or a comprehension, one of a chain past its first pair, one whose other side is not a
number literal (its type would be guessed), or a later comparison of a value an earlier site
already orders on the way to it (the launch fails at the first)."""

from __future__ import annotations

import ast

from sglang_lint.checks.fails_when.conditions import is_query, query_root
from sglang_lint.checks.fails_when.grammar import BUILTINS, MODULES
from sglang_lint.derive.source.exceptions import caught
from sglang_lint.derive.reading.expressions import negate
from sglang_lint.derive.reading.symbolic import MAX_CONDITION, UNKNOWN_NAME, conjunction, is_unknown, size

ORDERINGS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
EXCEPTION = "TypeError"


class NoneCompared:
    """The start-up run's sites of ``None`` ordered against a number (a part of
    derive/startup.StartupRun)."""

    def none_compared(self, statement: ast.stmt) -> None:
        if self.in_loop or self.checking or caught(EXCEPTION, self.catching):
            return
        if isinstance(statement, (ast.If, ast.Assert)):
            evaluated = statement.test
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)):
            evaluated = statement.value
        else:
            return
        if evaluated is not None and any(isinstance(n, ast.Compare) for n in ast.walk(evaluated)):
            self._compared_in(statement, evaluated, [])

    def _compared_in(self, statement: ast.stmt, node: ast.expr, before: list) -> None:
        """Each comparison ``node`` certainly evaluates once ``before`` (symbolic tests) hold."""
        if isinstance(node, ast.BoolOp):
            ran = list(before)
            for value in node.values:
                self._compared_in(statement, value, ran)
                test = self.expr(value)
                ran = ran + [test if isinstance(node.op, ast.And) else negate(test)]
        elif isinstance(node, ast.UnaryOp):
            self._compared_in(statement, node.operand, before)
        elif isinstance(node, ast.IfExp):
            self._compared_in(statement, node.test, before)
            test = self.expr(node.test)
            self._compared_in(statement, node.body, before + [test])
            self._compared_in(statement, node.orelse, before + [negate(test)])
        elif isinstance(node, ast.Compare):
            self._compared_in(statement, node.left, before)
            self._ordered(statement, node, before)

    def _ordered(self, statement: ast.stmt, node: ast.Compare, before: list) -> None:
        symbol = ORDERINGS.get(type(node.ops[0]))
        if symbol is None:
            return
        left, right = self.expr(node.left), self.expr(node.comparators[0])
        for value, number, value_first in ((left, right, True), (right, left, False)):
            kind = _number_kind(number)
            if kind is None or not _launch_decides(value):
                continue
            types = ("NoneType", kind) if value_first else (kind, "NoneType")
            is_none = ast.Compare(value, [ast.Is()], [ast.Constant(None)])
            guards = [g for f in self.frames for g in f.guards]
            way = list(self.path) + guards + before
            if _not_none_on(value, way) or self._met_before(value, way):
                continue
            condition = conjunction(way + [is_none])
            if size(condition) > MAX_CONDITION:
                continue
            self.add_site(statement, node.lineno, EXCEPTION,
                          f"'{symbol}' not supported between instances of '{types[0]}' and '{types[1]}'", condition)

    def _met_before(self, value: ast.expr, way: list) -> bool:
        """Whether a site already orders ``value`` on a way this one extends (each test on it
        the same object: the run appends its tests to one path), and if not, keep this one."""
        met = self.__dict__.setdefault("_none_sites", {}).setdefault(_key(value), ([], value))[0]
        tests = {id(test) for test in way}
        if any(earlier <= tests for earlier in met):
            return True
        met.append(frozenset(tests))
        return False


SMALL = 64  # a value of at most this many nodes is known by its text, a larger one by its identity


def _key(value: ast.expr):
    """What tells two values apart: the text of a small one (the run rebuilds a field read in a
    test); a large one, its identity (its text would repeat every shared part)."""
    return ast.dump(value) if size(value) <= SMALL else id(value)


def _not_none_on(value: ast.expr, way: list) -> bool:
    """Whether a test on the way says ``value`` is no ``None`` (``x is not None``, ``x`` true)."""
    key = _key(value)
    for test in way:
        for part in test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else (test,):
            if part is value or _key(part) == key or isinstance(part, ast.Compare) and len(part.ops) == 1 \
                    and isinstance(part.ops[0], ast.IsNot) and isinstance(part.comparators[0], ast.Constant) \
                    and part.comparators[0].value is None and (part.left is value or _key(part.left) == key):
                return True
    return False


def _number_kind(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return type(node.value).__name__
    return None


def _launch_decides(value: ast.expr) -> bool:
    """A value that may be ``None`` for some launch: no literal, no number by its making, not the
    machine's (``torch.cuda.device_count()``), and it reads a name the launch sets (a field, an
    environment variable); where it also reads what the run does not know, the check decides
    whether the launch's way avoids it."""
    if isinstance(value, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)) or is_unknown(value):
        return False  # (arithmetic, a comparison, ``len(...)``: never ``None`` where they run)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in BUILTINS:
        return False
    root = query_root(value)
    if isinstance(root, ast.Name) and root.id in MODULES:  # ``torch.cuda.device_count()``: the machine's
        return False
    return any(isinstance(n, ast.Name) and not is_query(n) and n.id != UNKNOWN_NAME for n in ast.walk(value))
