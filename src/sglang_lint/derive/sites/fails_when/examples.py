"""The example calls of a fails-when site: a binding of the parameters its path reads that makes
the path certainly true (the bad call), one as close as can be found that makes it certainly
false (the good), and how a value is written in an example so that the engine reads it back."""

from __future__ import annotations

import ast
import copy
import functools
import itertools
import random
import zlib
from dataclasses import dataclass, field
from typing import Callable

from sglang_lint.checks.fails_when.check import Parameter
from sglang_lint.checks.fails_when.language import (
    FLOAT_DTYPES, UNKNOWN, VALUE_METHODS, Device, Member, Record, Tensor, dtype_ref, holds, names_read,
)
from sglang_lint.derive.reading.expressions import rooted_at_torch
from sglang_lint.derive.sites.fails_when.solve import goals, matching_tensors, solve
from sglang_lint.derive.source.tree import walk_all
from sglang_lint.text.pynames import NOT_LITERAL, Ref


@dataclass(frozen=True)
class Opaque:
    """An argument an example passes as a name whose value the linter does not know (``x=x``):
    what a call that gets the value from elsewhere looks like; no check can judge it."""

    name: str


# --- the search --------------------------------------------------------------------------------

_SIZES = (1, 2, 3, 4, 8, 16, 64, 128)


def _default_items(parameters) -> set:
    """The scalars the parameters' defaults hold (a default table's keys, a tuple's items):
    another parameter is often tested against them (``if size not in resolutions``)."""
    items = set()
    for parameter in parameters:
        default = parameter.default
        for value in (default if isinstance(default, (dict, tuple, list, frozenset)) else ()):
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                items.add(value)
    return items


def candidates(name: str, expression: ast.expr, parameter: Parameter, extra: frozenset = frozenset()) -> list:
    """Values worth trying for one parameter: the literals the expression compares with (and
    their neighbours), small numbers, None, booleans, strings, tensors and sequences where the
    expression reads a shape or a length."""
    numbers, strings, dtypes = {0, 1, 2, -1}, {"", "x"}, {"float32", "bfloat16", "float8_e4m3fn", "int32"}
    for node in walk_all(expression):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                numbers |= {node.value, node.value - 1, node.value + 1}
            elif isinstance(node.value, str):
                strings.add(node.value)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
            if dtype_ref(node.attr) is not None:
                dtypes.add(dtype_ref(node.attr).qualified[6:])
    numbers |= {v for v in extra if not isinstance(v, str)}
    strings |= {v for v in extra if isinstance(v, str)}
    values: list = [*sorted(numbers, key=lambda n: (abs(n), n)), *sorted(strings), None, True, False]
    if parameter.default is not NOT_LITERAL:
        values.append(parameter.default)
    if isinstance(parameter.default, bool):  # a flag: its examples pass a flag
        values = [True, False, *values]
    reads = {node.attr for node in walk_all(expression) if isinstance(node, ast.Attribute)
             and isinstance(node.value, ast.Name) and node.value.id == name}
    calls = {node.func.id for node in walk_all(expression) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and any(isinstance(a, ast.Name) and a.id == name for a in node.args)}
    sizes = sorted({n for n in numbers if isinstance(n, int) and 0 < n <= 4096} | set(_SIZES))
    if reads & _TENSOR_READS:
        rng = random.Random(zlib.crc32(name.encode()))
        for _ in range(60):
            rank = rng.randint(1, 5)
            shape = tuple(rng.choice(sizes) for _ in range(rank))
            dtype = rng.choice(sorted(dtypes))
            # only floating tensors may require grad (torch refuses the others)
            grad = "requires_grad" in reads and dtype in FLOAT_DTYPES and rng.random() < 0.5
            kind = rng.choice(("cuda", "cpu"))  # (the current accelerator: its index is not known)
            values.append(Tensor(shape, dtype_ref(dtype), Device(kind, None if kind == "cpu" else UNKNOWN), grad))
    iterated = any(isinstance(loop, ast.comprehension) and isinstance(loop.iter, ast.Name) and loop.iter.id == name
                   for loop in walk_all(expression))
    if calls & {"len", "sum", "min", "max", "any", "all", "sorted", "tuple", "list"} or reads & {"get", "keys"} \
            or iterated:
        small = [n for n in numbers if isinstance(n, int) and -2 <= n <= 8]
        for length in range(0, 5):
            values.append([small[i % len(small)] for i in range(length)])
            values.append([1] * length)
        if iterated and any(isinstance(node, ast.Name) and node.id == "tuple" for node in walk_all(expression)):
            # its items tested for tuples (``isinstance(s, tuple)``): sequences of them, and of both
            values += [[(2, 2)] * length for length in range(1, 4)] + [[4, (2, 2)], [(2, 2), 4, (2, 2)]]
    if reads & {"get", "keys", "values"} or any(
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
            for node in walk_all(expression)):
        keys = sorted(s for s in strings if s)
        values.append({})
        values += [{k: v} for k in keys for v in (0, 1, 2, None, True, False, "x", *sorted(strings))][:60]
    if reads - _TENSOR_READS - VALUE_METHODS and not reads & _TENSOR_READS:
        values += _namespaces(name, expression, sorted(reads - VALUE_METHODS))
    if parameter.var == "**":
        keys = sorted(s for s in strings if s.isidentifier())
        values = [{}] + [{k: v} for k in keys for v in (0, 1, 2, None, True, "x")][:40]
    return values


_TENSOR_READS = frozenset({"shape", "dim", "ndim", "dtype", "device", "is_cuda", "size", "numel", "stride",
                           "is_contiguous", "is_floating_point", "element_size", "ndimension", "requires_grad"})


def _namespaces(name: str, expression: ast.expr, attributes: list[str], most: int = 300) -> list:
    """Objects for a parameter the path reads attributes of (``cfg.backend == "x"``), written
    as ``SimpleNamespace(backend="x")``: each attribute one of the values it is compared with,
    a neighbour of a number, None, a bool or an empty string."""
    pools = []
    for attribute in attributes:
        values = {None, True, False, 0, 1, ""}
        for node in walk_all(expression):
            if isinstance(node, ast.Compare) and any(
                    isinstance(side, ast.Attribute) and side.attr == attribute and isinstance(side.value, ast.Name)
                    and side.value.id == name for side in (node.left, *node.comparators)):
                for side in (node.left, *node.comparators):
                    for constant in walk_all(side):
                        if isinstance(constant, ast.Constant) and isinstance(constant.value, (int, float, str)):
                            values.add(constant.value)
                            if isinstance(constant.value, int) and not isinstance(constant.value, bool):
                                values |= {constant.value - 1, constant.value + 1}
        pools.append(sorted(values, key=lambda v: (type(v).__name__, repr(v))))
    combos = list(itertools.islice(itertools.product(*pools), most)) if _product_size(pools) <= most else [
        tuple(random.Random(zlib.crc32(f"{name}:{i}".encode())).choice(pool) for pool in pools) for i in range(most)]
    return [Record(NAMESPACE, tuple(zip(attributes, combo))) for combo in combos]


NAMESPACE = "types.SimpleNamespace"


def find_examples(site: PathSite, tries: int = 3000, accept: Callable | None = None,
                  first: Callable | None = None, verdicts: dict | None = None) -> tuple[dict, dict] | None:
    """A binding of the parameters the expression reads that makes it certainly true (the bad
    call) and one, as close to it as can be found, that makes it certainly false (the good);
    ``accept(binding)``: what both must also be (a receiver its own constructor accepts);
    ``first(binding)``: what the bad one must also be (no earlier raise of the function certain).
    ``verdicts``: the path's verdict on each binding tried, by its place in the search, kept
    between the searches of one site: they try the same bindings in the same order, but for
    bindings drawn at random, only until a search first looks for a good binding (which draws
    from the same generator)."""
    expression = site.expression
    parameters = [p for p in site.parameters if p.name in site.read]
    extra = frozenset(_default_items(parameters))
    members = [enum.member(name) for enum in site.enums for name in enum.members[:16]]
    compared = _compared_with_members(expression, site.enums)  # (tried with members first)
    pools = [members + candidates(p.name, expression, p, extra) if p.name in compared
             else candidates(p.name, expression, p, extra) + members for p in parameters]
    rng = random.Random(zlib.crc32(site.key.encode()))
    drawn = _product_size(pools) > tries
    combos = (tuple(rng.choice(pool) for pool in pools) for _ in range(tries)) if drawn else itertools.product(*pools)
    attempts = 0  # bad bindings whose every neighbour fails too (the path hardly depends on them)
    verdicts = {} if verdicts is None else verdicts
    for place, combo in enumerate(combos):
        env = dict(zip((p.name for p in parameters), combo))
        verdict = verdicts.get(place) if verdicts is not None else None
        if verdict is None:
            verdict = holds(expression, env)
            if verdicts is not None:
                verdicts[place] = verdict
        if verdict is True and (accept is None or accept(env)) and (first is None or first(env)):
            if drawn:
                verdicts = None  # (the next bindings drawn are not those another search drew)
            good = _nearest_false(site, env, parameters, pools, rng, accept=accept)
            if good is not None:
                return env, good
            attempts += 1
            if attempts >= 3:
                return None
    return None


def _compared_with_members(expression: ast.expr, enums) -> set[str]:
    """The names a comparison in ``expression`` sets against an enum's member."""
    classes = {enum.qualified for enum in enums}
    found = set()
    for node in walk_all(expression):
        if isinstance(node, ast.Compare) and any(
                isinstance(n, ast.Attribute) and ast.unparse(n.value) in classes for n in walk_all(node)):
            found |= {n.id for n in walk_all(node) if isinstance(n, ast.Name)}
    return found


def _product_size(pools) -> int:
    size = 1
    for pool in pools:
        size *= max(len(pool), 1)
    return size


def _nearest_false(site: PathSite, bad: dict, parameters, pools, rng, tries: int = 1000,
                   accept: Callable | None = None) -> dict | None:
    """The bad binding with one value changed, else any binding, that makes the path false."""
    def good(env: dict) -> bool:
        return passes(site, env) and (accept is None or accept(env))

    matching = matching_tensors(site.expression, bad)
    for parameter, pool in zip(parameters, pools):
        for value in matching.get(parameter.name, []) + pool:
            env = dict(bad)
            env[parameter.name] = value
            if good(env):
                return env
    for _ in range(tries):
        env = {p.name: rng.choice(pool) for p, pool in zip(parameters, pools)}
        if good(env):
            return env
    by_name = {p.name: pool for p, pool in zip(parameters, pools)}
    for variant in [site.expression, *site.variants]:  # a chain of tests: met one after the other
        env = solve(goals(variant, False), bad, by_name)
        if env is not None and good(env):
            return env
    return None


def passes(site: PathSite, called: dict) -> bool:
    """Does a call binding the parameters so (``path_called``) certainly not take the path? A
    path that reads torch's state (``torch.is_grad_enabled()``, ``torch.version.hip``) is never
    certainly false at a call: such a call passes where it is false in some state of torch (on
    CUDA, under no_grad) and not true whatever the state."""
    verdict = holds(site.expression, called)
    return verdict is False or verdict is not True and any(holds(v, called) is False for v in site.variants)


def state_variants(expression: ast.expr) -> list[ast.expr]:
    """The path with torch's state queries replaced by each of True, False and None."""
    queries = sorted({ast.dump(node) for node in walk_all(expression) if _is_state_query(node)})
    if not queries or len(queries) > 2:
        return []

    class Replace(ast.NodeTransformer):
        def __init__(self, values: dict):
            self.values = values

        def visit(self, node):
            dumped = ast.dump(node) if isinstance(node, (ast.Call, ast.Attribute)) else None
            return ast.Constant(self.values[dumped]) if dumped in self.values else self.generic_visit(node)

    return [Replace(dict(zip(queries, values))).visit(copy.deepcopy(expression))
            for values in itertools.product((True, False, None), repeat=len(queries))]


def _is_state_query(node: ast.AST) -> bool:
    """``torch.f()`` with no argument, or ``torch.version.x``: what the install or the process holds."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
        if not isinstance(node, ast.Attribute):
            return False
    elif not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "version"):
        return False
    return rooted_at_torch(node)


def representable(value: object) -> bool:
    """Can an example call write this value so that the engine reads it back?"""
    if value is UNKNOWN:
        return False
    if isinstance(value, Opaque):
        return True
    if isinstance(value, (list, tuple)):
        return all(representable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and representable(v) for k, v in value.items())
    if isinstance(value, Tensor):
        return isinstance(value.dtype, Ref) and value.device.type in ("cuda", "cpu")
    if isinstance(value, Record):
        return value.kind == NAMESPACE and all(representable(v) for _, v in value.attributes)
    return value is None or isinstance(value, (bool, int, float, str, Member))


def write_value(value: object) -> str:
    if isinstance(value, Opaque):
        return value.name
    if isinstance(value, Tensor):
        sizes = ", ".join(str(s) for s in value.shape)
        grad = ", requires_grad=True" if value.requires_grad is True else ""
        return f"torch.zeros({sizes}, dtype={value.dtype.qualified}, device={value.device.type!r}{grad})"
    if isinstance(value, Record):
        return "SimpleNamespace(" + ", ".join(f"{k}={write_value(v)}" for k, v in value.attributes) + ")"
    if isinstance(value, Member):
        return f"{value.enum.rpartition('.')[2]}.{value.name}"  # (the example imports the class)
    if isinstance(value, list):
        return "[" + ", ".join(write_value(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(write_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {write_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


@dataclass
class PathSite:
    """A raise site with a fails-when path: where it is, the path as one expression over the
    parameters, the callable a user calls to reach it, and its examples once found."""

    module: str
    function: str
    exception: str
    message: str
    line: int
    when: str
    parameters: tuple[Parameter, ...]
    target: object  # sites.CallTarget (kind, name; no argument: the check reads every parameter)
    bad: dict | None = None
    good: dict | None = None
    records: tuple = ()  # (qualified class, RecordClass) of parameters whose attributes the path reads
    receiver: str = ""  # a method's class, when the call must show its receiver is one (a shared name)
    # a method's receivers as written: its class, and (unless its constructor's state is read) the
    # sglang classes that inherit the method (derive/reading/hierarchy.py); a call must show one of them
    receivers: tuple[str, ...] = ()
    on_class: bool = False  # a class or static method: the receiver may be the class itself
    called: bool = False  # calling an instance runs the method (derive/state.runs_when_called)
    # (binding) -> is the receiver its examples make accepted by its own constructor? (None: not read)
    accept: Callable | None = field(default=None, repr=False, compare=False)
    enums: tuple = ()  # the sglang enums (checks.fails_when.EnumClass) whose members the path reads
    plain_message: str = ""  # the message with its placeholders as bare expressions (raise_message plain)
    shown: tuple = ()  # each placeholder's value over the parameters, in order ("": not known)

    @functools.cached_property
    def expression(self) -> ast.expr:
        """``when``, parsed once (the example searches evaluate it thousands of times)."""
        return ast.parse(self.when, mode="eval").body

    @functools.cached_property
    def variants(self) -> list[ast.expr]:
        """The path with torch's state queries replaced by each of True, False and None."""
        return state_variants(self.expression)

    @functools.cached_property
    def read(self) -> frozenset[str]:
        """The names ``when`` reads (the searches ask it for every binding they try)."""
        return frozenset(names_read(self.expression))

    @property
    def key(self) -> str:
        return f"{self.module}:{self.function}:fails-when:{self.exception}:{self.named_by}"

    @property
    def named_by(self) -> str:
        """The message as the rule's key and name read it: placeholders without their
        conversion and format spec, so showing a value another way keeps the code."""
        return self.plain_message or self.message
