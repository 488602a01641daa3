"""The raise sites of one function: every ``raise`` whose guard tests one of its parameters
(:class:`GuardedRaise`), with how a call names the function (:class:`CallTarget`) or why no
rule can be made of it (:func:`analyse_function`).

Precision over recall: a site becomes a rule only when its guard runs on every call (a
top-level statement of the function, after no return, before the parameter is rebound, not
``and``-ed with anything else) and its callee can be named at a call (a module-level
function, a class, or a method name that only one sglang class defines and nothing common
shares). Everything else is counted under the reason it was skipped.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import Counter
from dataclasses import dataclass, field

from sglang_lint.derive.reading.guards import (
    Constraint,
    Params,
    Skip,
    chain_constraint,
    assert_as_raise,
    conditions_of,
    constraint_of,
    negated,
    ends_in_raise,
    is_check_helper,
    match_constraint,
    raise_message,
)
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.reading.lookups import Registries, remember
from sglang_lint.derive.source.tree import (
    COMMON_METHODS, TRANSPARENT_DECORATORS, Module, local_raises, walk_all, walk_local,
)
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal


@dataclass(frozen=True)
class CallTarget:
    """How a call reaches a raise site's function, and where the parameter goes in it."""

    kind: str  # function | class | method
    name: str  # qualified for function/class, the method name for method
    argument: str | None
    position: int | None
    fields: bool = False
    via: str | None = None
    omitted: bool = False  # the parameter's default fails the guard: leaving it out raises
    # a method: its class and the sglang classes that inherit it (derive/reading/hierarchy.py), one of
    # which a call's receiver must be shown to be; ``on_class``: a class or static method
    receivers: tuple[str, ...] = ()
    on_class: bool = False


@dataclass
class GuardedRaise:
    """A ``raise`` guarded by a test on a parameter of its function."""

    module: str
    function: str  # "f" or "Class.method"
    exception: str
    message: str
    line: int
    parameter: str | None = None
    constraint: Constraint | None = None
    target: CallTarget | None = None
    skipped: str | None = None  # the reason, when no rule can be made
    passthrough: list[CallTarget] = field(default_factory=list)
    # Other parameters' tests that must hold for the guard to run: (condition, argument,
    # position, literal default or NOT_LITERAL) each.
    conditions: list = field(default_factory=list)
    caller: str | None = None  # for a helper's guard: the function that calls it on every call
    # For the examples: other arguments of the callable a call must pass (their defaults fail).
    companions: list = field(default_factory=list)
    siblings: list = field(default_factory=list)  # other constraints on the same argument (for the examples)
    # The callable's fails-when sites (derive/sites/fails_when/rules.py): its good example must pass them too.
    paths: list = field(default_factory=list)

    @property
    def key(self) -> str:
        kind = self.constraint.kind if self.constraint else "?"
        when = "".join(f":when {c.describe()}" for c, *_ in self.conditions)
        return f"{self.module}:{self.function}:{self.parameter}:{kind}{when}" + (
            f":from {self.caller}" if self.caller else "")


# --- one function ---------------------------------------------------------------------------

def _decorators(function: ast.FunctionDef) -> list[str]:
    names = []
    for decorator in function.decorator_list:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.append(ast.unparse(node))
    return names


def parameters_of(function: ast.FunctionDef, method: bool, static: bool) -> Params:
    """The parameters a call passes: positional (a method's receiver left out) and keyword-only."""
    args = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if method and not static and args:
        args = args[1:]
    return Params(args, [a.arg for a in function.args.kwonlyargs], {}, set())


def _dataclass_fields(cls: ast.ClassDef) -> list[str]:
    return [
        s.target.id for s in cls.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        and "ClassVar" not in ast.unparse(s.annotation)
    ]


def _is_dataclass(cls: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in cls.decorator_list)


def analyse_function(
    module: Module, function: ast.FunctionDef, owner: ast.ClassDef | None, method_owners: Counter,
    hierarchy: Hierarchy | None = None, registries: Registries = Registries(),
) -> list[GuardedRaise]:
    """Every raise site of a function whose guard tests one of its parameters (``hierarchy``:
    the tree's classes, for a method's receivers; without it, its own class alone; ``registries``:
    what the tree writes of registries its lookups read, derive/reading/lookups.py)."""
    calls_helpers = any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) for s in function.body)
    if not calls_helpers and not local_raises(function):
        return []
    qualname = f"{owner.name}.{function.name}" if owner else function.name
    decorators = _decorators(function)
    static = "staticmethod" in decorators
    params = parameters_of(function, owner is not None, static)
    post_init = owner is not None and function.name == "__post_init__" and _is_dataclass(owner)
    if post_init:
        for name in _dataclass_fields(owner):
            params.aliases[f"self.{name}"] = name
    all_params = params.all | set(params.aliases.values())
    sites: list[GuardedRaise] = []
    placed: set[int] = set()

    def target_for(parameter: str) -> CallTarget:
        if not set(decorators) <= TRANSPARENT_DECORATORS:
            raise Skip(f"decorated with {', '.join(decorators)}")
        if post_init:
            return CallTarget("class", f"{module.name}.{owner.name}", parameter, None, fields=True)
        if parameter in params.positional:
            position = params.positional.index(parameter)
            posonly = {a.arg for a in function.args.posonlyargs}
            argument = None if parameter in posonly else parameter
        else:
            position, argument = None, parameter
        if is_check_helper(function):
            raise Skip("a check helper: its callers call it in order to raise")
        if owner is None:
            if function.name.startswith("__"):
                raise Skip("a special function")
            return CallTarget("function", f"{module.name}.{function.name}", argument, position)
        if function.name == "__init__":
            return CallTarget("class", f"{module.name}.{owner.name}", argument, position)
        if function.name.startswith("__"):
            raise Skip("a special method")
        if is_check_helper(function):
            raise Skip("a check helper: its callers call it in order to raise")
        if method_owners[function.name] > 1:
            raise Skip("a method name that several sglang classes define")
        if function.name in COMMON_METHODS or "_" not in function.name.strip("_"):
            raise Skip("a method name too common to match without knowing the receiver")
        owner_name = f"{module.name}.{owner.name}"
        receivers = hierarchy.receivers(owner_name, function.name) if hierarchy else (owner_name,)
        return CallTarget("method", function.name, argument, position, receivers=receivers,
                          on_class=bool({"staticmethod", "classmethod"} & set(decorators)))

    def where(parameter: str) -> tuple[str | None, int | None]:
        """(keyword, position) a call passes ``parameter`` by."""
        if parameter in params.positional:
            posonly = {a.arg for a in function.args.posonlyargs}
            return (None if parameter in posonly else parameter), params.positional.index(parameter)
        return parameter, None

    def place(raise_node: ast.Raise, parameter: str, constraint: Constraint, conditions: list = (),
              helper: str | None = None) -> None:
        """A site for a guard on ``parameter``: in this function, in a ``helper`` it calls on
        every call, or (``conditions``) run only when other parameters pass their tests."""
        site = _site(module, helper or qualname, raise_node)
        site.parameter, site.constraint, site.caller = parameter, constraint, qualname if helper else None
        site.conditions = [(c, *where(c.parameter), literal_default(function, c.parameter)) for c in conditions]
        try:
            site.target = target_for(parameter)
            if conditions and site.target.fields:
                raise Skip("a condition on a config field (no call position)")
            if any(argument is None for _, argument, _, _ in site.conditions):
                raise Skip("a condition on a positional-only parameter")
            if not (conditions or helper or site.target.fields) and constraint.fails(
                    literal_default(function, parameter)):
                site.target = dataclasses.replace(site.target, omitted=True)
        except Skip as skip:
            site.skipped = str(skip)
        sites.append(site)
        placed.add(id(raise_node))

    for statement in function.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # docstring
        conditional = _conditional_guards(statement, params, module)
        for parameter, constraint, conditions, raise_node in conditional:
            place(raise_node, parameter, constraint, conditions=conditions)
        for parameter, constraint, raise_node, helper in _helper_guards(statement, module, owner, params):
            place(raise_node, parameter, constraint, helper=helper)
        found = None
        try:
            if conditional:
                pass  # read above, as guards that run when other parameters pass a test
            elif isinstance(statement, ast.If) and ends_in_raise(statement.body) and not statement.orelse:
                found = constraint_of(statement.test, params, module), statement.body[-1]
            elif isinstance(statement, ast.If):
                chain = chain_constraint(statement, params, module)
                if chain is not None:
                    last = statement
                    while last.orelse and isinstance(last.orelse[0], ast.If) and len(last.orelse) == 1:
                        last = last.orelse[0]
                    found = chain, last.orelse[-1]
            elif isinstance(statement, ast.Match):
                match = match_constraint(statement, params)
                if match is not None:
                    found = match, statement.cases[-1].body[-1]
            elif isinstance(statement, ast.Assert) and _mentions(statement.test, all_params | params.lookups.keys()):
                found = constraint_of(negated(statement.test), params, module), assert_as_raise(statement)
        except Skip as skip:
            raise_node = assert_as_raise(statement) if isinstance(statement, ast.Assert) else _first_raise(statement)
            guard_shaped = isinstance(statement, (ast.Match, ast.Assert)) or (
                isinstance(statement, ast.If) and (ends_in_raise(statement.body) or _chain_ends_in_raise(statement))
            )
            if guard_shaped and raise_node is not None and _mentions(statement, all_params | params.lookups.keys()):
                sites.append(_site(module, qualname, raise_node, skipped=str(skip)))
                placed.add(id(raise_node))
        if found is not None:
            (parameter, constraint), raise_node = found
            place(raise_node, parameter, constraint)
        remember(statement, params, module, owner, registries)  # ``found = MAP.get(p)``, for the guards after it
        # What this statement does to the parameters for the statements after it.
        exits = False
        for node in walk_local(statement):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
                exits = True
                break
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id in params.all:
                params.dead.add(node.id)
        if exits:
            break
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                key = f"{target.value.id}.{target.attr}"
                if isinstance(statement.value, ast.Name) and statement.value.id in params.all:
                    params.aliases[key] = statement.value.id
                else:
                    params.aliases.pop(key, None)
    # The rest: raise sites whose guard tests a parameter but does not run on every call.
    for node in walk_local(function):
        if isinstance(node, ast.If) and ends_in_raise(node.body) and id(node.body[-1]) not in placed:
            if _mentions(node.test, all_params):
                site = _site(module, qualname, node.body[-1], skipped="the guard does not run on every call")
                try:  # what it tests, for verify to compare with a curated rule of it
                    site.parameter, site.constraint = constraint_of(node.test, params, module)
                except Skip:
                    pass
                sites.append(site)
    return sites


def literal_default(function: ast.FunctionDef, parameter: str) -> object:
    """The literal default of a parameter (NOT_LITERAL when it has none or it is not one)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip((a.arg for a in positional[len(positional) - len(args.defaults):]), args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return ast_literal(defaults[parameter]) if parameter in defaults else NOT_LITERAL


def _conditional_guards(statement: ast.stmt, params: Params, module: Module) -> list[tuple]:
    """Guards that run only when other parameters pass a test, each certain once those are
    literals at the call: ``if a == "x" and b not in S: raise`` and ``if a == "x": <guards on
    b>``. -> [(parameter, constraint, conditions, raise node)]."""
    if not isinstance(statement, ast.If) or statement.orelse:
        return []
    test = statement.test
    if ends_in_raise(statement.body):
        if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
            return []
        # The condition is usually written first, and is a plain flag rather than a value test.
        order = sorted(reversed(range(len(test.values))), key=lambda i: _is_flag_test(test.values[i], params))
        for index in order:
            try:
                parameter, constraint = constraint_of(test.values[index], params, module)
                conditions = [c for j, part in enumerate(test.values) if j != index
                              for c in conditions_of(part, params, module)]
            except Skip:
                continue
            usable = _apart(parameter, constraint, conditions)
            return [(parameter, *usable, statement.body[-1])] if usable else []
        return []
    try:
        conditions = conditions_of(test, params, module)
    except Skip:
        return []
    found = []
    for inner in statement.body:
        guard = _plain_guard(inner, params, module)
        if guard is not None:
            (parameter, constraint), raise_node = guard
            usable = _apart(parameter, constraint, conditions)
            if usable:
                found.append((parameter, *usable, raise_node))
            continue
        if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Raise)) for n in walk_local(inner)):
            break
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id in params.all
               for n in walk_local(inner)):
            break  # a parameter rebound: later guards test something else
    return found


def _helper_guards(statement: ast.stmt, module: Module, owner: ast.ClassDef | None, params: Params) -> list[tuple]:
    """The guards of a helper the function calls as a plain statement (``self._validate()``,
    ``_check_mode(mode)``), on values the function's parameters give it: they run on every
    call of the function. -> [(the function's parameter, constraint, raise node, the helper's
    qualified name)]."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return []
    call, helper, method = statement.value, None, False
    func = call.func
    if owner is not None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self":
        helper = next((f for f in owner.body if isinstance(f, ast.FunctionDef) and f.name == func.attr), None)
        method, qualname = True, f"{owner.name}.{func.attr}"
    elif isinstance(func, ast.Name) and func.id in module.definitions and func.id.startswith("_"):
        # A private helper: a public function is a target of its own (and its wrappers, pass-throughs).
        helper = next((f for f in module.tree.body if isinstance(f, ast.FunctionDef) and f.name == func.id), None)
        qualname = func.id
    if helper is None or helper.decorator_list or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    names = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)][1 if method else 0:]
    given = [*zip(names, call.args), *((k.arg, k.value) for k in call.keywords if k.arg)]
    renames = {name: subject for name, value in given if (subject := params.subject(value))}
    inner = Params([], [], dict(params.aliases) if method else {}, set(), renames)
    found = []
    for step in helper.body:
        if isinstance(step, ast.Expr) and isinstance(step.value, ast.Constant):
            continue  # docstring
        guard = _plain_guard(step, inner, module)
        if guard is not None:
            (parameter, constraint), raise_node = guard
            found.append((parameter, constraint, raise_node, qualname))
            continue
        stops = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)
        if any(isinstance(n, stops) or (isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store))
               for n in walk_local(step)):
            break  # it may leave, or change what it tests
    return found


def _plain_guard(statement: ast.stmt, params: Params, module: Module) -> tuple | None:
    """``if test: raise`` or ``assert test`` read as a guard: ((parameter, constraint), raise
    node); None for any other statement or a guard that cannot be read."""
    try:
        if isinstance(statement, ast.If) and ends_in_raise(statement.body) and not statement.orelse:
            return constraint_of(statement.test, params, module), statement.body[-1]
        if isinstance(statement, ast.Assert):
            return constraint_of(negated(statement.test), params, module), assert_as_raise(statement)
    except Skip:
        pass
    return None


def _is_flag_test(test: ast.expr, params: Params) -> bool:
    """``flag`` or ``not flag``: a part of an ``and`` better read as the condition."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return params.subject(test) is not None


def _apart(parameter: str, constraint: Constraint, conditions: list) -> tuple | None:
    """(constraint, conditions) with the conditions on other parameters only: ``x is not None``
    on the checked parameter itself lets None pass (kept as the constraint's own); any other
    test of it, or no condition left, gives None (not a conditional rule)."""
    others = [c for c in conditions if c.parameter != parameter]
    for own in (c for c in conditions if c.parameter == parameter):
        if not (own.holds == "not in" and own.values == (None,)):
            return None
        if constraint.kind == "allowed-values":
            constraint = dataclasses.replace(constraint, none_allowed=True)
        elif constraint.kind not in ("number-range", "forbidden-values"):
            return None
    return (constraint, others) if others else None


def _chain_ends_in_raise(statement: ast.If) -> bool:
    current = statement
    while len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
        current = current.orelse[0]
    return ends_in_raise(current.orelse)


def _first_raise(statement: ast.stmt) -> ast.Raise | None:
    for node in walk_local(statement):
        if isinstance(node, ast.Raise):
            return node
    return None


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in walk_all(node)) or any(
        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr in names
        for n in walk_all(node)
    )


def _site(module: Module, qualname: str, raise_node: ast.Raise, skipped: str | None = None) -> GuardedRaise:
    exception, message = raise_message(raise_node)
    return GuardedRaise(module.name, qualname, exception, message, raise_node.lineno, skipped=skipped)
