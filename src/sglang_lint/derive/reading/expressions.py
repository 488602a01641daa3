"""Helpers over the path expression derive/reading/paths.py writes: a test's negation, the tests an
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
    against, or an enum one of whose ``members`` it reads? checks/fails_when/language.py reads them there alone."""
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


# What a tensor or builtin gives back that is never changed in place: a number, a size, a dtype.
_IMMUTABLE_READS = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "itemsize"})
_IMMUTABLE_CALLS = frozenset({"size", "dim", "numel", "element_size", "ndimension", "stride", "len", "int", "float",
                              "bool", "str", "abs", "min", "max", "round"})


def immutable(value: ast.expr | None, depth: int = 0) -> bool:
    """Is ``value`` (an env expression) certainly a number, a string, a size or a dtype, which no
    call it is handed to can change?"""
    if value is None or depth > 8:
        return False
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
        return all(immutable(child, depth + 1) for child in ast.iter_child_nodes(value)
                   if isinstance(child, ast.expr))
    if isinstance(value, ast.Attribute):
        return value.attr in _IMMUTABLE_READS
    if isinstance(value, ast.Subscript):
        return immutable(value.value, depth + 1)
    if isinstance(value, ast.Tuple):
        return all(immutable(e, depth + 1) for e in value.elts)
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        return name in _IMMUTABLE_CALLS
    return False


def held_by_self(func: ast.Attribute, self_name: str | None) -> str | None:
    """``self.a`` for a call of ``self.a(...)`` or ``self.a.b...m(...)``: an object an attribute
    holds (when ``a`` is an attribute ``__init__`` set, not a method of the class)."""
    node, first = func, None
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        first = node.attr if isinstance(node, ast.Attribute) else None
        node = node.value
    return f"self.{first}" if first is not None and isinstance(node, ast.Name) and node.id == self_name else None
