"""Classes whose own method launches a server with an attribute of the class: sglang's test
convention, where a base class of ``sglang.test`` launches in ``setUpClass`` with
``popen_launch_server(cls.model, ..., other_args=cls.other_args)`` and each test class only
sets ``other_args = [...]`` in its body. A subclass's value of that attribute is the launch's
flags, for the base class and every class below it that runs the same method (a class that
defines the method again launches its own way).

An attribute the class's own methods assign (``cls.other_args = cls._args()``) is left out:
the subclass's value is not what reaches the launch."""

from __future__ import annotations

import ast

from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.source.tree import Module, source_path, walk_local


def attribute_launchers(tree, modules: list[Module], flags: dict,
                        hierarchy: Hierarchy | None = None) -> list[tuple[str, str, str, str]]:
    """(class, attribute, evidence, the method that launches) of each class whose method hands
    ``cls.X``/``self.X`` to a launcher's flags parameter, and of each class below it that runs
    that method. ``tree``: launchers.Tree (how a call names its callee); ``flags``: callee key
    -> {parameter: position} of the functions that take launch flags; ``hierarchy``: the tree's
    classes (read here on first need where not given)."""
    words = {key[1].rpartition(".")[2] for key in flags}
    found = []
    for module in modules:
        if not any(word in module.source for word in words):
            continue
        for cls in module.classes:
            assigned = _assigned_attributes(cls)
            for method in cls.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                    continue
                holder = method.args.args[0].arg  # cls or self
                local = {n.id for n in walk_local(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                for call in (n for n in walk_local(method) if isinstance(n, ast.Call)):
                    callee = tree.callee(call, module, local)
                    for param, position in flags.get(callee, {}).items():
                        attribute = _attribute(call_argument(call, param, position), holder)
                        if attribute is None or attribute in assigned:
                            continue
                        hierarchy = hierarchy or Hierarchy(modules)
                        owner = f"{module.name}.{cls.name}"
                        evidence = f"{source_path(module)}:{call.lineno}"
                        found += [(receiver, attribute, evidence, method.name)
                                  for receiver in hierarchy.receivers(owner, method.name)]
    return list({found_[:2]: found_ for found_ in found}.values())


def _attribute(node: ast.expr | None, holder: str) -> str | None:
    """``X`` of ``cls.X`` (``list(cls.X)``, ``[*cls.X]`` too)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.List) and len(node.elts) == 1 and isinstance(node.elts[0], ast.Starred):
        node = node.elts[0].value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == holder:
        return node.attr
    return None


def _assigned_attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes a method of the class assigns (``cls.X = ...``, ``self.X += ...``)."""
    found = set()
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        holder = method.args.args[0].arg
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == holder:
                found.add(node.attr)
    return found


def call_argument(call: ast.Call, name: str, position: int | None) -> ast.expr | None:
    """The argument a call passes for a parameter (by keyword, or by position before any
    ``*args``); ``**kwargs`` is not followed."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is None:
        return None
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if index == position:
            return argument
    return None
