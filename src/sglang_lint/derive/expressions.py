"""Helpers over the path expression derive/paths.py writes: a test's negation, the tests an
``and`` is made of, and which of sglang's names it may read."""

from __future__ import annotations

import ast


_INVERSE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
            ast.IsNot: ast.Is}


def negate(test: ast.expr) -> ast.expr:
    """``not test``, written plainly: ``not not x`` is ``x``, ``not a == b`` is ``a != b`` (only
    where the two read the same for every value: never an order, which NaN breaks)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _INVERSE:
        return ast.Compare(test.left, [_INVERSE[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def conjuncts(expression: ast.expr) -> frozenset[str]:
    """The tests an ``and`` is made of (in any order), as text."""
    if isinstance(expression, ast.BoolOp) and isinstance(expression.op, ast.And):
        return frozenset().union(*(conjuncts(value) for value in expression.values))
    return frozenset({ast.dump(expression)})


def classes_only_tested(node: ast.expr, as_type: bool = False, members: frozenset = frozenset()) -> bool:
    """Is every sglang class the path names (records.PlainClasses) a type an isinstance tests
    against, or an enum one of whose ``members`` it reads? when.py reads them there alone."""
    if isinstance(node, ast.Attribute) and ast.unparse(node) in members:
        return True
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id == "sglang":
        return as_type
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
            and len(node.args) == 2 and not node.keywords:
        types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        return classes_only_tested(node.args[0], members=members) and all(
            classes_only_tested(t, True) for t in types)
    return all(classes_only_tested(child, members=members) for child in ast.iter_child_nodes(node))


def rooted_at_torch(node: ast.expr) -> bool:
    """``torch`` or a dotted name under it (``torch.cuda``, ``torch.version.hip``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "torch"
