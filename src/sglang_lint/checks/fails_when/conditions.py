"""Which tests of a condition are one test: a named part of a condition (:class:`Bound`), the
key that names a test wherever it is read (:func:`test_key`, :func:`case_key`), the tests a
node takes the truth of, and a query's name (what sglang asks the machine once per start-up).
The evaluator (checks/fails_when/language.py) decides such a test once per case; the deriver
(derive/reading/symbolic.py) keeps a conditional whose test nothing else reads as the values it may take. And what a
condition's trees read, walked once per tree however many checks share it: the query tests
read twice or more (the ones worth assuming), and the tests a named part's worth may depend on
(what the evaluator keeps a worth by, across cases and checks)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.checks.fails_when.grammar import QUERY_PREFIX, nodes_of


@dataclass(frozen=True)
class Bound:
    """A named part of an expression (a start-up rule's ``values``: one value the condition
    reads in several places), bound in the env under its name and evaluated where first read:
    once per case, every place it is read seeing the same value (and the same case)."""

    name: str
    expression: ast.expr
    meaning: object = None  # what it means whatever its name (None: nothing shares its worth)
    leaves: tuple = ()  # the parameters it reads, itself or through the values it reads


def case_key(node: ast.IfExp) -> object:
    """What names an unknown test across the expression: its text, where every occurrence
    has one value (a test of the same fields); the node itself where it reads ``unknown``
    (each a value of its own) or calls anything."""
    key = node.__dict__.get("_case_key")
    if key is None:
        key = node._case_key = ("node", id(node)) if _fresh(node.test) else ("text", ast.dump(node.test))
    return key


def _fresh(test: ast.expr) -> bool:
    """May two occurrences of the test differ? Where it reads ``unknown`` or calls anything,
    but a query's own method (``unknown_get_platform.is_hip()``: one value in a start-up)."""
    return _under(test)[1]


def _under(node: ast.AST) -> tuple:
    """(the names read under the node, whether it reads ``unknown`` or calls anything but a
    query's method), kept on each node: a test inside another is summed up once, not walked
    again for each test around it."""
    found = node.__dict__.get("_under")
    if found is None:
        kind = type(node)
        names = {node.id} if kind is ast.Name else set()
        fresh = (kind is ast.Name and node.id == "unknown") or (kind is ast.Call and (
            node.args or node.keywords or isinstance(node.func, ast.Name) or not is_query(query_root(node.func))))
        for child in ast.iter_child_nodes(node):
            inner, inner_fresh = _under(child)
            names.update(inner)
            fresh = fresh or inner_fresh
        summary = (frozenset(names), bool(fresh))
        found = node._under = _SUMMARIES.setdefault(summary, summary)
    return found


_SUMMARIES: dict = {}  # each summary once: most nodes read the same few names (a constant, one field)


def tests_in(node: ast.AST) -> tuple:
    """The tests a node takes the truth of: an ``and``/``or``'s operands, a ``not``'s operand,
    a conditional's test."""
    kind = type(node)
    if kind is ast.BoolOp:
        return tuple(node.values)
    if kind is ast.UnaryOp and isinstance(node.op, ast.Not):
        return (node.operand,)
    return (node.test,) if kind is ast.IfExp else ()


def query_root(node: ast.expr) -> ast.expr:
    """What a chain of attributes and calls starts from (``unknown_p`` of ``unknown_p.a.b()``)."""
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def is_query(node) -> bool:
    """A query's name (``unknown_get_platform``: derive/reading/symbolic.py ``query``)."""
    return isinstance(node, ast.Name) and node.id.startswith(QUERY_PREFIX)


_NEGATED = {ast.NotIn: ast.In, ast.IsNot: ast.Is, ast.NotEq: ast.Eq}


def test_key(test: ast.expr, env: dict) -> tuple:
    """(case key, negated) of a test of a query (or of torch's state), itself or through the
    named values it reads: the text of the test it comes to (a named value's, ``a in b`` for
    ``a not in b`` or ``not a in b``, negated); None where it reads no query (decided by the
    launch, or never) or may differ where read again (it or a value it reads reads ``unknown``)."""
    found = test.__dict__.get("_test_key")
    if found is None:
        came, negated = test, False
        while True:
            if isinstance(came, ast.Name) and type(env.get(came.id)) is Bound:
                came = env[came.id].expression
            elif isinstance(came, ast.UnaryOp) and isinstance(came.op, ast.Not):
                came, negated = came.operand, not negated
            else:
                break
        if isinstance(came, ast.Compare) and len(came.ops) == 1 and type(came.ops[0]) in _NEGATED:
            came, negated = ast.Compare(came.left, [_NEGATED[type(came.ops[0])]()], came.comparators), not negated
        leaves = set()
        for name in _under(came)[0]:
            bound = env.get(name)
            leaves.update(bound.leaves if type(bound) is Bound else (name,))
        reads = "unknown" not in leaves and any(n.startswith(QUERY_PREFIX) or n == "torch" for n in leaves)
        found = test._test_key = (("text", ast.dump(came)) if reads and not _fresh(came) else None, negated)
    return found


# --- what a condition's trees read, each walked once per tree ------------------------------

_REPEATED: dict[int, tuple] = {}  # id(expression) -> (expression, its repeated query tests)


def repeated_tests(expr: ast.expr, env: dict) -> frozenset:
    """The keys of the query tests (:func:`test_key`) the expression reads in two places or
    more, itself or through its named values: only those are worth assuming outside a
    conditional's test (``q and x`` read once is decided by ``x`` or never)."""
    found = _REPEATED.get(id(expr))
    if found is not None and found[0] is expr:
        return found[1]
    counts: dict = {}
    for tree in _closure(expr, env):
        for key, count in _own_tests(tree, env)[0].items():
            counts[key] = counts.get(key, 0) + count
    repeated = frozenset(key for key, count in counts.items() if count > 1)
    _REPEATED[id(expr)] = (expr, repeated)
    return repeated


def _closure(expr: ast.expr, env: dict) -> list:
    """The tree and the trees of the named parts it reads, itself or through them, each once."""
    trees = {expr: None}
    for name in _own_tests(expr, env)[1]:
        value = env.get(name)
        if type(value) is Bound:
            trees.update(dict.fromkeys(_value_trees(value, env, frozenset())))
    return list(trees)


def _value_trees(value: Bound, env: dict, running: frozenset) -> tuple:
    """A named part's tree and those of the parts it reads, itself or through them (kept on
    the tree where no part of it reads a part being gathered: a circle is gathered afresh)."""
    found = value.expression.__dict__.get("_trees")
    if found is not None:
        return found
    trees = {value.expression: None}
    closed = True
    for name in _own_tests(value.expression, env)[1]:
        inner = env.get(name)
        if type(inner) is not Bound:
            continue
        if inner.name in running or inner is value:
            closed = False
            continue
        trees.update(dict.fromkeys(_value_trees(inner, env, running | {value.name})))
        closed = closed and "_trees" in inner.expression.__dict__
    found = tuple(trees)
    if closed:
        value.expression._trees = found
    return found


def _own_tests(expr: ast.expr, env: dict) -> tuple:
    """What one tree reads, walked once per tree (a named part several checks read is one
    tree): its query tests (key -> how often), the names it reads in order, and the questions
    its value may ask a case (:func:`questions`)."""
    found = expr.__dict__.get("_own_tests")
    if found is None:
        counts: dict = {}
        names: dict = {}
        questions: dict = {}
        for node in nodes_of(expr):
            for test in tests_in(node):
                key = test_key(test, env)[0]
                if key is not None:
                    counts[key] = counts.get(key, 0) + 1
                    questions[key, True] = None
            if type(node) is ast.IfExp:
                questions[case_key(node), False] = None
            elif type(node) is ast.Name:
                names[node.id] = None
        found = expr._own_tests = (counts, tuple(names), tuple(questions))
    return found


_HOWS = {(a, b): (a, b) for a in (False, True) for b in (False, True)}  # a question's two truths, each pair once


def questions(value: Bound, env: dict) -> dict:
    """Every test of a case the named part's worth may depend on, itself or through the parts
    it reads: key -> (read as a conditional's test, read where only repeated tests count:
    language.py ``_assumed``). A superset: some are never asked in a given case."""
    found = value.expression.__dict__.get("_questions")
    if found is None:
        found = {}
        for tree in _value_trees(value, env, frozenset()):
            for key, repeated_only in _own_tests(tree, env)[2]:
                plain, repeated = found.get(key, (False, False))
                found[key] = _HOWS[plain or not repeated_only, repeated or repeated_only]
        value.expression._questions = found
    return found
