"""The ``fails-when`` language: a Python expression over a function's parameters that is true
exactly when a call of the function reaches one of sglang's ``raise`` statements.

The deriver writes it (derive/paths.py: the path to the raise, the function's local names
replaced by what they were computed from); the check evaluates it over the values a call
passes. The expression is parsed with :mod:`ast`, checked against a small grammar
(:func:`parse_when`) and evaluated by :func:`evaluate`, never by ``eval``: every operation is
three-valued. A value the linter does not know is :data:`UNKNOWN`, and anything computed from it
is unknown too, but where Python's own short-circuit decides (``False and ?`` is False). So a
value learned later can only turn UNKNOWN into True or False, never flip a True or False: the
call-site screen, which knows less than the engine, can rule a call out only where the engine
would too.

Values: None, bools, numbers, strings, tuples, lists, dicts (of values), and those of
checks/values.py: tensors and MLX arrays built at the call (shape, dtype, device), devices,
objects made at the call (:class:`Record`), and :class:`~sglang_lint.pynames.Ref` (a dotted
name such as ``torch.bfloat16``).
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass

from sglang_lint.checks.values import (  # (the values, re-exported for the check and the deriver)
    FLOAT_DTYPES,
    UNKNOWN,
    Device,
    Member,
    Record,
    Tensor,
    TruthOnly,
    dtype_ref,
    is_dtype,
    member_equal,
)
from sglang_lint.checks.when_instances import is_instance
from sglang_lint.checks.when_grammar import (
    AGGREGATES, BUILTINS, ENVIRON_PARSERS, MODULES, WhenError, names_read, parse_when,
)
from sglang_lint.pynames import Ref

__all__ = ["BUILTINS", "MODULES", "FLOAT_DTYPES", "UNKNOWN", "Device", "Member", "Record", "Tensor", "TruthOnly",
           "dtype_ref", "is_dtype",
           "WhenError", "parse_when", "names_read", "evaluate", "holds", "equal", "arithmetic", "known", "truth"]


# --- evaluation -----------------------------------------------------------------------------

_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_ARITHMETIC = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_BITWISE = {ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
            ast.RShift: operator.rshift}


def known(value: object) -> bool:
    """Is the value known all through (no UNKNOWN inside a container)?"""
    if value is UNKNOWN:
        return False
    if isinstance(value, (tuple, list)):
        return all(known(v) for v in value)
    if isinstance(value, dict):
        return all(known(v) for v in value.values())
    if isinstance(value, (Tensor, _Method, Device, TruthOnly, Record)):
        return False  # a tensor's data is never known; a method is no value; devices compare apart
    return True


def truth(value: object) -> object:
    """Python's truth of a value: True, False or UNKNOWN."""
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


def evaluate(expr: ast.expr, env: dict[str, object]) -> object:
    """The value of ``expr`` with the parameters bound as ``env`` says (a missing one is
    UNKNOWN). Never raises: what Python would refuse is UNKNOWN."""
    try:
        return _eval(expr, env)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError, KeyError, AttributeError,
            RecursionError):
        return UNKNOWN


def holds(expr: ast.expr, env: dict[str, object]) -> object:
    """True when ``expr`` is certainly true with these values, False when certainly false,
    else UNKNOWN.

    A conditional expression whose test is unknown (``x * 0.3 if unknown else x``) is decided
    by cases: the test assumed true, then false, each evaluated again; where both give the same
    truth, so does the expression (whichever way the test goes). At most ``SPLIT_DEPTH``
    tests are assumed on one line of cases."""
    return _by_cases(expr, env, {}, 0)


SPLIT_DEPTH = 6
_CASES = "<cases>"  # the env's key for the assumptions of one case (never a Python name)


class _Cases:
    """The tests assumed in one case (key -> truth), and the unknown tests met, not assumed."""

    __slots__ = ("assumed", "pending")

    def __init__(self, assumed: dict):
        self.assumed = assumed
        self.pending: list = []

    def note(self, key: object) -> None:
        """An unknown test whose two branches give two values (an unknown branch stays
        unknown whichever way the test goes: no case is made of it)."""
        if key not in self.pending:
            self.pending.append(key)


def _by_cases(expr: ast.expr, env: dict, assumed: dict, depth: int) -> object:
    cases = _Cases(assumed)
    verdict = truth(evaluate(expr, {**env, _CASES: cases}))
    if verdict is not UNKNOWN or not cases.pending or depth >= SPLIT_DEPTH:
        return verdict
    key = cases.pending[0]
    first = _by_cases(expr, env, {**assumed, key: True}, depth + 1)
    if first is UNKNOWN:
        return UNKNOWN
    return first if _by_cases(expr, env, {**assumed, key: False}, depth + 1) is first else UNKNOWN


def _case_key(node: ast.IfExp) -> object:
    """What names an unknown test across the expression: its text, where every occurrence
    has one value (a test of the same fields); the node itself where it reads ``unknown``
    (each a value of its own) or calls anything."""
    key = node.__dict__.get("_case_key")
    if key is None:
        fresh = any(isinstance(n, ast.Call) or isinstance(n, ast.Name) and n.id == "unknown"
                    for n in ast.walk(node.test))
        key = ("node", id(node)) if fresh else ("text", ast.dump(node.test))
        node._case_key = key
    return key


def _eval(node: ast.expr, env: dict) -> object:
    kind = type(node)
    if kind is ast.Constant:
        return node.value
    if kind is ast.Name:
        if node.id in env:
            return env[node.id]
        if node.id in MODULES or node.id in BUILTINS or node.id in ENVIRON_PARSERS:
            return Ref(node.id)
        return UNKNOWN
    if kind is ast.BoolOp:
        return _bool_op(node, env)
    if kind is ast.UnaryOp:
        value = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            t = truth(value)
            return UNKNOWN if t is UNKNOWN else not t
        if isinstance(node.op, ast.Invert):
            return ~value if type(value) is int else UNKNOWN
        if not _is_number(value):
            return UNKNOWN
        return -value if isinstance(node.op, ast.USub) else +value
    if kind is ast.IfExp:
        t = truth(_eval(node.test, env))
        cases = env.get(_CASES)
        if t is UNKNOWN and cases is not None:
            t = cases.assumed.get(_case_key(node), UNKNOWN)
        if t is UNKNOWN:  # either branch: known only where both give the same
            body, orelse = _eval(node.body, env), _eval(node.orelse, env)
            if equal(body, orelse) is True and type(body) is type(orelse):
                return body
            if cases is not None and body is not UNKNOWN and orelse is not UNKNOWN:
                cases.note(_case_key(node))  # two values: the cases may tell
            return UNKNOWN
        return _eval(node.body if t else node.orelse, env)
    if kind is ast.Compare:
        return _compare(node, env)
    if kind is ast.BinOp:
        return _binary(node, env)
    if kind in (ast.Tuple, ast.List, ast.Set):
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
    if kind is ast.Dict:
        if any(k is None for k in node.keys):
            return UNKNOWN
        keys = [_eval(k, env) for k in node.keys]
        if not known(keys):
            return UNKNOWN
        return {k: _eval(v, env) for k, v in zip(keys, node.values)}
    if kind is ast.Attribute:
        return _attribute(_eval(node.value, env), node.attr)
    if kind is ast.Subscript:
        return _subscript(_eval(node.value, env), node.slice, env)
    if kind is ast.Call:
        return _call(node, env)
    return UNKNOWN


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
            unknown = True
            continue
        if t == deciding:
            # With an unknown operand before it, Python may have stopped there: only the truth is sure.
            return TruthOnly(deciding) if unknown else value
    return UNKNOWN if unknown else value


def equal(a: object, b: object) -> object:
    """``a == b``: True, False or UNKNOWN (the check also compares the values bindings give)."""
    if a is UNKNOWN or b is UNKNOWN or isinstance(a, TruthOnly) or isinstance(b, TruthOnly):
        return UNKNOWN
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return UNKNOWN  # elementwise in torch
    if isinstance(a, Device) or isinstance(b, Device):
        return _same_device(a, b)
    if isinstance(a, Member) or isinstance(b, Member):
        member, other = (a, b) if isinstance(a, Member) else (b, a)
        same = member_equal(member, other)
        return UNKNOWN if same is None else same
    if isinstance(a, Ref) or isinstance(b, Ref):
        if isinstance(a, Ref) and isinstance(b, Ref):
            if a == b:
                return True
            return False if is_dtype(a) and is_dtype(b) else UNKNOWN  # two enum members' names may be aliases
        if isinstance(a, Ref) and isinstance(b, str) or isinstance(b, Ref) and isinstance(a, str):
            return UNKNOWN  # a str enum member equals its value
        return False if (a is None or b is None) else UNKNOWN
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        result: object = True
        for x, y in zip(a, b):
            same = equal(x, y)
            if same is False:
                return False
            if same is UNKNOWN:
                result = UNKNOWN
        return result
    if not (known(a) and known(b)):
        return UNKNOWN
    return a == b


def _same_device(a: object, b: object) -> object:
    """Devices: of other types, unequal; both the CPU, equal. Two of one accelerator type are
    unknown (``torch.device("cuda")`` is not a tensor's ``cuda:0``), and so is a device against a
    string."""
    if a is None or b is None:
        return False
    if not (isinstance(a, Device) and isinstance(b, Device)) or a.type is UNKNOWN or b.type is UNKNOWN:
        return UNKNOWN
    if a.type != b.type:
        return False
    return True if a.type == "cpu" else UNKNOWN


def _contains(container: object, item: object) -> object:
    if container is UNKNOWN or isinstance(container, (Tensor, Ref)):
        return UNKNOWN
    if isinstance(container, str):
        return container.__contains__(item) if isinstance(item, str) else UNKNOWN
    if isinstance(container, dict):
        container = list(container)
    if not isinstance(container, (tuple, list, frozenset)):
        return UNKNOWN
    result: object = False
    for element in container:
        same = equal(element, item)
        if same is True:
            return True
        if same is UNKNOWN:
            result = UNKNOWN
    return result


def _compare(node: ast.Compare, env: dict) -> object:
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
            value = _contains(right, left)
            if value is not UNKNOWN and kind is ast.NotIn:
                value = not value
        elif kind in (ast.Is, ast.IsNot):
            value = _identical(left, right)
            if value is not UNKNOWN and kind is ast.IsNot:
                value = not value
        else:
            if not (_orderable(left, right)):
                value = UNKNOWN
            else:
                value = _COMPARE[kind](left, right)
        if value is False:
            return False
        if value is UNKNOWN:
            result = UNKNOWN
        left = right
    return result


def _identical(a: object, b: object) -> object:
    """``a is b`` where it is certain: against None or a bool (the only identities sglang tests)."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    for x, y in ((a, b), (b, a)):
        if isinstance(x, TruthOnly):  # a true value is no None and no False; a false one may be either
            return False if x.truth and (y is None or y is False) else UNKNOWN
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a is b
    # (enum members are singletons: identity is equality)
    return equal(a, b) if isinstance(a, (Ref, Member)) and isinstance(b, (Ref, Member)) else UNKNOWN


def _orderable(a: object, b: object) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return True
    if isinstance(a, str) and isinstance(b, str):
        return True
    return isinstance(a, tuple) and isinstance(b, tuple) and known(a) and known(b)


def _binary(node: ast.BinOp, env: dict) -> object:
    return arithmetic(type(node.op), _eval(node.left, env), _eval(node.right, env))


def arithmetic(op_type: type, left: object, right: object) -> object:
    """``left <op> right`` for an :mod:`ast` operator class, on known numbers (and ``+`` of
    sequences); UNKNOWN for anything else, or a result too big or failing to compute."""
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    bitwise = _BITWISE.get(op_type)
    if bitwise is not None:  # on ints only (on bools and tensors these are logical or elementwise)
        if type(left) is int and type(right) is int and not (op_type is ast.LShift and right > 64):
            return bitwise(left, right)
        return UNKNOWN
    op = _ARITHMETIC.get(op_type)
    if op is None:
        return UNKNOWN
    numbers = (int, float)
    if isinstance(left, numbers) and isinstance(right, numbers):
        if op_type is ast.Pow and abs(right) > 64 or op_type in (ast.Div, ast.FloorDiv, ast.Mod) and right == 0:
            return UNKNOWN  # sglang fails another way (ZeroDivisionError), not at the raise
        return op(left, right)
    if op_type is ast.Add and type(left) is type(right) and isinstance(left, (str, tuple, list)):
        return op(left, right)
    return UNKNOWN  # (``str % args`` is formatting: the message, not the test)


def _attribute(value: object, name: str) -> object:
    if isinstance(value, Ref):
        if value.qualified == "torch":
            ref = dtype_ref(name)
            # torch's classes and constants; anything else (torch.version.hip) is the install's
            return ref if ref is not None else Ref(f"torch.{name}") if name in TORCH_NAMES else UNKNOWN
        if value.qualified == "math" and name in ("inf", "pi", "e"):
            return getattr(math, name)
        return Ref(f"{value.qualified}.{name}")
    if isinstance(value, Tensor) and value.library != "torch":
        if name == "shape":
            return value.shape
        if name == "ndim":
            return len(value.shape) if value.shape is not UNKNOWN else UNKNOWN
        return value.dtype if name == "dtype" else UNKNOWN
    if isinstance(value, Tensor):
        if name == "shape":
            return value.shape
        if name == "ndim":
            return len(value.shape) if value.shape is not UNKNOWN else UNKNOWN
        if name == "dtype":
            return value.dtype
        if name == "device":
            return value.device
        if name == "is_cuda":
            return UNKNOWN if value.device.type is UNKNOWN else value.device.type == "cuda"
        if name == "is_cpu":
            return UNKNOWN if value.device.type is UNKNOWN else value.device.type == "cpu"
        if name == "requires_grad":
            return value.requires_grad
        if name == "layout":
            return Ref("torch.strided")  # every tensor the engine follows is made dense
        return _Method(value, name) if name in TENSOR_METHODS else UNKNOWN
    if isinstance(value, Record):
        return value.attribute(name)
    if isinstance(value, Member):
        return value.name if name == "name" else UNKNOWN
    if isinstance(value, Device):
        return value.type if name == "type" else value.index if name == "index" else UNKNOWN
    if isinstance(value, (dict, str, tuple, list)) and (name in VALUE_METHODS or name in MORE_VALUE_METHODS):
        return _Method(value, name)
    return UNKNOWN


# torch's names a path may read: classes (for isinstance) and layout constants.
TORCH_NAMES = frozenset({"Tensor", "dtype", "device", "strided", "Size", "nn", "Generator", "sparse_coo"})
TENSOR_METHODS = frozenset({"dim", "ndimension", "size", "numel", "is_contiguous", "stride", "is_floating_point",
                            "element_size", "view", "reshape", "contiguous"})
VALUE_METHODS = frozenset({"get", "keys", "values", "startswith", "endswith", "lower", "upper", "strip", "count",
                           "index"})
# More methods of strings and dicts the evaluator knows, which only the start-up rules use
# (derive/startup.py); the fails-when paths of derive/paths.py read VALUE_METHODS alone.
MORE_VALUE_METHODS = frozenset({"split", "rsplit", "lstrip", "rstrip", "isdigit", "isalnum", "isidentifier",
                                "replace", "items"})


@dataclass(frozen=True)
class _Method:
    """``receiver.name``, waiting for its call."""

    receiver: object
    name: str


def _index(value: object, key: object) -> object:
    if key is UNKNOWN or value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, dict):
        if not known(key):
            return UNKNOWN
        if key in value:
            return value[key]
        return UNKNOWN  # a KeyError: sglang fails, but not at the raise the rule is for
    if isinstance(value, (tuple, list, str)) and isinstance(key, int) and not isinstance(key, bool):
        return value[key] if -len(value) <= key < len(value) else UNKNOWN
    if isinstance(value, (tuple, list, str)) and isinstance(key, slice):
        return value[key]
    return UNKNOWN


def _subscript(value: object, index: ast.expr, env: dict) -> object:
    if isinstance(index, ast.Slice):
        parts = [(_eval(p, env) if p is not None else None) for p in (index.lower, index.upper, index.step)]
        if any(p is UNKNOWN or not (p is None or isinstance(p, int)) for p in parts):
            return UNKNOWN
        return _index(value, slice(*parts))
    return _index(value, _eval(index, env))


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
    if isinstance(func, _Method):
        return _method(func.receiver, func.name, args, keywords)
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
    if name in ENVIRON_PARSERS:
        return _environ(name, args[0]) if len(args) == 1 and isinstance(args[0], str) else UNKNOWN
    if name == "len" and len(args) == 1:
        value = args[0]
        if isinstance(value, Tensor):
            shape = value.shape
            return shape[0] if shape is not UNKNOWN and shape else UNKNOWN
        return len(value) if isinstance(value, (tuple, list, dict, str, frozenset)) else UNKNOWN
    if name in _AGGREGATE and len(args) >= 1:
        return _aggregate(name, args if len(args) > 1 else args[0])
    if name in ("abs", "int", "float", "bool", "str", "round") and len(args) == 1 and known(args[0]):
        value = args[0]
        if name == "str" and not isinstance(value, (str, int, float)) or name != "str" and isinstance(value, Ref):
            return UNKNOWN
        if name in ("int", "float") and isinstance(value, str):
            return UNKNOWN  # parsing: sglang fails another way on a bad string
        return {"abs": abs, "int": int, "float": float, "bool": bool, "str": str, "round": round}[name](value)
    if name == "math.prod" and len(args) == 1 and isinstance(args[0], (tuple, list)) and known(args[0]):
        return math.prod(args[0])
    return UNKNOWN


def _environ(parser: str, text: str) -> object:
    """An environment variable's text as sglang reads it: ``envs.X`` of EnvBool / EnvInt /
    EnvFloat / EnvStr, or ``get_bool_env_var`` (true and 1 only). Text sglang would refuse
    is unknown (it fails another way)."""
    lowered = text.strip().lower()
    if parser == "env_str":
        return text
    if parser == "env_bool":
        return True if lowered in ("true", "1", "yes", "y") else False if lowered in ("false", "0", "no", "n") \
            else UNKNOWN
    if parser == "env_truthy":
        return lowered in ("true", "1")
    try:
        return int(text) if parser == "env_int" else float(text)
    except ValueError:
        return UNKNOWN


_AGGREGATE = {"min": min, "max": max, "sum": sum, "any": any, "all": all, "sorted": sorted, "tuple": tuple,
              "list": list, "set": frozenset}


def _aggregate(name: str, items: object) -> object:
    """``sum(items)``, ``tuple(items)``... of a sequence (or a dict's keys) whose every item is known."""
    if isinstance(items, dict):
        items = list(items)
    if not isinstance(items, (tuple, list, frozenset)) or not known(list(items)):
        return UNKNOWN
    return _AGGREGATE[name](items)


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
        return _aggregate(how, made)
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


def _contiguous_strides(shape: tuple) -> object:
    if not known(list(shape)):
        return UNKNOWN
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def reshaped(tensor: Tensor, sizes: list) -> object:
    """``x.view(a, -1)`` / ``x.reshape((a, b))`` of a tensor whose shape is known."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = list(sizes[0])
    whole = (int,)
    if tensor.shape is UNKNOWN or not all(isinstance(v, whole) and not isinstance(v, bool)
                                          for v in (*tensor.shape, *sizes)):
        return Tensor(UNKNOWN, tensor.dtype, tensor.device, tensor.requires_grad)
    total, given = math.prod(tensor.shape), math.prod(size for size in sizes if size != -1)
    if sizes.count(-1) > 1 or given == 0:
        return UNKNOWN
    shape = tuple(total // given if size == -1 else size for size in sizes)
    if total != given * (total // given if -1 in sizes else 1):
        return UNKNOWN  # the view itself fails
    return Tensor(shape, tensor.dtype, tensor.device, tensor.requires_grad)


def _method(receiver: object, name: str, args: list, keywords: dict) -> object:
    if isinstance(receiver, Tensor) and receiver.library != "torch":
        return UNKNOWN
    if isinstance(receiver, Tensor):
        shape = receiver.shape
        if name in ("dim", "ndimension") and not args and not keywords:
            return len(shape) if shape is not UNKNOWN else UNKNOWN
        if name == "size" and not keywords:
            if not args:
                return shape
            if len(args) == 1 and shape is not UNKNOWN:
                return _index(shape, args[0])
        if name == "numel" and not args and shape is not UNKNOWN and known(list(shape)):
            return math.prod(shape)
        if name == "is_contiguous" and not args and not keywords:
            if receiver.strides is None:
                return True
            return equal(receiver.strides, _contiguous_strides(shape)) if shape is not UNKNOWN else UNKNOWN
        if name == "stride" and not keywords and shape is not UNKNOWN:
            strides = _contiguous_strides(shape) if receiver.strides is None else receiver.strides
            if not args:
                return strides
            return _index(strides, args[0]) if len(args) == 1 and strides is not UNKNOWN else UNKNOWN
        if name == "is_floating_point" and not args and isinstance(receiver.dtype, Ref):
            return receiver.dtype.qualified[6:] in FLOAT_DTYPES
        if name == "element_size" and not args and isinstance(receiver.dtype, Ref):
            return _ELEMENT_SIZE.get(receiver.dtype.qualified[6:], UNKNOWN)
        if name in ("view", "reshape") and args and not keywords:
            return reshaped(receiver, args) if receiver.strides is None else UNKNOWN
        if name == "contiguous" and not args and not keywords:
            return Tensor(shape, receiver.dtype, receiver.device, receiver.requires_grad)
        return UNKNOWN
    if isinstance(receiver, dict):
        if name == "get" and 1 <= len(args) <= 2 and not keywords and known(args[0]):
            if args[0] in receiver:
                return receiver[args[0]]
            return args[1] if len(args) == 2 else None
        if name in ("keys", "values") and not args:
            return list(receiver) if name == "keys" else list(receiver.values())
        if name == "items" and not args:
            return [(k, v) for k, v in receiver.items()]
        return UNKNOWN
    if isinstance(receiver, str) and not keywords and known(args):
        if name in ("startswith", "endswith") and len(args) == 1 and isinstance(args[0], (str, tuple)):
            return getattr(receiver, name)(args[0])
        if name in ("lower", "upper", "strip", "lstrip", "rstrip", "isdigit", "isalnum", "isidentifier") \
                and not args:
            return getattr(receiver, name)()
        if name in ("lstrip", "rstrip") and len(args) == 1 and isinstance(args[0], str):
            return getattr(receiver, name)(args[0])
        if name in ("split", "rsplit") and len(args) <= 2 and all(
                isinstance(a, (str, int)) or a is None for a in args):
            return getattr(receiver, name)(*args)
        if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
            return receiver.replace(*args)
        return UNKNOWN
    if isinstance(receiver, (tuple, list)) and name in ("count", "index") and len(args) == 1 and known(
            list(receiver)) and known(args[0]):
        try:
            return getattr(receiver, name)(args[0])
        except ValueError:
            return UNKNOWN
    return UNKNOWN


_ELEMENT_SIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "int16": 2,
                 "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1}
