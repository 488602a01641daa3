"""The ``fails-when`` language: a Python expression over a function's parameters that is true
exactly when a call of the function reaches one of sglang's ``raise`` statements.

The deriver writes it (derive/reading/paths.py: the path to the raise, the function's local names
replaced by what they were computed from); the check evaluates it over the values a call
passes. The expression is parsed with :mod:`ast`, checked against a small grammar
(:func:`parse_when`) and evaluated by :func:`evaluate`, never by ``eval``: every operation is
three-valued. A value the linter does not know is :data:`UNKNOWN`, and anything computed from it
is unknown too, but where Python's own short-circuit decides (``False and ?`` is False). So a
value learned later can only turn UNKNOWN into True or False, never flip a True or False: the
call-site screen, which knows less than the engine, can rule a call out only where the engine
would too.

Values: None, bools, numbers, strings, tuples, lists, dicts (of values), and those of
checks/fails_when/values.py: tensors and MLX arrays built at the call (shape, dtype, device), devices,
objects made at the call (:class:`Record`), and :class:`~sglang_lint.text.pynames.Ref` (a dotted
name such as ``torch.bfloat16``); the operations on them are checks/fails_when/operations.py's.
"""

from __future__ import annotations

import ast
import math
import operator

from sglang_lint.checks.fails_when.values import (  # (the values, re-exported for the check and the deriver)
    FLOAT_DTYPES,
    UNKNOWN,
    Device,
    Member,
    Record,
    Tensor,
    TruthOnly,
    dtype_ref,
    is_dtype,
)
from sglang_lint.checks.fails_when.instances import is_instance
from sglang_lint.checks.fails_when.members import (  # (re-exported for the checks and the deriver)
    MORE_VALUE_METHODS, TENSOR_METHODS, VALUE_METHODS, Method, attribute, attribute_or, known, method, reshaped,
)
from sglang_lint.checks.fails_when.members import index as value_at
from sglang_lint.checks.fails_when.grammar import (
    AGGREGATES, BUILTINS, ENVIRON_PARSERS, MODULES, PATH_BUILTINS, WhenError, names_read, parse_when,
)
from sglang_lint.checks.fails_when.conditions import Bound, case_key, questions, repeated_tests, test_key
from sglang_lint.checks.fails_when.operations import (  # (equal, arithmetic: re-exported for the checks)
    AGGREGATE_FUNCTIONS, aggregate, arithmetic, contains, environ, equal, identical, orderable,
)
from sglang_lint.text.pynames import Ref

__all__ = ["BUILTINS", "MODULES", "FLOAT_DTYPES", "UNKNOWN", "Bound", "Device", "Member", "Record", "Tensor",
           "TruthOnly",
           "dtype_ref", "is_dtype",
           "WhenError", "parse_when", "names_read", "evaluate", "holds", "equal", "arithmetic", "known", "truth",
           "MORE_VALUE_METHODS", "TENSOR_METHODS", "VALUE_METHODS", "reshaped", "SHARED"]


# --- evaluation -----------------------------------------------------------------------------

_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}


def truth(value: object) -> object:
    """Python's truth of a value: True, False or UNKNOWN."""
    if type(value) is bool:  # (most values asked: the verdicts of tests)
        return value
    if value is None:
        return False
    if isinstance(value, TruthOnly):
        return value.truth
    if isinstance(value, Member):
        return value.truthy
    if value is UNKNOWN or isinstance(value, (Tensor, Ref, Record)):
        return UNKNOWN  # a tensor's truth is its data's; an enum member's or an object's is its own
    if isinstance(value, (tuple, list, dict, str)):
        return len(value) > 0
    if isinstance(value, Device):
        return True
    return bool(value)


def evaluate(expr: ast.expr, env: dict[str, object], worth: dict | None = None) -> object:
    """The value of ``expr`` with the parameters bound as ``env`` says (a missing one is
    UNKNOWN). Never raises: what Python would refuse is UNKNOWN. ``worth``: the named parts'
    values (:class:`Bound`, by name), those known already and, after, those read (:data:`RUNNING`
    for one whose reading failed)."""
    try:
        return _eval(expr, {**env, _MEMO: {} if worth is None else worth})
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError, KeyError, AttributeError,
            RecursionError):
        return UNKNOWN


def holds(expr: ast.expr, env: dict[str, object]) -> object:
    """True when ``expr`` is certainly true with these values, False when certainly false,
    else UNKNOWN.

    A conditional expression whose test is unknown (``x * 0.3 if unknown else x``) is decided
    by cases: the test assumed true, then false, each evaluated again; where both give the same
    truth, so does the expression (whichever way the test goes). The outermost test is assumed
    first (a chain of them, ``a if u else b if v else c``, takes one case per value), at most
    ``SPLIT_DEPTH`` tests on one line of cases and ``SPLIT_CASES`` cases in all. A test of a
    query (``unknown_`` names: the platform, the model) is one test wherever it is written, in a
    conditional or as an operand of ``and``/``or``/``not`` (``a not in b`` is ``a in b``).

    Before the cases, a few worlds (:func:`_worlds`): where two give different truths, or one
    none, no line of cases can be certain, and the verdict is UNKNOWN at once."""
    return _decide(expr, env, None)


def certain(expr: ast.expr, env: dict[str, object], answer: bool) -> bool:
    """Is ``holds(expr, env) is answer``? The same verdict, but a world of another truth ends
    it: a condition false in one world is never certainly true, however long the cases would
    take to say it is unknown rather than false."""
    return _decide(expr, env, answer) is answer


def _decide(expr: ast.expr, env: dict, hoped: object) -> object:
    """holds, or with ``hoped`` (True, False) UNKNOWN wherever the verdict is not that."""
    repeated = _Repeated(expr, env)
    cases = _Cases({}, repeated)
    verdict = truth(evaluate(expr, {**env, _CASES: cases}))
    if verdict is not UNKNOWN or not cases.pending:
        return verdict
    if _worlds(expr, env, hoped) is UNKNOWN:
        return UNKNOWN
    return _split(expr, env, {}, cases.pending[0], 0, [SPLIT_CASES - 1], repeated)


SPLIT_DEPTH = 24  # (a chain of tests of the model's architecture, one per family, is one line)
SPLIT_CASES = 128
_CASES = "<cases>"  # the env's key for the assumptions of one case (never a Python name)


class _Cases:
    """The tests assumed in one case (key -> truth), the unknown tests met, not assumed, and
    the values of the named parts read so far (each evaluated once per case)."""

    __slots__ = ("assumed", "pending", "values", "repeated")

    def __init__(self, assumed: dict, repeated: frozenset = frozenset()):
        self.assumed = assumed
        self.pending: list = []
        self.values: dict = {}
        self.repeated = repeated  # the keys of the query tests read in two places or more

    def note(self, key: object, at: int) -> None:
        """An unknown test whose branches give values, or may in some case of the tests noted
        inside them (from ``at`` on): it goes before those, so it is assumed first. (A branch
        unknown whichever way any test goes makes no case.)"""
        if key not in self.pending:
            self.pending.insert(at, key)


def _by_cases(expr: ast.expr, env: dict, assumed: dict, depth: int, budget: list, repeated: frozenset) -> object:
    cases = _Cases(assumed, repeated)
    budget[0] -= 1
    verdict = truth(evaluate(expr, {**env, _CASES: cases}))
    if verdict is not UNKNOWN or not cases.pending or depth >= SPLIT_DEPTH or budget[0] < 2:
        return verdict
    return _split(expr, env, assumed, cases.pending[0], depth, budget, repeated)


def _split(expr: ast.expr, env: dict, assumed: dict, key: object, depth: int, budget: list,
           repeated: frozenset) -> object:
    """The case ``assumed`` decided by the two cases of the test ``key``."""
    first = _by_cases(expr, env, {**assumed, key: True}, depth + 1, budget, repeated)
    if first is UNKNOWN:
        return UNKNOWN
    return first if _by_cases(expr, env, {**assumed, key: False}, depth + 1, budget, repeated) is first else UNKNOWN


def _worlds(expr: ast.expr, env: dict, hoped: object = None) -> object:
    """The truth ``expr`` has in every world (UNKNOWN where one gives none, or two differ; with
    ``hoped``, where one gives another). A world answers every test the cases would split
    (all false; all true; then alternately, in the order the evaluation asks them), so it is a
    case some line of cases ends in, or a more certain one: a truth the cases find certain is
    the truth of every world. One evaluation each."""
    agreed = UNKNOWN
    for answers in WORLDS:
        found = truth(evaluate(expr, {**env, _CASES: _Cases(_World(answers), _EVERY)}))
        if found is UNKNOWN or (agreed is not UNKNOWN and found is not agreed) \
                or (hoped is not None and found is not hoped):
            return UNKNOWN
        agreed = found
    return agreed


class _Repeated:
    """The keys of the query tests ``expr`` reads in two places or more (repeated_tests), worked
    out when a case first asks (most conditions are decided before any test of a query)."""

    __slots__ = ("expr", "env", "keys")

    def __init__(self, expr: ast.expr, env: dict):
        self.expr, self.env, self.keys = expr, env, None

    def __contains__(self, key) -> bool:
        if self.keys is None:
            self.keys = repeated_tests(self.expr, self.env)
        return key in self.keys


WORLDS = ((False,), (True,), (True, False), (False, True))  # each world's answers, repeated in turn


class _World(dict):
    """An answer for every test of a case, given the first time it is asked (one world)."""

    __slots__ = ("answers", "asked")

    def __init__(self, answers: tuple):
        super().__init__()
        self.answers = answers
        self.asked = 0

    def get(self, key, default=None):
        return self[key]

    def __contains__(self, key) -> bool:
        return True

    def __missing__(self, key):
        answer = self[key] = self.answers[self.asked % len(self.answers)]
        self.asked += 1
        return answer


class _Every(frozenset):
    """Every test counts as read twice (a world answers each)."""

    def __contains__(self, key) -> bool:
        return True


_EVERY = _Every()


def _answers(cases: _Cases, asked: dict) -> frozenset:
    """What the case assumes of the tests a named part may ask (the others it finds unknown
    in every case): its worth is the same in two cases that give the same answers."""
    found = []
    for key, assumed in cases.assumed.items():
        how = asked.get(key)
        if how is not None and (how[0] or key in cases.repeated):
            found.append((key, assumed))
    return frozenset(found)


RUNNING = object()  # a named part being evaluated (one that reads itself is unknown)
SHARED = "<shared>"  # the env's key for the worth of named parts across checks of one launch


_MEMO = "<memo>"  # the env's key for the named parts one evaluation without cases has read


def _bound(value: Bound, env: dict) -> object:
    cases = env.get(_CASES)
    if cases is None:
        # each named part once per evaluation: a part read in several places, each reading
        # other parts, is a graph whose paths multiply
        memo = env.get(_MEMO)
        if memo is None:
            return _eval(value.expression, {**env, value.name: UNKNOWN})
        if value.name not in memo:
            memo[value.name] = RUNNING
            memo[value.name] = _eval(value.expression, env)
        found = memo[value.name]
        return UNKNOWN if found is RUNNING else found
    if value.name in cases.values:
        found = cases.values[value.name]
        return UNKNOWN if found is RUNNING else found
    shared = env.get(SHARED) if value.meaning is not None else None
    if shared is not None and type(cases.assumed) is _World and questions(value, env):
        shared = None  # (a world answers the part's tests as they come: its worth is that world's)
    key = None
    if shared is not None:  # read already over the same inputs and the same answers of the case
        key = (value.meaning, tuple(env.get(name, UNKNOWN) for name in value.leaves),
               _answers(cases, questions(value, env)) if cases.assumed else frozenset())
        try:
            hit = shared.get(key)
        except TypeError:  # (a list among the inputs)
            key = hit = None
        if hit is not None:
            for note in hit[1]:
                cases.note(note, len(cases.pending))
            cases.values[value.name] = hit[0]
            return hit[0]
    mark = len(cases.pending)
    cases.values[value.name] = RUNNING
    found = cases.values[value.name] = _eval(value.expression, env)
    if key is not None:
        shared[key] = (found, tuple(cases.pending[mark:]))
    return found


def _assumed(test: ast.expr, env: dict) -> object:
    """The truth the case assumes for an unknown test of a query (noting it, where not yet
    assumed, so that the cases may tell); UNKNOWN otherwise."""
    cases = env.get(_CASES)
    if cases is None:
        return UNKNOWN
    key, negated = test_key(test, env)
    if key is None or key not in cases.repeated:
        return UNKNOWN
    if key in cases.assumed:
        return cases.assumed[key] is not negated
    cases.note(key, len(cases.pending))
    return UNKNOWN


def _eval(node: ast.expr, env: dict) -> object:
    # (the kinds in the order of how often the deriver's searches meet them)
    kind = type(node)
    if kind is _CONSTANT:
        return node.value
    if kind is _NAME:
        if node.id in env:
            value = env[node.id]
            return _bound(value, env) if type(value) is Bound else value
        if node.id in MODULES or node.id in PATH_BUILTINS or node.id in ENVIRON_PARSERS:
            return Ref(node.id)
        return UNKNOWN
    if kind is _ATTRIBUTE:
        return attribute(_eval(node.value, env), node.attr)
    if kind is _COMPARE_NODE:
        return _compare(node, env)
    if kind is _SUBSCRIPT:
        return _subscript(_eval(node.value, env), node.slice, env)
    if kind is _BOOL_OP:
        return _bool_op(node, env)
    if kind is _CALL:
        return _call(node, env)
    if kind is _BIN_OP:
        return _binary(node, env)
    if kind is _UNARY_OP:
        return _unary(node, env)
    if kind is _IF_EXP:
        return _if_expression(node, env)
    if kind in _SEQUENCES:
        return _sequence(node, kind, env)
    if kind is _DICT:
        if any(k is None for k in node.keys):
            return UNKNOWN
        keys = [_eval(k, env) for k in node.keys]
        if not known(keys):
            return UNKNOWN
        return {k: _eval(v, env) for k, v in zip(keys, node.values)}
    return UNKNOWN


_CONSTANT, _NAME, _ATTRIBUTE, _COMPARE_NODE = ast.Constant, ast.Name, ast.Attribute, ast.Compare
_SUBSCRIPT, _BOOL_OP, _CALL, _BIN_OP = ast.Subscript, ast.BoolOp, ast.Call, ast.BinOp
_UNARY_OP, _IF_EXP, _DICT = ast.UnaryOp, ast.IfExp, ast.Dict
_SEQUENCES = (ast.Tuple, ast.List, ast.Set)


def _unary(node: ast.UnaryOp, env: dict) -> object:
    value = _eval(node.operand, env)
    if isinstance(node.op, ast.Not):
        t = truth(value)
        if t is UNKNOWN:
            t = _assumed(node.operand, env)
        return UNKNOWN if t is UNKNOWN else not t
    if isinstance(node.op, ast.Invert):
        return ~value if type(value) is int else UNKNOWN
    if not _is_number(value):
        return UNKNOWN
    return -value if isinstance(node.op, ast.USub) else +value


def _if_expression(node: ast.IfExp, env: dict) -> object:
    t = truth(_eval(node.test, env))
    cases = env.get(_CASES)
    if t is UNKNOWN and cases is not None:
        t = cases.assumed.get(case_key(node), UNKNOWN)
        if t is UNKNOWN and case_key(node)[0] == "text":
            t = _assumed(node.test, env)  # (``a not in b`` where ``a in b`` is assumed)
    if t is UNKNOWN:  # either branch: known only where both give the same
        at = len(cases.pending) if cases is not None else 0
        body = _eval(node.body, env)
        middle = len(cases.pending) if cases is not None else 0
        orelse = _eval(node.orelse, env)
        if equal(body, orelse) is True and type(body) is type(orelse):
            return body
        if cases is not None and (body is not UNKNOWN or middle > at) \
                and (orelse is not UNKNOWN or len(cases.pending) > middle):
            cases.note(case_key(node), at)  # values, or values in some case: the cases may tell
        return UNKNOWN
    return _eval(node.body if t else node.orelse, env)


def _sequence(node, kind: type, env: dict) -> object:
    items = []
    for element in node.elts:  # ``(*prefix, last)``: a known sequence's items, in place
        if isinstance(element, ast.Starred):
            spread = _eval(element.value, env)
            if not isinstance(spread, (tuple, list)):
                return UNKNOWN
            items += spread
        else:
            items.append(_eval(element, env))
    if kind is ast.Set:
        return frozenset(items) if known(items) else UNKNOWN
    return tuple(items) if kind is ast.Tuple else items


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) or value is True or value is False


def _bool_op(node: ast.BoolOp, env: dict) -> object:
    """``a and b``/``a or b`` with Python's value (the deciding operand), three-valued."""
    deciding = isinstance(node.op, ast.Or)  # the truth that ends an ``or``; ``and`` ends on False
    unknown = False
    value = UNKNOWN
    for operand in node.values:
        value = _eval(operand, env)
        t = truth(value)
        if t is UNKNOWN:
            t = _assumed(operand, env)
            if t is UNKNOWN:
                unknown = True
                continue
            value = TruthOnly(t)
        if t == deciding:
            # With an unknown operand before it, Python may have stopped there: only the truth is sure.
            return TruthOnly(deciding) if unknown else value
    return UNKNOWN if unknown else value


def _compare(node: ast.Compare, env: dict) -> object:
    if len(node.ops) == 1:
        counted = _counted_compare(node, env)
        if counted is not UNKNOWN:
            return counted
    left = _eval(node.left, env)
    result: object = True
    for op, right_node in zip(node.ops, node.comparators):
        right = _eval(right_node, env)
        kind = type(op)
        if kind in (ast.Eq, ast.NotEq):
            value = equal(left, right)
            if value is not UNKNOWN and kind is ast.NotEq:
                value = not value
        elif kind in (ast.In, ast.NotIn):
            value = contains(right, left)
            if value is not UNKNOWN and kind is ast.NotIn:
                value = not value
        elif kind in (ast.Is, ast.IsNot):
            value = identical(left, right)
            if value is not UNKNOWN and kind is ast.IsNot:
                value = not value
        else:
            if not (orderable(left, right)):
                value = UNKNOWN
            else:
                value = _COMPARE[kind](left, right)
        if value is False:
            return False
        if value is UNKNOWN:
            result = UNKNOWN
        left = right
    return result


_BOOLEAN_TESTS = (ast.Compare,)  # what a generator's item is where it is certainly a bool


def _counted_compare(node: ast.Compare, env: dict) -> object:
    """``sum(test for x in items) > 1`` (how many of the items pass a test, against a number)
    where some tests are unknown: each such item counts 0 or 1, and the comparison is certain
    where it comes out the same at both ends (two grammars set and a third unknown: more than
    one either way). UNKNOWN where that does not decide it, or the node is not such a count."""
    left, op, right_node = node.left, node.ops[0], node.comparators[0]
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "sum"
            and len(left.args) == 1 and not left.keywords and isinstance(left.args[0], ast.GeneratorExp)
            and isinstance(left.args[0].elt, _BOOLEAN_TESTS) and type(op) in _COMPARE):
        return UNKNOWN
    generator = left.args[0]
    loop = generator.generators[0]
    if len(generator.generators) != 1 or loop.ifs or not isinstance(loop.target, ast.Name):
        return UNKNOWN
    items, bound = _eval(loop.iter, env), _eval(right_node, env)
    if not isinstance(items, (tuple, list)) or len(items) > 4096 or isinstance(bound, bool) \
            or not isinstance(bound, (int, float)):
        return UNKNOWN
    inner_env = {k: v for k, v in env.items() if k != _CASES}
    low = high = 0
    for item in items:
        passed = truth(_eval(generator.elt, {**inner_env, loop.target.id: item}))
        low += passed is True
        high += passed is not False
    at_low, at_high = _COMPARE[type(op)](low, bound), _COMPARE[type(op)](high, bound)
    return at_low if at_low == at_high and low != high else UNKNOWN


def _binary(node: ast.BinOp, env: dict) -> object:
    return arithmetic(type(node.op), _eval(node.left, env), _eval(node.right, env))


def _subscript(value: object, index: ast.expr, env: dict) -> object:
    if isinstance(index, ast.Slice):
        parts = [(_eval(p, env) if p is not None else None) for p in (index.lower, index.upper, index.step)]
        if any(p is UNKNOWN or not (p is None or isinstance(p, int)) for p in parts):
            return UNKNOWN
        return value_at(value, slice(*parts))
    return value_at(value, _eval(index, env))


def _shape_of(value: object) -> object:
    return value.shape if isinstance(value, Tensor) else UNKNOWN


def _call(node: ast.Call, env: dict) -> object:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return UNKNOWN
    if len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp) and isinstance(node.func, ast.Name):
        return _over(node.func.id, node.args[0], env)
    func = _eval(node.func, env)
    args = [_eval(a, env) for a in node.args]
    keywords = {k.arg: _eval(k.value, env) for k in node.keywords}
    if isinstance(func, Method):
        return method(func.receiver, func.name, args, keywords)
    if not isinstance(func, Ref):
        return UNKNOWN
    name = func.qualified
    if name == "isinstance" and len(args) == 2 and not keywords:
        return is_instance(args[0], node.args[1])
    if name == "type" and len(args) == 1 and not keywords:
        # the tensors the engine follows are made by torch's functions: plain torch.Tensor, no subclass
        return Ref("torch.Tensor") if isinstance(args[0], Tensor) and args[0].library == "torch" else UNKNOWN
    if name == "dict" and len(args) <= 1:
        base = args[0] if args else {}
        if not isinstance(base, dict):
            return UNKNOWN
        return {**base, **keywords}
    if keywords:
        return UNKNOWN
    if name == "getattr" and len(args) in (2, 3) and isinstance(args[1], str):
        return attribute(args[0], args[1]) if len(args) == 2 else attribute_or(args[0], args[1], args[2])
    if name in ENVIRON_PARSERS:
        return environ(name, args[0]) if len(args) == 1 and isinstance(args[0], str) else UNKNOWN
    if name == "len" and len(args) == 1:
        value = args[0]
        if isinstance(value, Tensor):
            shape = value.shape
            return shape[0] if shape is not UNKNOWN and shape else UNKNOWN
        return len(value) if isinstance(value, (tuple, list, dict, str, frozenset)) else UNKNOWN
    if name in AGGREGATE_FUNCTIONS and len(args) >= 1:
        return aggregate(name, args if len(args) > 1 else args[0])
    if name in ("abs", "int", "float", "bool", "str", "round") and len(args) == 1 and known(args[0]):
        value = args[0]
        if name == "str" and not isinstance(value, (str, int, float)) or name != "str" and isinstance(value, Ref):
            return UNKNOWN
        if name in ("int", "float") and isinstance(value, str):
            try:  # a text Python parses is the number sglang reads; another fails another way
                return int(value) if name == "int" else float(value)
            except ValueError:
                return UNKNOWN
        return {"abs": abs, "int": int, "float": float, "bool": bool, "str": str, "round": round}[name](value)
    if name == "math.prod" and len(args) == 1 and isinstance(args[0], (tuple, list)) and known(args[0]):
        return math.prod(args[0])
    return UNKNOWN


def _over(how: str, generator: ast.GeneratorExp, env: dict) -> object:
    """``any(test for x in items)`` / ``all(...)`` over a list, tuple, string or dict's keys the
    call passes: three-valued, as ``or`` / ``and`` of the tests of each item. ``tuple(...)``,
    ``sum(...)`` and the other aggregates: the items made, known only where every filter and
    every item is."""
    loop = generator.generators[0]
    items = _eval(loop.iter, env)
    env = {k: v for k, v in env.items() if k != _CASES}  # a test there changes with the item: no case reaches it
    if isinstance(items, dict):
        items = list(items)
    if not isinstance(items, (tuple, list, str)) or len(items) > 4096:
        return UNKNOWN
    if how in AGGREGATES:
        made = []
        for item in items:
            inner = {**env, loop.target.id: item}
            kept = [truth(_eval(test, inner)) for test in loop.ifs]
            if UNKNOWN in kept:
                return UNKNOWN
            if all(kept):
                made.append(_eval(generator.elt, inner))
        return aggregate(how, made)
    if how not in ("any", "all"):
        return UNKNOWN
    neutral = how == "all"  # the result of no items
    result: object = neutral
    for item in items:
        inner = {**env, loop.target.id: item}
        kept = [truth(_eval(test, inner)) for test in loop.ifs]
        if False in kept:
            continue
        value = truth(_eval(generator.elt, inner))
        if UNKNOWN in kept and value is not neutral:
            value = UNKNOWN  # an item that may be filtered out decides nothing
        if value is UNKNOWN:
            result = UNKNOWN
        elif value is not neutral:
            return value  # any: one true item; all: one false item
    return result
