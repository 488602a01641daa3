"""The conditions in force at each site, and the negative tests that call a bad value on
purpose; a collector for the one walk (see :func:`sglang_lint.analysis.walk.walk`).

* Guards: the tests of the enclosing ``if``/``while``/conditional expression/``and``/``or``,
  and what earlier statements of the block established (``if x is None: return``, ``assert``).
  A check does not guess at a value a guard in force tests (checks/base.guarded_on).
* Expected raises: nothing inside ``with pytest.raises(...)`` or ``self.assertRaises(...)`` is
  a site, and a bad call bound to a name such a block reads is deliberate (:func:`deliberate`).
"""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.screen.ast_scopes import EXPECTED_RAISE_NAMES  # (the screen's look at a call reads the same names)
from sglang_lint.analysis.bindings import BindingCollector, Scope, Where
from sglang_lint.analysis.site import Guard, Site
from sglang_lint.analysis.syntax import callee_name, reads

EXIT_STATEMENTS = frozenset({"Return", "Raise", "Continue", "Break"})  # LibCST's classes, by name


class GuardCollector:
    def __init__(self, bindings: BindingCollector):
        self.bindings = bindings
        self.branches: list[Guard] = []  # conditions of the enclosing if/while/and/or
        self.suites: list[list[Guard]] = [[]]  # early exits and asserts seen so far, per block
        self.expected_raise_depth = 0
        self.expected_raise_calls: list[cst.Call] = []
        self.raise_withs: list[cst.With] = []
        self.raise_tries: list[cst.Try] = []
        # The outermost expected-raise blocks (a ``with`` or the ``assertRaises`` call itself).
        self.raise_blocks: list[tuple[cst.CSTNode, Scope, Where]] = []

    def in_force(self) -> tuple[Guard, ...]:
        return tuple(self.branches) + tuple(g for suite in self.suites for g in suite)

    # --- blocks -----------------------------------------------------------------------
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.suites.append([])

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.suites.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.suites.append([])

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.suites.pop()

    # --- conditions -------------------------------------------------------------------
    def visit_While_body(self, node: cst.While) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_While_body(self, node: cst.While) -> None:
        self.branches.pop()

    def visit_If_body(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_If_body(self, node: cst.If) -> None:
        self.branches.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_If_orelse(self, node: cst.If) -> None:
        self.branches.pop()

    def leave_If(self, node: cst.If) -> None:
        # ``if x is None: return`` guards the rest of the block, and so does
        # ``if x is None: x = default()`` (the tested name is set again).
        if node.orelse is None and (_ends_in_exit(node.body) or _rebinds_tested_name(node)):
            self.suites[-1].append(Guard(node.test, False))

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.append(Guard(node.left, isinstance(node.operator, cst.And)))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.pop()

    def visit_Assert(self, node: cst.Assert) -> None:
        self.suites[-1].append(Guard(node.test, True))

    # --- expected raises --------------------------------------------------------------
    def _enter_expected_raise(self, node: cst.CSTNode) -> None:
        if not self.expected_raise_depth:
            self.raise_blocks.append((node, self.bindings.scope, self.bindings.where()))
        self.expected_raise_depth += 1

    def visit_With_body(self, node: cst.With) -> None:
        if any(callee_name(item.item) in EXPECTED_RAISE_NAMES for item in node.items):
            self._enter_expected_raise(node)
            self.raise_withs.append(node)

    def leave_With_body(self, node: cst.With) -> None:
        if self.raise_withs and self.raise_withs[-1] is node:
            self.raise_withs.pop()
            self.expected_raise_depth -= 1

    def visit_Try_body(self, node: cst.Try) -> None:
        # ``try: f(bad) except E: ... else: raise AssertionError(...)``: a negative test
        if node.orelse is not None and _ends_in_raise(node.orelse.body):
            self._enter_expected_raise(node)
            self.raise_tries.append(node)

    def leave_Try_body(self, node: cst.Try) -> None:
        if self.raise_tries and self.raise_tries[-1] is node:
            self.raise_tries.pop()
            self.expected_raise_depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if callee_name(node) in EXPECTED_RAISE_NAMES:
            self._enter_expected_raise(node)
            self.expected_raise_calls.append(node)

    def leave_Call(self, node: cst.Call) -> None:
        if self.expected_raise_calls and self.expected_raise_calls[-1] is node:
            self.expected_raise_calls.pop()
            self.expected_raise_depth -= 1


def deliberate(guards: GuardCollector, site: Site) -> bool:
    """Is the call a negative test's deliberate bad value? Its result is bound to a name
    (``args = ServerArgs(...)``) that an expected-raise block, reached by that very binding,
    reads: ``with pytest.raises(...): args.check()``, ``self.assertRaises(E, args.check)``."""
    model = site.model
    for name, binding in model.bound_calls.get(site.node, ()):
        for block, scope, where in guards.raise_blocks:
            found = model.reaching(name, scope, where)
            if found is not None and binding in found[0] and reads(block, name):
                return True
    return False


def _ends_in_exit(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.IndentedBlock):
        if not body.body:
            return False
        last = body.body[-1]
        if isinstance(last, cst.SimpleStatementLine):
            return any(type(s).__name__ in EXIT_STATEMENTS for s in last.body)
        return False
    if isinstance(body, cst.SimpleStatementSuite):
        return any(type(s).__name__ in EXIT_STATEMENTS for s in body.body)
    return False


def _ends_in_raise(body: cst.BaseSuite) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    if not statements:
        return False
    last = statements[-1]
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
    return any(isinstance(small, cst.Raise) for small in smalls)


def _rebinds_tested_name(node: cst.If) -> bool:
    tested: set[str] = set()
    stack: list[cst.CSTNode] = [node.test]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            tested.add(current.value)
        stack.extend(current.children)
    statements = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    for statement in statements:
        smalls = statement.body if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
        for small in smalls:
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(isinstance(t, cst.Name) and t.value in tested for t in targets):
                    return True
    return False
