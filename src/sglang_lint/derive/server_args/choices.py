"""The choices a server flag takes, read from the expression sglang builds them from without
running it (:class:`ChoiceReader`): literals, module constants (also imported ones), class
constants, ``+`` of lists, ``set()``/``list()``/``sorted()`` of one, a helper's returns and
Enum members; and a list as sglang ships it with what its own code adds to it
(:func:`shipped_list`), open where a plugin may add more.
"""

from __future__ import annotations

import ast

from sglang_lint.derive.reading.guards import Skip
from sglang_lint.derive.source.tree import MUTATING_METHODS, Module, follow_imports, origin, walk_all
from sglang_lint.text.pynames import NOT_LITERAL, SCALARS, ast_literal


class _Enum:
    """An enum class met while evaluating a choice list: its members, (name, value)."""

    def __init__(self, members: list[tuple[str, object]]):
        self.members = members


CONTAINER_CALLS = ("set", "frozenset", "list", "tuple", "sorted")
MUTATORS = frozenset({"update", "setdefault", "__setitem__", "pop"})  # what writes into a dict in place


class ChoiceReader:
    """Evaluates the expressions sglang builds its flag choices from, without running them:
    literals, module constants (also imported ones), class constants (``Backend.ALL``),
    ``+`` of lists, ``set()``/``list()``/``sorted()`` of one of those, a local name and the
    literals ``.add()``/``.append()``-ed to it, the ``return`` values of a helper function,
    and ``[m.name.lower() for m in SomeEnum]``.

    :meth:`values` gives (values, extensible): extensible when part of the set cannot be
    read (a registry a plugin fills, a value computed at run time) but the rest can."""

    def __init__(self, by_name: dict[str, Module]):
        self.by_name = by_name
        self._written: dict[str, bool] = {}  # a registry's attribute name -> written into anywhere

    def values(self, node: ast.expr, module: Module, scope: dict | None = None) -> tuple[tuple, bool]:
        found, extensible = self._eval(node, module, scope or {}, 0)
        if isinstance(found, _Enum) or not isinstance(found, list):
            raise Skip("the choices are not a list of literals")
        values = tuple(dict.fromkeys(v for v in found if isinstance(v, SCALARS)))
        if not values:
            raise Skip("empty choices")
        return values, extensible

    def _eval(self, node, module: Module, scope: dict, depth: int):
        """(value, extensible): value is a list of literals, a scalar, a ClassDef or an _Enum."""
        if depth > 12:
            raise Skip("the choices are built too deep to follow")
        scalar = ast_literal(node)
        if scalar is not NOT_LITERAL:
            return scalar, False
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items, extensible = [], False
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    value, more = self._eval(element.value, module, scope, depth + 1)
                    items += self._as_list(value)
                else:
                    value, more = self._eval(element, module, scope, depth + 1)
                    if not isinstance(value, SCALARS) and value is not None:
                        raise Skip("a choice is not a literal")
                    items.append(value)
                extensible |= more
            return items, extensible
        if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
            return self._eval(ast.List(elts=node.keys, ctx=ast.Load()), module, scope, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
            left, lx = self._eval(node.left, module, scope, depth + 1)
            right, rx = self._eval(node.right, module, scope, depth + 1)
            return self._as_list(left) + self._as_list(right), lx or rx
        if isinstance(node, ast.Name):
            if node.id in scope:
                return scope[node.id](depth + 1)
            return self._global(module, node.id, depth + 1)
        if isinstance(node, ast.Attribute):
            owner, extensible = self._eval(node.value, module, scope, depth + 1)
            if isinstance(owner, tuple) and len(owner) == 2 and isinstance(owner[0], ast.ClassDef):
                cls, cls_module = owner
                return self._class_attribute(cls, cls_module, node.attr, depth + 1)
            raise Skip("the choices read an attribute of a run-time object")
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            if isinstance(func, ast.Name) and func.id in CONTAINER_CALLS and len(node.args) == 1:
                value, extensible = self._eval(node.args[0], module, scope, depth + 1)
                value = self._members(value, depth + 1)  # list(SomeEnum): its members
                return (value if isinstance(value, _Enum) else self._as_list(value)), extensible
            if isinstance(func, ast.Name) and not node.args:
                return self._call(module, func.id, depth + 1)
            if isinstance(func, ast.Attribute) and func.attr == "keys" and not node.args:
                return self._keys(func.value, module, scope, depth + 1)  # (a registry: ``Parser.Map.keys()``)
            raise Skip("the choices come from a call")
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            return self._enum_comprehension(node, module, scope, depth + 1)
        raise Skip("the choices are built at run time")

    @staticmethod
    def _as_list(value) -> list:
        if isinstance(value, list):
            return value
        if isinstance(value, _Enum):
            return [v for _, v in value.members]
        raise Skip("the choices are not a list")

    def _resolve(self, module: Module, name: str) -> tuple[Module, str]:
        """(module, name) where ``name`` of ``module`` is bound, following imports."""
        found, name = follow_imports(module, name, self.by_name)
        if found is None:
            raise Skip(f"{name} is outside the tree")
        return found, name

    def _global(self, module: Module, name: str, depth: int):
        module, name = self._resolve(module, name)
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return (node, module), False
        if name not in module.constants or f"{name}.extend" in module.source:
            shipped = shipped_list(module, name, self.by_name)
            if shipped is not None:
                display, hooked = shipped
                value, _ = self._eval(display, module, {}, depth)
                return value, hooked  # hooked: the list as sglang ships it; plugins may add to it
        if name in module.constants:
            return self._eval(module.constants[name], module, {}, depth)
        raise Skip(f"{name} is bound at run time or more than once")

    def _class_attribute(self, cls: ast.ClassDef, module: Module, attr: str, depth: int):
        members = self._class_constants(cls)
        if attr not in members:
            raise Skip(f"{cls.name}.{attr} is not a class constant")
        scope = {name: (lambda d, v=value: self._eval(v, module, {}, d)) for name, value in members.items()}
        return self._eval(members[attr], module, scope, depth)

    @staticmethod
    def _class_constants(cls: ast.ClassDef) -> dict[str, ast.expr]:
        found = {}
        for statement in cls.body:
            if isinstance(statement, ast.Assign):
                found.update({t.id: statement.value for t in statement.targets if isinstance(t, ast.Name)})
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None \
                    and isinstance(statement.target, ast.Name):
                found[statement.target.id] = statement.value
        return found

    def _keys(self, node: ast.expr, module: Module, scope: dict, depth: int):
        """``Registry.keys()`` of a dict written as a literal (a class's table of parsers): its
        keys; extensible where any module of the tree writes into a dict of that name
        (``Parser.Map[name] = ...``, ``.update(...)``): a registry a plugin may fill."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            raise Skip("the choices come from a call")
        keys, extensible = self._eval(node, module, scope, depth)
        return self._as_list(keys), extensible or self._written_anywhere(node.attr)

    def _written_anywhere(self, attr: str) -> bool:
        if attr not in self._written:
            self._written[attr] = any(
                (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Attribute)
                 and n.value.attr == attr)
                or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATORS
                    and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == attr)
                for m in self.by_name.values() if attr in m.source for n in walk_all(m.tree))
        return self._written[attr]

    def _call(self, module: Module, name: str, depth: int):
        """A helper without arguments: the union of what its ``return``s can be read as;
        extensible when one of them cannot."""
        module, name = self._resolve(module, name)
        function = next(
            (n for n in module.tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None
        )
        if function is None:
            raise Skip(f"{name} is not a function of the tree")
        scope = self.locals_of(function, module)
        found, extensible = [], False
        for node in walk_all(function):
            if isinstance(node, ast.Return) and node.value is not None:
                try:
                    value, more = self._eval(node.value, module, scope, depth + 1)
                    found.append(value)
                    extensible |= more
                except Skip:
                    extensible = True
        if not found:
            raise Skip(f"{name}() returns nothing readable")
        if len(found) == 1 and isinstance(found[0], _Enum):
            return found[0], extensible  # ``return list(SomeEnum)``: keep the member names
        return [v for value in found for v in self._as_list(value)], extensible

    def locals_of(self, function: ast.FunctionDef, module: Module) -> dict:
        """Names a function binds once (assignments and ``from x import y`` inside it), with
        the literals later ``.add``/``.append``/``.extend``-ed to them."""
        bound: dict[str, list] = {}
        imported: dict[str, str] = {}
        added: dict[str, list[ast.expr]] = {}
        for node in walk_all(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bound.setdefault(node.targets[0].id, []).append(node.value)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.attr in ("add", "append", "extend")
            ):
                arg = node.args[0] if node.args else None
                if node.func.attr == "extend" and isinstance(arg, (ast.List, ast.Tuple)):
                    added.setdefault(node.func.value.id, []).extend(arg.elts)
                elif arg is not None and node.func.attr != "extend":
                    added.setdefault(node.func.value.id, []).append(arg)
        scope: dict = {}
        for name, qualified in imported.items():
            owner, _, attr = qualified.rpartition(".")
            if owner in self.by_name:
                scope[name] = lambda d, o=owner, a=attr: self._global(self.by_name[o], a, d)
        for name, values in bound.items():
            if len(values) == 1:
                def read(d, value=values[0], more=tuple(added.get(name, ()))):
                    found, extensible = self._eval(value, module, scope, d)
                    if more:
                        extra, more_x = self._eval(ast.List(elts=list(more), ctx=ast.Load()), module, scope, d)
                        return self._as_list(found) + extra, extensible or more_x
                    return found, extensible

                scope[name] = read
        return scope

    def _enum_comprehension(self, node: ast.ListComp, module: Module, scope: dict, depth: int):
        """``[m.name.lower() for m in E]`` / ``[m.value for m in E]`` over an Enum class."""
        generator = node.generators[0]
        if generator.ifs or not isinstance(generator.target, ast.Name):
            raise Skip("a filtered comprehension")
        source, extensible = self._eval(generator.iter, module, scope, depth)
        source = self._members(source, depth)
        if not isinstance(source, _Enum):
            raise Skip("a comprehension over a run-time value")
        element, methods = node.elt, []
        while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) and not element.args:
            methods.insert(0, element.func.attr)
            element = element.func.value
        if not (
            isinstance(element, ast.Attribute) and element.attr in ("name", "value")
            and isinstance(element.value, ast.Name) and element.value.id == generator.target.id
        ):
            raise Skip("a comprehension that computes its values")
        found = []
        for name, value in source.members:
            item = name if element.attr == "name" else value
            for method in methods:
                if method not in ("lower", "upper", "strip") or not isinstance(item, str):
                    raise Skip("a comprehension that computes its values")
                item = getattr(item, method)()
            found.append(item)
        return found, extensible

    def _members(self, value, depth: int):
        """An Enum class (as :meth:`_global` gives it) as its members; anything else as is."""
        if isinstance(value, tuple) and isinstance(value[0], ast.ClassDef):
            return self._enum(*value, depth)
        return value

    def _enum(self, cls: ast.ClassDef, module: Module, depth: int) -> _Enum:
        if not any(ast.unparse(b).rsplit(".", 1)[-1].endswith("Enum") for b in cls.bases):
            raise Skip(f"{cls.name} is not an Enum")
        members = []
        for name, value in self._class_constants(cls).items():
            if name.startswith("_"):
                continue
            literal, _ = self._eval(value, module, {}, depth)
            if not isinstance(literal, SCALARS):
                raise Skip(f"{cls.name}.{name} is not a literal member")
            members.append((name, literal))
        return _Enum(members)


def shipped_list(module: Module, name: str, by_name: dict[str, Module]) -> tuple[ast.expr, bool] | None:
    """A top-level list or set of ``module`` bound once, as sglang ships it: its display (or
    ``set(OTHER)``) with the
    literals sglang's own code adds to it anywhere (``X.add("v")`` under a condition), and
    whether a plugin may add more: the list has a hook, in either spelling sglang has used
    (``add_x_choices = X.extend``, or a function that adds its own parameter to it:
    ``def add_x_choices(choices): X.extend(choices)``, ``register(name): X.add(name)``).
    None when it is bound otherwise, written into, or sglang adds a value it computes."""
    assigned = [n.value for n in module.tree.body if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if len(assigned) != 1:
        return None
    if not (isinstance(assigned[0], (ast.List, ast.Tuple, ast.Set)) or _container_of(assigned[0])):
        return None
    qualified, added, hooked = f"{module.name}.{name}", [], False
    for other in by_name.values():
        # imported from where it is bound, or from a module that imports it in turn (sglang's
        # sampler registers into server_args' re-export of arg_groups.choices' set)
        local = {alias for alias, target in other.imports.items()
                 if target.endswith("." + name) and origin(target, by_name) == qualified}
        if other is module:
            local.add(name)
        if not local or not any(alias in other.source for alias in local):
            continue
        for node in walk_all(other.tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "extend" and _names(node.value.value, local):
                hooked = True  # add_x_choices = X.extend
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and _names(node.value, local):
                return None
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and _names(node.func.value, local) and node.func.attr in MUTATING_METHODS:
                given = node.args[0].elts if node.func.attr == "extend" and node.args \
                    and isinstance(node.args[0], (ast.List, ast.Tuple)) else node.args[-1:]
                if node.func.attr not in ("add", "append", "extend", "insert"):
                    return None
                if all(isinstance(g, ast.Constant) for g in given):
                    added += given
                elif len(given) == 1 and isinstance(given[0], ast.Name) \
                        and given[0].id in other.call_parameters().get(id(node), ()):
                    hooked = True
                else:
                    return None
    if _container_of(assigned[0]):  # set(BUILT_IN) and what is added to it
        return ast.BinOp(assigned[0], ast.Add(), ast.List(elts=added, ctx=ast.Load())), hooked
    return ast.List(elts=[*assigned[0].elts, *added], ctx=ast.Load()), hooked


def _container_of(node: ast.expr) -> bool:
    """``set(X)``, ``list(X)``: a new container of another's items."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CONTAINER_CALLS \
        and len(node.args) == 1 and not node.keywords


def _names(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names
