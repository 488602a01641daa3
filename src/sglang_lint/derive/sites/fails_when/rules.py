"""fails-when rules from sglang's tree: which raise sites get one, the example calls that show
each, and the rule file written for it. The path itself is derive/reading/paths.py's."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import random
import re
import zlib
from collections import Counter

from sglang_lint.checks.fails_when.check import Parameter
from sglang_lint.checks.fails_when.language import UNKNOWN, equal, holds, names_read
from sglang_lint.derive.sites.fails_when.examples import (
    Opaque, PathSite, candidates, find_examples, passes, representable,
)
from sglang_lint.derive.reading.constants import parameters_of
from sglang_lint.derive.sites.fails_when.records import PlainClasses, annotated_records, post_init_fields
from sglang_lint.derive.sites.fails_when.solve import NOT_TRUE, goals, solve
from sglang_lint.derive.reading.guards import Skip, assert_as_raise, is_check_helper, raise_message
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.reading.paths import derive_path, enums_read
from sglang_lint.derive.reading.state import receiver_state, runs_when_called
from sglang_lint.derive.source.tree import (
    COMMON_METHODS,
    TRANSPARENT_DECORATORS,
    Module,
    local_raises,
    method_owners,
    walk_all,
    walk_local,
)
from sglang_lint.text.pynames import NOT_LITERAL


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
    if function.name == "__call__":  # run by calling an instance, whose class the call must show
        return "method", function.name, True, f"{module.name}.{owner.name}"
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
    for node in local_raises(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exception, message = raise_message(node)
            yield node, exception, message, raise_message(node, plain=True)[1]
        elif isinstance(node, ast.Assert):
            # read as the other derived rules and `catalog verify` read an assert's message
            raised = assert_as_raise(node)
            yield node, "AssertionError", raise_message(raised)[1], raise_message(raised, plain=True)[1]


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
    one_param: dict[tuple, list] = {}
    for site in rule_sites:
        if site.target is not None and site.constraint is not None:
            one_param.setdefault((site.target.kind, site.target.name), []).append(site)
            for through in site.passthrough:  # a caller that hands the argument on checks it too, under its name
                if through.argument:
                    one_param.setdefault((through.kind, through.name), []).append(
                        dataclasses.replace(site, parameter=through.argument))
    name_owners = method_owners(modules)
    by_name = {module.name: module for module in modules}
    classes = PlainClasses(by_name)
    hierarchy = Hierarchy(modules)
    states: dict[int, object] = {}  # id(class statement) -> its ReceiverState (or None)
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
                state = _state_of(kind, function, owner, module, by_name, classes, states)
                if state is not None:  # the receiver's constructor parameters, but those the method's shadow
                    own = {p.name for p in parameters}
                    parameters += tuple(p for p in state.parameters if p.name not in own)
                    attributes = {key: value if value is None or not names_read(value) & own else None
                                  for key, value in state.attributes.items()}
                written = []  # (the raise, its path site): every path of the function, before any example
                for raise_node, exception, message, plain in points:
                    shown: list = []
                    try:
                        covered = _covered(ruled.get((module.name, qualname, raise_node.lineno), ()), (kind, name))
                        when = derive_path(module, function, owner, raise_node, list(parameters), post_init, classes,
                                           covered, attributes if state is not None else None, shown)
                    except Skip as skip:
                        skipped[_reason(str(skip))] += 1
                        continue
                    written.append((raise_node, PathSite(module.name, qualname, exception, message, raise_node.lineno,
                                                         when, parameters, (kind, name), plain_message=plain,
                                                         shown=tuple(shown) if any(shown) else ())))
                guards = [o for o in one_param.get((kind, name), ())
                          if o.module == module.name and o.function == qualname and o.caller is None]
                for raise_node, site in written:
                    site.enums = enums_read(site.expression, classes)
                    if state is not None:
                        site.accept = _made_by(site, f"{module.name}.{owner.name}", found, one_param)
                    first = _raised_first(site, [other for _, other in written if other.line < site.line],
                                          [o for o in guards if o.line < site.line])
                    tried: dict = {}  # (the second search tries the first's bindings again)
                    examples = find_examples(site, accept=site.accept, first=first, verdicts=tried) if first else None
                    examples = examples or find_examples(site, accept=site.accept, verdicts=tried)
                    examples = examples and tuple(_defaults_left_out(parameters, e) for e in examples)
                    if examples is None or not all(representable(v) for e in examples for v in e.values()):
                        skipped["no call found that the path certainly fails (or passes)"] += 1
                        continue
                    site.bad, site.good = examples
                    site.records = _records_read(site, function, module, by_name)
                    site.receiver = receiver
                    site.on_class = kind == "method" and bool(
                        {"classmethod", "staticmethod"} & {ast.unparse(d) for d in function.decorator_list})
                    if kind == "method":
                        site.receivers = hierarchy.receivers(f"{module.name}.{owner.name}", function.name)
                    if any(p.receiver and p.name in site.read for p in parameters):
                        # its receiver's constructor call is read: the call must show it, made by
                        # the class itself (a subclass may construct it otherwise)
                        site.receiver = f"{module.name}.{owner.name}"
                        site.receivers = (site.receiver,)
                        site.called = runs_when_called(function.name, owner, module, by_name)
                    if site.key in found:
                        skipped["a second raise with the same message in the same function"] += 1
                        continue
                    found[site.key] = site
    by_callee: dict[tuple, list[PathSite]] = {}
    for site in found.values():
        by_callee.setdefault((*site.target, site.receiver), []).append(site)
    passing: dict[tuple, dict] = {}
    kept = []
    for (kind, name, receiver), group in sorted(by_callee.items()):
        # one-parameter rules are of functions and uniquely named methods: none shares a receiver's
        group, binding = _passing_together(group, [] if receiver else one_param.get((kind, name), []), skipped)
        made = [site for site in group if site.accept is None or site.accept(site.bad) and site.accept(site.good)]
        skipped["its examples' receiver fails its own constructor's checks"] += len(group) - len(made)
        kept += made
        if binding and not receiver:
            passing[kind, name] = binding
    return sorted(kept, key=lambda s: s.key), skipped, passing


def _raised_first(site: PathSite, paths: list[PathSite], guards: list):
    """For a site's bad example: is no raise on an earlier line of its function (``paths``, the
    one-parameter ``guards``) certain on the binding? Else sglang raises there first, and the
    example shows that raise, not its own. None where there is none to pass."""
    if not paths and not guards:
        return None

    def passes_earlier(env: dict) -> bool:
        called = path_called(site, env)
        return all(holds(p.expression, path_called(p, env)) is not True for p in paths) and not any(
            _may_fail(g, called) for g in guards)
    return passes_earlier


def _made_by(site: PathSite, owner: str, found: dict, one_param: dict):
    """For a site that reads its receiver's state: does a binding make its receiver with
    arguments the receiver's own constructor accepts (else the call fails there first)? The
    constructor's fails-when sites found so far (``__init__`` comes first in a class) and its
    one-parameter rules."""
    made_with = {p.name for p in site.parameters if p.receiver}
    if not made_with & site.read:
        return None
    target = ("class", owner)
    sites = [other for other in found.values() if other.target == target]
    rules = one_param.get(target, [])

    def accept(env: dict) -> bool:
        made = {name: value for name, value in env.items() if name in made_with}
        return all(holds(other.expression, path_called(other, made)) is not True for other in sites) and not any(
            _may_fail(rule, made) for rule in rules)
    return accept


def _state_of(kind: str, function: ast.FunctionDef, owner, module: Module, modules: dict, classes, states: dict):
    """The receiver's state a method may read (derive/reading/state.py): for an instance method only."""
    if kind != "method" or owner is None or {ast.unparse(d) for d in function.decorator_list} & {
            "classmethod", "staticmethod"}:
        return None
    if id(owner) not in states:
        states[id(owner)] = receiver_state(module, owner, modules, classes)
    return states[id(owner)]


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
    """The record classes (derive/sites/fails_when/records.py) that the parameters the path reads attributes of
    are annotated with; a call that makes one is then followed."""
    read = {node.value.id for node in walk_all(site.expression)
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
    texts = sorted({node.value for site in group for node in walk_all(site.expression)
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
                pools[name] += candidates(name, expression, parameters[name])
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
    """The parameters as a call passing ``env`` binds them (checks/fails_when/check.py ``bind``): the
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
            pools.setdefault(name, []).extend(candidates(name, expression, parameters[name]))
    bindings = [{}] + [{k: v for k, v in s.good.items() if k in parameters} for s in group]
    # pieces of the strings the checks test against ("0" of "0123456789abcdef"): a value that
    # passes a length test and a character test at once
    bindings += [{**s.good, name: part} for s in group for name in sorted(s.read & set(pools))
                 for part in _string_parts(group) if name in s.good and isinstance(s.good[name], str)]
    rng = random.Random(zlib.crc32(group[0].key.encode()))
    names = sorted(pools)
    for _ in range(tries):
        bindings.append({n: rng.choice(pools[n]) for n in names if rng.random() < 0.6})
    for env in bindings:
        if all(representable(v) for v in env.values()) and _passes_all(env, group, one_param):
            return env
    return None
