"""The wrappers of a raise site's function: a module-level function or class of sglang that
hands its parameter on unchanged to a constrained argument (:func:`passthrough`) is a target
of the same rule, found a few levels deep.
"""

from __future__ import annotations

import ast
import dataclasses

from sglang_lint.derive.sites.guarded_raises import CallTarget, GuardedRaise, literal_default, parameters_of
from sglang_lint.derive.source.tree import Module, walk_all, walk_local


def passthrough(modules: list[Module], sites: list[GuardedRaise]) -> None:
    """A module-level function or class of sglang that passes its parameter unchanged to a
    constrained argument, in a plain top-level statement run on every call, is a target too:
    by keyword or by position, directly or through ``self.x = x`` earlier in the same body,
    and ``super().__init__(...)`` of a class to its base's constructor."""
    by_callee: dict[tuple[str, object], GuardedRaise] = {}  # (callee, keyword or position) -> site
    for site in sites:
        # A conditional guard's other arguments sit elsewhere in a wrapper: not followed.
        if (site.skipped is None and site.target is not None and site.target.kind in ("function", "class")
                and not site.conditions):
            _file(by_callee, site.target, site)
    # (qualified callee, keyword or position, wrapper target) per call
    forwards = []
    for module in modules:
        for node in module.tree.body:
            functions = []
            if isinstance(node, ast.FunctionDef) and not node.decorator_list:
                functions.append((node, None))
            elif isinstance(node, ast.ClassDef):
                functions += [(i, node) for i in node.body
                              if isinstance(i, ast.FunctionDef) and i.name == "__init__" and not i.decorator_list]
            for function, owner in functions:
                forwards += _forwards(module, function, owner)
    for _ in range(4):  # transitively, a few levels deep
        added = False
        for callee, slot, target, default in forwards:
            site = by_callee.get((callee, slot))
            if site is None or (target.name, target.argument) in by_callee:
                continue
            if target.name == site.target.name:
                continue
            if site.caller is None and not site.target.fields and site.constraint.fails(default):
                # the wrapper's own default fails the check it hands the argument on to
                target = dataclasses.replace(target, omitted=True)
            site.passthrough.append(target)
            _file(by_callee, target, site)
            added = True
        if not added:
            break


def _file(by_callee: dict, target: CallTarget, site: GuardedRaise) -> None:
    """File a site under the ways a call reaches its argument: keyword and position."""
    by_callee[(target.name, target.argument or "")] = site
    if target.position is not None:
        by_callee[(target.name, target.position)] = site


def _forwards(module: Module, function: ast.FunctionDef, owner: ast.ClassDef | None) -> list[tuple]:
    """The calls of one function (or class, its ``__init__``) that hand a parameter on
    unchanged: (callee, keyword or position there, the target the wrapper becomes, the literal
    default of the wrapper's parameter). A compound statement before the call (an ``if``, a loop)
    that cannot return keeps the later calls on every call's path: only what it rebinds is lost."""
    params = parameters_of(function, owner is not None, False)
    name = f"{module.name}.{owner.name if owner else function.name}"
    held: dict[str, str] = {}  # "self.x" -> the parameter it holds
    found = []

    def parameter_of(value: ast.expr) -> str | None:
        if isinstance(value, ast.Name) and value.id in params.all:
            return value.id
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            return held.get(f"{value.value.id}.{value.attr}")
        return None

    def wrapper(parameter: str, callee: str) -> CallTarget:
        position = params.positional.index(parameter) if parameter in params.positional else None
        return CallTarget("class" if owner else "function", name, parameter, position,
                          via=f"{name}() passes {parameter} on to {callee}()")

    for statement in function.body:
        if not isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)):
            if any(isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal))
                   for node in walk_local(statement)):
                break  # beyond it, a call may not run on every call
            for node in walk_local(statement):  # its own calls run on some calls only: not followed
                if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):  # x = .., x[k] = .., self.a = ..
                    params.dead.update(n.id for n in walk_all(node) if isinstance(n, ast.Name))
                    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                        held.pop(f"{node.value.id}.{node.attr}", None)
            continue
        for call in _calls_always_run(statement):
            callee = _resolve(call.func, module) or _base_init(call, owner, module)
            if callee is None:
                continue
            if any(isinstance(a, ast.Starred) for a in call.args):
                positional = []  # *args: positions after it are unknown
            else:
                positional = list(enumerate(call.args))
            for slot, value in [*((k.arg, k.value) for k in call.keywords if k.arg), *positional]:
                parameter = parameter_of(value)
                if parameter is not None and parameter not in params.dead:
                    found.append((callee, slot, wrapper(parameter, callee), literal_default(function, parameter)))
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                key = f"{target.value.id}.{target.attr}"
                held.pop(key, None)
                if isinstance(statement.value, ast.Name) and statement.value.id in params.all:
                    held[key] = statement.value.id
            for node in walk_all(target):
                if isinstance(node, ast.Name) and node.id in params.all:
                    params.dead.add(node.id)  # rebound: what it holds now is not the caller's
        if isinstance(statement, ast.Return):
            break
    return found


def _calls_always_run(node: ast.AST):
    """The calls a statement makes whenever it runs: not those behind a test of its own
    (``f(key) if key is not None else None``, ``key and f(key)``), nor in a comprehension's
    body, a lambda or a nested function."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            yield current
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) \
                and current is not node:
            continue
        if isinstance(current, ast.IfExp):
            stack.append(current.test)
        elif isinstance(current, ast.BoolOp):
            stack.append(current.values[0])
        elif isinstance(current, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            stack.append(current.generators[0].iter)
        else:
            stack.extend(ast.iter_child_nodes(current))


def _base_init(call: ast.Call, owner: ast.ClassDef | None, module: Module) -> str | None:
    """``super().__init__(...)`` in a class with one base: that base's constructor."""
    func = call.func
    if (owner is None or not isinstance(func, ast.Attribute) or func.attr != "__init__"
            or not isinstance(func.value, ast.Call) or not isinstance(func.value.func, ast.Name)
            or func.value.func.id != "super" or len(owner.bases) != 1):
        return None
    return _resolve(owner.bases[0], module)


def _resolve(func: ast.expr, module: Module) -> str | None:
    if isinstance(func, ast.Name):
        if func.id in module.imports:
            return module.imports[func.id]
        if func.id in module.definitions:
            return f"{module.name}.{func.id}"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in module.imports:
        return f"{module.imports[func.value.id]}.{func.attr}"
    return None
