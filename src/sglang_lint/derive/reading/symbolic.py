"""Symbolic values of the start-up run (derive/startup/run.py): expressions over a launch's
fields, shared rather than copied, with ``unknown`` for what the linter cannot know; how two
compare, how long they are written out, and the value after an ``if``."""

from __future__ import annotations

import ast
from collections import Counter

from sglang_lint.checks.fails_when.conditions import test_key, tests_in
from sglang_lint.checks.fails_when.grammar import BUILTINS, MODULES, QUERY_PREFIX


class _Server:
    """The arguments object (``self``, ``server_args``, a view of it)."""

    def __repr__(self) -> str:
        return "<server args>"


SERVER = _Server()
UNKNOWN_NAME = "unknown"  # the condition's name for what the linter cannot know
OUTSIDE_NAMES = MODULES  # torch.cuda...: the machine's, never the launch's


def unknown(reason: str) -> ast.expr:
    """The condition's unknown, carrying why (:func:`reasons` reads it back)."""
    node = ast.Name(UNKNOWN_NAME, ast.Load())
    node.reason = reason  # type: ignore[attr-defined]
    return node


def query(name: str, reason: str) -> ast.expr:
    """What sglang reads from outside the launch and that stays one value through a start-up
    (``is_hip()``, ``get_platform()``): unknown as ``unknown`` is, but the same wherever it
    is read, so that the tests of it are decided together (``x if q else y`` and ``not q``)."""
    node = ast.Name(QUERY_PREFIX + name, ast.Load())
    node.reason = reason  # type: ignore[attr-defined]
    return node


def reasons(expression: ast.expr) -> list[str]:
    return [getattr(n, "reason", "") for n in nodes(expression)
            if isinstance(n, ast.Name) and (n.id == UNKNOWN_NAME or n.id.startswith(QUERY_PREFIX))]


def nodes(root: ast.AST):
    """Every node of an expression once, in ``ast.walk``'s order: a shared part is visited
    once however many places read it (a value can be far larger written out than held)."""
    seen = {id(root)}
    todo = [root]
    while todo:
        node = todo.pop(0)
        yield node
        for child in ast.iter_child_nodes(node):
            if id(child) not in seen:
                seen.add(id(child))
                todo.append(child)


# --- helpers ------------------------------------------------------------------------------
def absent() -> ast.expr:
    """A key a dict built in steps may not have (``out["x"] = v`` on one branch only): unknown
    wherever it is read as a value; a declaration of it leaves the field as it is."""
    node = unknown("a key set on one way only")
    node.absent = True  # type: ignore[attr-defined]
    return node


def is_absent(value) -> bool:
    return getattr(value, "absent", False)


def literal_keys(value) -> bool:
    """A dict display whose keys are all literals (a dict built in steps, a declaration)."""
    return isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) for k in value.keys)


def is_unknown(value) -> bool:
    return isinstance(value, ast.Name) and value.id == UNKNOWN_NAME


def collapse(node: ast.expr) -> ast.expr:
    """An expression one of whose parts is unknown is unknown, but where Python's own
    short-circuit may still decide: ``a and unknown``, ``a if unknown else a``, a display."""
    if isinstance(node, (ast.BoolOp, ast.IfExp, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Constant, ast.Name)):
        return node
    for child in ast.iter_child_nodes(node):
        if is_unknown(child):
            return child
        if isinstance(child, ast.keyword) and is_unknown(child.value):
            return child.value
    if isinstance(node, ast.Compare) and any(is_unknown(c) for c in node.comparators):
        return next(c for c in node.comparators if is_unknown(c))
    return node


_KEYS: dict[int, tuple] = {}  # id(node) -> (structural key, node): expressions are shared, never changed
_INTERNED: dict[tuple, int] = {}  # a node's shape over its children's numbers -> its number


def same(a: ast.AST, b: ast.AST) -> bool:
    """Do two expressions read the same (structurally; shared parts compared once)?"""
    return a is b or _key(a) == _key(b)


def _key(node) -> object:
    """A number per structure: two nodes read the same exactly when their numbers are equal
    (a node's shape is its type and its children's numbers, so a shared part is keyed once)."""
    if isinstance(node, list):
        return tuple(_key(n) for n in node)
    if not isinstance(node, ast.AST):
        return type(node).__name__, repr(node)  # (1, 1.0 and True read apart)
    found = _KEYS.get(id(node))
    if found is not None and found[1] is node:
        return found[0]
    shape = (type(node).__name__, *(_key(getattr(node, f, None)) for f in node._fields if f != "ctx"))
    key = _INTERNED.setdefault(shape, len(_INTERNED))
    _KEYS[id(node)] = (key, node)
    return key


MAX_VALUE = 10_000  # distinct nodes of a value (a shared part counted once: rules name it, see startup_rules)


MAX_CONDITION = 30_000  # distinct nodes of a site's condition


_SIZES: dict[int, tuple] = {}


def forget_values() -> None:
    """A new start-up run: the keys, numbers and sizes of its expressions start afresh (they are
    kept by node identity, which another run's nodes may reuse)."""
    _KEYS.clear()
    _INTERNED.clear()
    _SIZES.clear()


def size(node) -> int:
    """How many distinct nodes ``node`` holds (a shared part counts once; counting stops past
    ten times the largest condition)."""
    if not isinstance(node, ast.AST):
        return 0
    found = _SIZES.get(id(node))
    if found is not None and found[1] is node:
        return found[0]
    total = 0
    for _ in nodes(node):
        total += 1
        if total > 10 * MAX_CONDITION:
            break
    _SIZES[id(node)] = (total, node)
    return total


def bounded(value, why: str = "too long to write out"):
    """A value, or unknown where it has grown too long to write into a rule (a dict display
    with literal keys: each of its values)."""
    if literal_keys(value) and size(value) > MAX_VALUE:
        return ast.Dict(value.keys, [bounded(v, why) for v in value.values])
    if isinstance(value, ast.AST) and size(value) > MAX_VALUE:
        return unknown(why)
    return value


def if_else(test: ast.expr | None, a, b, name: str):
    if a is None or b is None or a is SERVER or b is SERVER:
        return unknown(f"{name} bound on one way only")
    if test is None:
        return a
    if isinstance(test, ast.Constant):
        return a if test.value else b
    if same(a, b):
        return a
    if is_unknown(a) and is_unknown(b):
        return a
    if decided_by_nothing(test):
        return either(test, a, b)
    return bounded(ast.IfExp(test, a, b))


def decided_by_nothing(test: ast.expr) -> bool:
    """Does the test read nothing a launch sets (no field, no environment variable) and yet
    is no constant: the model, the GPU, a call not followed decide it, never the launch."""
    decided = False
    for node in nodes(test):
        if isinstance(node, ast.Name):
            if node.id == UNKNOWN_NAME or node.id in OUTSIDE_NAMES:
                decided = True
            elif node.id not in BUILTINS and not node.id.startswith(QUERY_PREFIX):
                return False  # (a test of queries alone is kept: the queries are read alike elsewhere)
    return decided


def query_test(test: ast.expr) -> object:
    """The evaluator's key of a test of queries alone (the platform, the model: :func:`query`;
    checks/fails_when/language.py ``test_key``: ``a not in b`` and ``not a`` are ``a in b`` and ``a``); None
    for a test that reads a field, a variable, an ``unknown`` or a call."""
    if any(isinstance(n, ast.Name) and not n.id.startswith(QUERY_PREFIX) and n.id not in BUILTINS
           and n.id not in OUTSIDE_NAMES for n in nodes(test)):
        return None
    return test_key(test, {})[0]


def queries_kept_where_repeated(condition: ast.expr, kept: frozenset = frozenset()) -> ast.expr:
    """The condition with each conditional whose test asks queries alone, and that no other
    place of the condition tests, read as the values it may take (:func:`either`): a query's
    one identity pays only where two places test it alike (``x if q else y`` and ``not q``);
    elsewhere its branches are written as few as they are, and the evaluator has fewer tests
    to take case by case. A test reading a query of ``kept`` (the platform's probes, which a
    declared machine answers) is kept as written."""
    counts: Counter = Counter()
    for node in nodes(condition):
        for test in tests_in(node):
            key = query_test(test)
            if key is not None:
                counts[key] += 2 if kept and any(isinstance(n, ast.Name) and n.id in kept for n in nodes(test)) else 1
    once = {key for key, count in counts.items() if count == 1}
    if not once:
        return condition
    done: dict[int, object] = {}

    def rebuilt(node):
        if isinstance(node, list):
            return [rebuilt(item) for item in node]
        if not isinstance(node, ast.AST):
            return node
        if id(node) in done:
            return done[id(node)]
        fields = {name: rebuilt(getattr(node, name, None)) for name in node._fields}
        if isinstance(node, ast.IfExp) and query_test(node.test) in once:
            made = either(node.test, fields["body"], fields["orelse"])
        elif all(fields[name] is getattr(node, name, None) for name in node._fields):
            made = node
        else:
            made = type(node)(**fields)
            for attribute in ("reason", "absent"):
                if hasattr(node, attribute):
                    setattr(made, attribute, getattr(node, attribute))
        done[id(node)] = made
        return made

    return rebuilt(condition)


def either(test: ast.expr, a, b):
    """``a if <unknown> else b`` as the values it may take, each once (``x if u else (x if v
    else y)`` is ``x if u else y``); unknown where one of them is: the launch cannot decide
    which, so only values every way shares may be certain."""
    options: list = []
    for value in (*_options(a), *_options(b)):
        if is_unknown(value) and not is_absent(value):
            return value
        if not any(same(value, seen) or (is_absent(value) and is_absent(seen)) for seen in options):
            options.append(value)
    if len(options) == 1:
        return options[0]
    marker = unknown(next(iter(reasons(test)), "decided by what the launch does not set"))
    chained = options[-1]
    for value in reversed(options[:-1]):
        chained = ast.IfExp(marker, value, chained)
    return bounded(chained)


def one_of(options: tuple, value: ast.expr) -> ast.expr:
    """One of these literals, the launch cannot tell which: an unknown ``value`` an enclosing
    test compared to them (``if quant in ("a", "b"): x = quant``), its reason kept."""
    why = next(iter(reasons(value)), "decided by what the launch does not set")
    chained = ast.Constant(options[-1])
    for option in reversed(options[:-1]):
        chained = ast.IfExp(unknown(why), ast.Constant(option), chained)
    return chained


def _options(value) -> list:
    if isinstance(value, ast.IfExp) and decided_by_nothing(value.test):
        return [*_options(value.body), *_options(value.orelse)]
    return [value]


def merge(test: ast.expr, body: dict, orelse: dict) -> dict:
    merged = {}
    for name in set(body) | set(orelse):
        a, b = body.get(name), orelse.get(name)
        merged[name] = a if a is b else merge_displays(test, a, b) or if_else(test, a, b, name)
    return merged


def merge_environ(test: ast.expr, body: dict, orelse: dict) -> dict:
    """The environment variables sglang has set after an ``if``: one set on one way only is,
    on the other, the text the launch gives it (its name)."""
    return merge(test, *with_launch_text(body, orelse))


def with_launch_text(a: dict, b: dict) -> tuple[dict, dict]:
    """Two environments, each with the variables only the other sets read as the launch's text."""
    names = set(a) | set(b)
    return ({n: a.get(n) or ast.Name(n, ast.Load()) for n in names},
            {n: b.get(n) or ast.Name(n, ast.Load()) for n in names})


def merge_displays(test: ast.expr, a, b) -> ast.Dict | None:
    """Two dict displays with literal keys after an ``if``: one display, each key's value by
    the test (absent on the way that did not set it); None for any other values."""
    if not (literal_keys(a) and literal_keys(b)):
        return None
    left = {k.value: v for k, v in zip(a.keys, a.values)}
    right = {k.value: v for k, v in zip(b.keys, b.values)}
    keys = [*left, *(k for k in right if k not in left)]
    return ast.Dict([ast.Constant(k) for k in keys],
                    [if_else(test, left.get(k) or absent(), right.get(k) or absent(), str(k)) for k in keys])


def conjunction(path: list[ast.expr]) -> ast.expr | None:
    if not path:
        return None
    return path[0] if len(path) == 1 else ast.BoolOp(ast.And(), list(path))
