"""Registry lookups: ``found = MAP.get(p)`` on a parameter, then a raise when nothing is found.

``MAP`` is a dict display with literal keys, bound once: a module constant, or an attribute of
the function's own class (``self.MAP``, ``cls.MAP``, ``Owner.MAP``); the key is the parameter
itself or its lower-cased form (``p.lower()``, sglang's ``ReasoningParser``); ``.get`` has no
default but None. The guard that follows (guards.Params.looked_up, read where guards are) makes
its keys the parameter's allowed values. Refused, each with its reason: a registry that may be
extended at run time (written in place anywhere in the tree, ``MAP[k] = v``, ``MAP.update()``,
or its attribute name assigned anywhere: a plugin may register the name), one a subclass of the
owner binds again, an empty one, keys that are not literals, a lookup with another default, one
whose result or parameter is rebound before the guard.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.checks.allowed_values import FOLDS
from sglang_lint.derive.reading.guards import Lookup, Params, Skip, value_set, is_none
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.source.tree import Module, bound_names, walk_local
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal


@dataclass(frozen=True)
class Registries:
    """What the whole tree says of registries: the attribute names written anywhere (a class
    attribute or another module's constant of that name may change at run time), and its
    classes (a subclass may bind its own registry under the name)."""

    written: frozenset = frozenset()
    hierarchy: Hierarchy | None = None

    @classmethod
    def of(cls, modules: list[Module], hierarchy: Hierarchy | None) -> "Registries":
        return cls(frozenset(name for module in modules for name in module.written_attributes), hierarchy)


def remember(statement: ast.stmt, params: Params, module: Module, owner: ast.ClassDef | None,
             registries: Registries) -> None:
    """After a top-level statement of a function: a lookup it makes is remembered in ``params``,
    and one whose result or parameter it rebinds can no longer be judged."""
    stored = {n.id for n in walk_local(statement)
              if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    for name, lookup in list(params.lookups.items()):
        if lookup.skipped is None and (name in stored or lookup.parameter in stored):
            params.lookups[name] = Lookup(lookup.parameter, skipped="the looked-up value or its name is rebound "
                                                                    "before the guard")
    found = _lookup_call(statement, params)
    if found is not None:
        name, parameter, fold, registry, default = found
        try:
            if default is not None and not is_none(default):
                raise Skip("a registry lookup with a default")
            params.lookups[name] = _keys(_registry(registry, module, owner, registries), parameter, fold, module)
        except Skip as skip:
            params.lookups[name] = Lookup(parameter, skipped=str(skip))


def _lookup_call(statement: ast.stmt, params: Params) -> tuple | None:
    """``name = registry.get(key[, default])`` with the key a parameter (or its folded form):
    (name, parameter, fold, registry, default); None for any other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target = statement.target  # ``found: type[Detector] | None = MAP.get(p)``
    else:
        return None
    call = statement.value
    if not isinstance(target, ast.Name):
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "get"
            and 1 <= len(call.args) <= 2 and not call.keywords):
        return None
    key, fold = call.args[0], None
    if isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr in FOLDS \
            and not key.args and not key.keywords:
        key, fold = key.func.value, key.func.attr
    parameter = params.subject(key)
    if parameter is None:
        return None
    return target.id, parameter, fold, call.func.value, call.args[1] if len(call.args) == 2 else None


def _registry(node: ast.expr, module: Module, owner: ast.ClassDef | None, registries: Registries) -> ast.expr:
    """The dict display a registry expression is bound to; Skip where it is not one bound once,
    or may change at run time."""
    if isinstance(node, ast.Name) and node.id in module.extended:
        raise Skip(EXTENDED)
    if isinstance(node, ast.Name) and node.id in module.constants:
        name, value = node.id, module.constants[node.id]
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and owner is not None \
            and node.value.id in ("self", "cls", owner.name) and _class_constant(owner, node.attr) is not None:
        name, value = node.attr, _class_constant(owner, node.attr)
        if node.value.id != owner.name and registries.hierarchy is not None \
                and registries.hierarchy.defined_below(f"{module.name}.{owner.name}", name):
            raise Skip("a subclass binds a registry of its own under the name")
    else:
        raise Skip("a registry that is not a constant of the module or of the class")
    if not isinstance(value, ast.Dict):
        raise Skip("a registry that is not a dict display")
    if name in registries.written:  # (``x.NAME[k] = v``, ``x.NAME.update()``, ``x.NAME = ...`` anywhere)
        raise Skip(EXTENDED)
    return value


EXTENDED = "a registry a plugin may extend (written at run time)"


def _class_constant(owner: ast.ClassDef, name: str) -> ast.expr | None:
    """The value the class body binds ``name`` to, where one assignment binds it (None otherwise)."""
    binding = [statement for statement in owner.body if name in bound_names(statement)]
    if len(binding) != 1 or not isinstance(binding[0], (ast.Assign, ast.AnnAssign)):
        return None
    return binding[0].value


def _keys(registry: ast.Dict, parameter: str, fold: str | None, module: Module) -> Lookup:
    """The lookup of a dict display's keys (read as a guard's allowed set is), with those whose
    value is certainly falsy or None."""
    if not registry.keys:
        raise Skip("an empty registry (filled elsewhere)")
    try:
        keys, _ = value_set(registry, module)
    except Skip as skip:  # keys that are not literals, a ``**`` spread
        raise Skip(f"a registry whose keys are not literals ({skip})") from None
    falsy, none = [], []
    for key, value in zip(registry.keys, registry.values):
        literal = ast_literal(key)
        truth = _truth(value, module)
        if truth is False:
            falsy.append(literal)
        if truth is False and _literal_of(value, module) is None:
            none.append(literal)
    if any(ast_literal(k) is None for k in registry.keys):
        keys = (*keys, None)
    return Lookup(parameter, keys, fold, tuple(falsy), tuple(none))


def _literal_of(value: ast.expr, module: Module) -> object:
    if isinstance(value, ast.Name) and value.id in module.constants:
        value = module.constants[value.id]
    return ast_literal(value)


def _truth(value: ast.expr, module: Module) -> bool | None:
    """A registry value's truth where it is certain (a literal, an empty display), else None."""
    literal = _literal_of(value, module)
    if literal is not NOT_LITERAL:
        return bool(literal)
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and not value.elts:
        return False
    if isinstance(value, ast.Dict) and not value.keys:
        return False
    return None
