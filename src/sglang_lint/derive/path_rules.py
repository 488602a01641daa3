"""fails-when rules from sglang's tree: which raise sites get one, the example calls that show
each, and the rule file written for it. The path itself is derive/paths.py's."""

from __future__ import annotations

import ast
import copy
import functools
import itertools
import random
import re
import zlib
from collections import Counter
from dataclasses import dataclass

from sglang_lint.checks.fails_when import Parameter
from sglang_lint.checks.when import (
    FLOAT_DTYPES,
    UNKNOWN,
    VALUE_METHODS,
    Device,
    Member,
    Record,
    Tensor,
    dtype_ref,
    equal,
    holds,
    names_read,
)
from sglang_lint.derive.guards import Skip, assert_as_raise, is_check_helper, raise_message
from sglang_lint.derive.expressions import rooted_at_torch
from sglang_lint.derive.paths import derive_path, enums_read, parameters_of
from sglang_lint.derive.solve import NOT_TRUE, goals, matching_tensors, solve
from sglang_lint.derive.records import PlainClasses, annotated_records, post_init_fields
from sglang_lint.derive.tree import COMMON_METHODS, TRANSPARENT_DECORATORS, Module, method_owners, walk_local
from sglang_lint.pynames import NOT_LITERAL, Ref


@dataclass
class PathSite:
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
    on_class: bool = False  # a class or static method: the receiver may be the class itself
    enums: tuple = ()  # the sglang enums (checks.fails_when.EnumClass) whose members the path reads

    @functools.cached_property
    def expression(self) -> ast.expr:
        """``when``, parsed once (the example searches evaluate it thousands of times)."""
        return ast.parse(self.when, mode="eval").body

    @functools.cached_property
    def variants(self) -> list[ast.expr]:
        """The path with torch's state queries replaced by each of True, False and None."""
        return _state_variants(self.expression)

    @functools.cached_property
    def read(self) -> frozenset[str]:
        """The names ``when`` reads (the searches ask it for every binding they try)."""
        return frozenset(names_read(self.expression))

    @property
    def key(self) -> str:
        return f"{self.module}:{self.function}:fails-when:{self.exception}:{self.message}"


# --- examples --------------------------------------------------------------------------------

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


def _candidates(name: str, expression: ast.expr, parameter: Parameter, extra: frozenset = frozenset()) -> list:
    """Values worth trying for one parameter: the literals the expression compares with (and
    their neighbours), small numbers, None, booleans, strings, tensors and sequences where the
    expression reads a shape or a length."""
    numbers, strings, dtypes = {0, 1, 2, -1}, {"", "x"}, {"float32", "bfloat16", "float8_e4m3fn", "int32"}
    for node in ast.walk(expression):
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
    reads = {node.attr for node in ast.walk(expression) if isinstance(node, ast.Attribute)
             and isinstance(node.value, ast.Name) and node.value.id == name}
    calls = {node.func.id for node in ast.walk(expression) if isinstance(node, ast.Call)
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
                   for loop in ast.walk(expression))
    if calls & {"len", "sum", "min", "max", "any", "all", "sorted", "tuple", "list"} or reads & {"get", "keys"} \
            or iterated:
        small = [n for n in numbers if isinstance(n, int) and -2 <= n <= 8]
        for length in range(0, 5):
            values.append([small[i % len(small)] for i in range(length)])
            values.append([1] * length)
    if reads & {"get", "keys", "values"} or any(
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
            for node in ast.walk(expression)):
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
        for node in ast.walk(expression):
            if isinstance(node, ast.Compare) and any(
                    isinstance(side, ast.Attribute) and side.attr == attribute and isinstance(side.value, ast.Name)
                    and side.value.id == name for side in (node.left, *node.comparators)):
                for side in (node.left, *node.comparators):
                    for constant in ast.walk(side):
                        if isinstance(constant, ast.Constant) and isinstance(constant.value, (int, float, str)):
                            values.add(constant.value)
                            if isinstance(constant.value, int) and not isinstance(constant.value, bool):
                                values |= {constant.value - 1, constant.value + 1}
        pools.append(sorted(values, key=lambda v: (type(v).__name__, repr(v))))
    combos = list(itertools.islice(itertools.product(*pools), most)) if _product_size(pools) <= most else [
        tuple(random.Random(zlib.crc32(f"{name}:{i}".encode())).choice(pool) for pool in pools) for i in range(most)]
    return [Record(NAMESPACE, tuple(zip(attributes, combo))) for combo in combos]


NAMESPACE = "types.SimpleNamespace"


def find_examples(site: PathSite, tries: int = 3000) -> tuple[dict, dict] | None:
    """A binding of the parameters the expression reads that makes it certainly true (the bad
    call) and one, as close to it as can be found, that makes it certainly false (the good)."""
    expression = site.expression
    parameters = [p for p in site.parameters if p.name in site.read]
    extra = frozenset(_default_items(parameters))
    members = [enum.member(name) for enum in site.enums for name in enum.members[:16]]
    compared = _compared_with_members(expression, site.enums)  # (tried with members first)
    pools = [members + _candidates(p.name, expression, p, extra) if p.name in compared
             else _candidates(p.name, expression, p, extra) + members for p in parameters]
    rng = random.Random(zlib.crc32(site.key.encode()))
    combos = itertools.product(*pools) if _product_size(pools) <= tries else (
        tuple(rng.choice(pool) for pool in pools) for _ in range(tries))
    attempts = 0  # bad bindings whose every neighbour fails too (the path hardly depends on them)
    for combo in combos:
        env = dict(zip((p.name for p in parameters), combo))
        if holds(expression, env) is True:
            good = _nearest_false(site, env, parameters, pools, rng)
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
    for node in ast.walk(expression):
        if isinstance(node, ast.Compare) and any(
                isinstance(n, ast.Attribute) and ast.unparse(n.value) in classes for n in ast.walk(node)):
            found |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return found


def _product_size(pools) -> int:
    size = 1
    for pool in pools:
        size *= max(len(pool), 1)
    return size


def _nearest_false(site: PathSite, bad: dict, parameters, pools, rng, tries: int = 1000) -> dict | None:
    """The bad binding with one value changed, else any binding, that makes the path false."""
    matching = matching_tensors(site.expression, bad)
    for parameter, pool in zip(parameters, pools):
        for value in matching.get(parameter.name, []) + pool:
            env = dict(bad)
            env[parameter.name] = value
            if passes(site, env):
                return env
    for _ in range(tries):
        env = {p.name: rng.choice(pool) for p, pool in zip(parameters, pools)}
        if passes(site, env):
            return env
    by_name = {p.name: pool for p, pool in zip(parameters, pools)}
    for variant in [site.expression, *site.variants]:  # a chain of tests: met one after the other
        env = solve(goals(variant, False), bad, by_name)
        if env is not None and passes(site, env):
            return env
    return None


def passes(site: PathSite, called: dict) -> bool:
    """Does a call binding the parameters so (``path_called``) certainly not take the path? A
    path that reads torch's state (``torch.is_grad_enabled()``, ``torch.version.hip``) is never
    certainly false at a call: such a call passes where it is false in some state of torch (on
    CUDA, under no_grad) and not true whatever the state."""
    verdict = holds(site.expression, called)
    return verdict is False or verdict is not True and any(holds(v, called) is False for v in site.variants)


def _state_variants(expression: ast.expr) -> list[ast.expr]:
    """The path with torch's state queries replaced by each of True, False and None."""
    queries = sorted({ast.dump(node) for node in ast.walk(expression) if _is_state_query(node)})
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


# --- the whole tree --------------------------------------------------------------------------

def _target(module: Module, function: ast.FunctionDef, owner: ast.ClassDef | None,
            method_owners) -> tuple[str, str, bool, str]:
    """(kind, name, drop_first, receiver) of the callable a user calls to run ``function``;
    Skip when there is none that can be matched with certainty. ``receiver``: the class a
    method's receiver must be shown to be an instance of (a name many classes share)."""
    decorators = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in function.decorator_list]
    if not set(decorators) <= TRANSPARENT_DECORATORS:
        raise Skip(f"decorated with {', '.join(decorators)}")
    if isinstance(function, ast.AsyncFunctionDef) or any(
            isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk_local(function)):
        raise Skip("a generator or coroutine: calling it runs nothing")
    if is_check_helper(function):
        raise Skip("a check helper: its callers call it in order to raise")
    static = "staticmethod" in decorators
    if owner is None:
        if function.name.startswith("__"):
            raise Skip("a special function")
        return "function", f"{module.name}.{function.name}", False, ""
    if function.name == "__init__":
        if any(isinstance(i, ast.FunctionDef) and i.name == "__new__" for i in owner.body):
            raise Skip("a class with its own __new__")
        return "class", f"{module.name}.{owner.name}", True, ""
    if function.name == "__post_init__" and post_init_fields(owner) is not None:
        return "class", f"{module.name}.{owner.name}", True, ""
    if function.name.startswith("__"):
        raise Skip("a special method")
    if method_owners[function.name] > 1 or function.name in COMMON_METHODS or "_" not in function.name.strip("_"):
        # matched only on a receiver shown to be of the class (made there: ``Planner().set_shared(...)``,
        # or the class itself for a class or static method); the prefilter asks for the class's name
        # too, so ``build`` alone lets no file through
        return "method", function.name, not static, f"{module.name}.{owner.name}"
    return "method", function.name, not static, ""


def _raise_points(function: ast.FunctionDef):
    """Every raise (and assert) of the function's own body, with its exception and message."""
    for node in walk_local(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exception, message = raise_message(node)
            yield node, exception, message
        elif isinstance(node, ast.Assert):
            # read as the other derived rules and `catalog verify` read an assert's message
            yield node, "AssertionError", raise_message(assert_as_raise(node))[1]


_REASONS = (  # the derivation's reasons with the names taken out, to count them
    (re.compile(r"calls \S+ with .*|calls \S+ leaving out .*|calls \S+ \(its \* parameters\)"),
     "calls a helper with arguments it cannot match"),
    (re.compile(r"calls .*"), "calls a function the evaluator does not know"),
    (re.compile(r"reads the global name .*"), "reads a global name that is not a literal constant"),
    (re.compile(r".* is computed by something not followed"), "reads a name computed by something not followed"),
    (re.compile(r"reads self\..*"), "reads an attribute of self the function did not set before"),
    (re.compile(r"\S+ does more than test and return|\S+ may return nothing"),
     "calls a helper that does more than test and return"),
)


def _reason(text: str) -> str:
    head, _, detail = text.partition(": ")
    for pattern, reason in _REASONS:
        if pattern.fullmatch(detail):
            return f"{head}: {reason}"
    return text


def derive_paths(modules: list[Module], rule_sites: list) -> tuple[list[PathSite], Counter, dict]:
    """A fails-when site for every raise whose path can be written and exemplified, but those
    another rule (``rule_sites``, the one-parameter deriver's) already checks; the reasons the
    others were left, counted; and, per callable, keyword arguments with which none of its checks
    fails (the one-parameter rules' examples pass them too)."""
    ruled: dict[tuple, list] = {}
    for rule_site in rule_sites:
        ruled.setdefault((rule_site.module, rule_site.function, rule_site.line), []).append(rule_site)
    name_owners = method_owners(modules)
    by_name = {module.name: module for module in modules}
    classes = PlainClasses(by_name)
    found: dict[str, PathSite] = {}
    skipped: Counter = Counter()
    for module in modules:
        for node in module.tree.body:
            owners = [(node, None)] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
                (item, node) for item in getattr(node, "body", ()) if isinstance(node, ast.ClassDef)
                and isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for function, owner in owners:
                qualname = f"{owner.name}.{function.name}" if owner else function.name
                points = list(_raise_points(function))
                if not points:
                    continue
                try:
                    kind, name, drop_first, receiver = _target(module, function, owner, name_owners)
                except Skip as skip:
                    skipped[str(skip)] += len(points)
                    continue
                post_init = function.name == "__post_init__"
                parameters = tuple(_field_parameters(post_init_fields(owner)) if post_init
                                   else parameters_of(function, module, drop_first))
                for raise_node, exception, message in points:
                    try:
                        covered = _covered(ruled.get((module.name, qualname, raise_node.lineno), ()), (kind, name))
                        when = derive_path(module, function, owner, raise_node, list(parameters), post_init, classes,
                                           covered)
                    except Skip as skip:
                        skipped[_reason(str(skip))] += 1
                        continue
                    site = PathSite(module.name, qualname, exception, message, raise_node.lineno, when, parameters,
                                    (kind, name))
                    site.enums = enums_read(site.expression, classes)
                    examples = find_examples(site)
                    examples = examples and tuple(_defaults_left_out(parameters, e) for e in examples)
                    if examples is None or not all(representable(v) for e in examples for v in e.values()):
                        skipped["no call found that the path certainly fails (or passes)"] += 1
                        continue
                    site.bad, site.good = examples
                    site.records = _records_read(site, function, module, by_name)
                    site.receiver = receiver
                    site.on_class = bool(receiver) and bool(
                        {"classmethod", "staticmethod"} & {ast.unparse(d) for d in function.decorator_list})
                    if site.key in found:
                        skipped["a second raise with the same message in the same function"] += 1
                        continue
                    found[site.key] = site
    by_callee: dict[tuple, list[PathSite]] = {}
    for site in found.values():
        by_callee.setdefault((*site.target, site.receiver), []).append(site)
    one_param: dict[tuple, list] = {}
    for site in rule_sites:
        if site.target is not None and site.constraint is not None:
            one_param.setdefault((site.target.kind, site.target.name), []).append(site)
    passing: dict[tuple, dict] = {}
    kept = []
    for (kind, name, receiver), group in sorted(by_callee.items()):
        # one-parameter rules are of functions and uniquely named methods: none shares a receiver's
        group, binding = _passing_together(group, [] if receiver else one_param.get((kind, name), []), skipped)
        kept += group
        if binding and not receiver:
            passing[kind, name] = binding
    return sorted(kept, key=lambda s: s.key), skipped, passing


def _covered(rule_sites: list, target: tuple) -> tuple[str, ...]:
    """What the one-parameter rules of a raise report on calls of ``target``, as expressions
    (the fails-when path leaves those calls to them); Skip when one of them cannot be written."""
    found = []
    for site in rule_sites:
        if site.target is None or (site.target.kind, site.target.name) != target:
            continue
        violation = site.constraint.violation(site.parameter) if site.constraint else None
        if violation is None:
            raise Skip("a one-parameter rule checks an isinstance test of the raise")
        found.append(" and ".join([c.source() for c, *_ in site.conditions] + [violation]))
    return tuple(found)


def _records_read(site: PathSite, function: ast.FunctionDef, module: Module, modules: dict) -> tuple:
    """The record classes (derive/records.py) that the parameters the path reads attributes of
    are annotated with; a call that makes one is then followed."""
    read = {node.value.id for node in ast.walk(site.expression)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
    args = function.args
    found = {}
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg in read:
            found.update(annotated_records(arg.annotation, module, modules))
    return tuple(sorted(found.items()))


def _field_parameters(record) -> list[Parameter]:
    """A dataclass's fields as the parameters of the ``__init__`` it gets."""
    return [Parameter(name, index if index < record.positional else None, True,
                      record.defaults.get(name, NOT_LITERAL)) for index, name in enumerate(record.fields)]


def _defaults_left_out(parameters, env: dict) -> dict:
    """The binding with the arguments that are their parameter's default and cannot be written
    at a call (a table keyed by numbers) left out: the call that omits them binds the same."""
    defaults = {p.name: p.default for p in parameters if p.default is not NOT_LITERAL and not p.var}
    return {name: value for name, value in env.items()
            if representable(value) or name not in defaults or equal(value, defaults[name]) is not True}


@dataclass(frozen=True)
class Opaque:
    """An argument an example passes as a name whose value the linter does not know (``x=x``):
    what a call that gets the value from elsewhere looks like; no check can judge it."""

    name: str


def _opaque_rest(group: list[PathSite], env: dict) -> dict:
    """``env`` with every other keyword parameter the callable's checks read passed opaque."""
    keywords = {p.name for p in group[0].parameters if p.keyword and not p.var}
    read = set().union(*(s.read for s in group)) & keywords
    return {**{name: Opaque(name) for name in sorted(read - set(env))}, **env}


def _passing_together(group: list[PathSite], one_param: list, skipped: Counter) -> tuple[list, dict]:
    """The sites of one callable whose good examples can pass all its checks at once, each
    site's good example made so, and the binding that passes them all (for the one-parameter
    rules' examples of the callable: their companions). A site no good call can pass
    together with the others is left out."""
    while group:
        binding = _binding_passing_all(group, one_param)
        if binding is None and _passes_all(_opaque_rest(group, {}), group, one_param):
            binding = _opaque_rest(group, {})
        if binding is not None:
            break
        # the sites true when every argument is left out fail every call that omits them
        failing = [s for s in group if holds(s.expression, path_called(s, {})) is True] or group[-1:]
        skipped["no call passes every check of the callable together"] += len(failing)
        group = [s for s in group if s not in failing]
    else:
        return [], {}
    kept = []
    for site in group:
        for good in ({**site.good, **binding}, {**binding, **site.good}, binding, _opaque_rest(group, site.good)):
            if passes(site, path_called(site, good)) and _passes_all(good, group, one_param):
                site.good = good
                kept.append(site)
                break
        else:
            good = _good_passing_all(site, group, one_param)
            if good is None:
                skipped["no call passes every check of the callable together"] += 1
                continue
            site.good = good
            kept.append(site)
    for site in kept:
        site.bad = _failing_alone(site, kept, binding, one_param)
    return kept, binding


def _failing_alone(site: PathSite, group: list[PathSite], binding: dict, one_param: list) -> dict:
    """The site's bad example with its arguments taken, where the site's path stays true, from
    the binding that passes every check or another site's good example, so that no other check
    of the callable rejects it too (the example shows one mistake); else as it is."""
    bad = dict(site.bad)
    for name in sorted(bad):
        for value in [b[name] for b in (binding, *(o.good for o in group)) if name in b]:
            trial = {**bad, name: value}
            if not isinstance(value, Opaque) and holds(site.expression, path_called(site, trial)) is True:
                bad = trial
                break
    alone = all(holds(other.expression, path_called(other, bad)) is not True for other in group if other is not site) \
        and not any(_may_fail(other, path_called(site, bad)) for other in one_param)
    return bad if alone else site.bad


def _string_parts(group: list[PathSite]) -> list[str]:
    """The first character and the first eight of each longer string the checks read."""
    texts = sorted({node.value for site in group for node in ast.walk(site.expression)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 1})
    return list(dict.fromkeys(part for text in texts for part in (text[:1], text[:8])))


def _good_passing_all(site: PathSite, group: list[PathSite], one_param: list, tries: int = 3000) -> dict | None:
    """Values of the parameters the site's path reads that make it false and no other check of
    the callable true (the others' parameters passed opaque)."""
    parameters = {p.name: p for p in site.parameters}
    own = sorted(site.read & set(parameters))
    pools = {name: [] for name in own}
    for other in group:
        expression = other.expression
        for name in own:
            if name in names_read(expression):
                pools[name] += _candidates(name, expression, parameters[name])
    for other in one_param:  # the values the callable's one-parameter rules allow
        if other.parameter in pools and other.constraint.kind == "allowed-values":
            pools[other.parameter] += list(other.constraint.values)
    for name in pools:
        if any(isinstance(value, str) for value in pools[name]):
            pools[name] += _string_parts(group)
    rng = random.Random(zlib.crc32(site.key.encode()) + 1)
    # a chain of tests: the site's own path false and no other check true, met one after the other
    start = path_called(site, _opaque_rest(group, {n: v for n, v in site.good.items() if n in own}))
    others = [(other.expression, NOT_TRUE) for other in group if other is not site and other.read & set(own)]
    solved = next((env for env in (solve(goals(variant, False) + others, start, pools)
                                   for variant in [site.expression, *site.variants]) if env is not None), None)
    tried = itertools.chain(
        [_opaque_rest(group, {name: solved[name] for name in own})] if solved is not None else [],
        (_opaque_rest(group, {name: rng.choice(pools[name]) for name in own}) for _ in range(tries)))
    for env in tried:
        if passes(site, path_called(site, env)) and _passes_all(env, group, one_param) \
                and all(representable(v) for v in env.values()):
            return env
    return None


def path_holds(site: PathSite, env: dict) -> object:
    """Is the site's path certainly taken by a call passing ``env`` (True, False or UNKNOWN)?"""
    return holds(site.expression, path_called(site, env))


def path_called(site: PathSite, env: dict) -> dict:
    """The parameters as a call passing ``env`` binds them (checks/fails_when.py ``bind``): the
    arguments left out hold their literal defaults (else they are unknown)."""
    bound = {}
    for parameter in site.parameters:
        if parameter.name in env:
            bound[parameter.name] = UNKNOWN if isinstance(env[parameter.name], Opaque) else env[parameter.name]
        elif parameter.var == "**":
            bound[parameter.name] = {}
        else:
            bound[parameter.name] = UNKNOWN if parameter.default is NOT_LITERAL or parameter.var else parameter.default
    return bound


def _passes_all(env: dict, group: list[PathSite], one_param: list) -> bool:
    # (the one-parameter rules read the arguments left out as their defaults too)
    called = path_called(group[0], env)
    return all(holds(s.expression, path_called(s, env)) is not True for s in group) and not any(
        _may_fail(o, called) for o in one_param)


def _may_fail(site, env: dict) -> bool:
    """Could a one-parameter rule (sites.GuardedRaise) fire on a call passing ``env``? Its value
    fails the constraint, and no condition of the guard is certainly unmet."""
    value = env.get(site.parameter, NOT_LITERAL)
    if value is NOT_LITERAL or value is UNKNOWN or isinstance(value, Opaque) or not site.constraint.fails(value):
        return False
    for condition, argument, _, default in site.conditions:
        given = env.get(argument, default)
        if isinstance(given, (str, int, float, type(None))) and not condition.passes(given):
            return False
    return True


def _binding_passing_all(group: list[PathSite], one_param: list, tries: int = 2000) -> dict | None:
    """Keyword arguments (as few as can be) with which no check of the callable fails."""
    parameters = {p.name: p for p in group[0].parameters if p.keyword and not p.var}
    pools: dict[str, list] = {}
    for site in group:
        expression = site.expression
        for name in names_read(expression) & set(parameters):
            pools.setdefault(name, []).extend(_candidates(name, expression, parameters[name]))
    candidates = [{}] + [{k: v for k, v in s.good.items() if k in parameters} for s in group]
    # pieces of the strings the checks test against ("0" of "0123456789abcdef"): a value that
    # passes a length test and a character test at once
    candidates += [{**s.good, name: part} for s in group for name in sorted(s.read & set(pools))
                   for part in _string_parts(group) if name in s.good and isinstance(s.good[name], str)]
    rng = random.Random(zlib.crc32(group[0].key.encode()))
    names = sorted(pools)
    for _ in range(tries):
        candidates.append({n: rng.choice(pools[n]) for n in names if rng.random() < 0.6})
    for env in candidates:
        if all(representable(v) for v in env.values()) and _passes_all(env, group, one_param):
            return env
    return None
