"""The classes whose instances run a method of sglang: a method rule's receivers.

A method rule fires only where the call's receiver is shown to be one of these (the engine's
``instance_of``): the method's own class, and every sglang class below it that inherits the
method unchanged. A subclass is left out, with everything below it, where it defines the
method again, or where its method resolution order cannot be read with certainty: a base
before the one that leads to the method is not sglang's own (it may define the method), or
is sglang's and defines it somewhere up its own line."""

from __future__ import annotations

import ast

from sglang_lint.derive.source.exports import package_exports
from sglang_lint.derive.reading.state import base_name
from sglang_lint.derive.source.tree import Module

MAX_DEPTH = 12  # how far down (and up) a line of classes is followed


def _defines(cls: ast.ClassDef, name: str) -> bool:
    """Does the class body bind ``name`` (a def, a class, an assignment)?"""
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == name:
                return True
        elif isinstance(statement, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                return True
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            if isinstance(statement.target, ast.Name) and statement.target.id == name:
                return True
    return False


class Hierarchy:
    """sglang's top-level classes and their bases, read once for the whole tree."""

    def __init__(self, modules: list[Module]):
        self._exports = package_exports(modules)
        self.classes: dict[str, ast.ClassDef] = {}
        modules_of: dict[str, Module] = {}
        for module in modules:
            for node in module.tree.body:
                if isinstance(node, ast.ClassDef):
                    qualified = f"{module.name}.{node.name}"
                    self.classes[qualified] = node
                    modules_of[qualified] = module
        # each class's bases, as the qualified names of sglang's classes (None: not sglang's own)
        self.bases: dict[str, list[str | None]] = {}
        self._below: dict[str, list[str]] = {}
        for qualified, node in self.classes.items():
            bases = [self._sglang_class(base_name(base, modules_of[qualified])) for base in node.bases]
            self.bases[qualified] = bases
            for base in dict.fromkeys(b for b in bases if b is not None):
                self._below.setdefault(base, []).append(qualified)

    def _sglang_class(self, name: str | None) -> str | None:
        seen = set()
        while name is not None and name not in self.classes and name in self._exports and name not in seen:
            seen.add(name)
            name = self._exports[name]  # a class imported through a package that re-exports it
        return name if name in self.classes else None

    def receivers(self, owner: str, method: str) -> tuple[str, ...]:
        """``owner`` (the class that defines ``method``) and the sglang classes below it whose
        instances certainly run that definition, sorted after it."""
        found: set[str] = set()
        todo = [(owner, 0)]
        while todo:
            current, depth = todo.pop()
            if depth >= MAX_DEPTH:
                continue
            for sub in self._below.get(current, ()):
                if sub in found or sub == owner or _defines(self.classes[sub], method):
                    continue
                bases = self.bases[sub]
                first = bases.index(current)
                if any(base is None or self._defines_above(base, method, 0) for base in bases[:first]):
                    continue  # an earlier base may run its own
                found.add(sub)
                todo.append((sub, depth + 1))
        return (owner, *sorted(found))

    def _defines_above(self, qualified: str, method: str, depth: int) -> bool:
        """Might the class ``qualified`` (or a class up its line) define ``method``? True where
        a base outside sglang is on the way (its methods are unknown here)."""
        if depth >= MAX_DEPTH or _defines(self.classes[qualified], method):
            return True
        return any(base is None or self._defines_above(base, method, depth + 1)
                   for base in self.bases[qualified])

    def defined_below(self, owner: str, name: str) -> bool:
        """Does an sglang class below ``owner`` (at any depth) bind ``name`` in its body (its own
        registry where ``owner``'s methods read ``self.name``)?"""
        todo, seen = [owner], {owner}
        while todo:
            for sub in self._below.get(todo.pop(), ()):
                if sub not in seen:
                    if _defines(self.classes[sub], name):
                        return True
                    seen.add(sub)
                    todo.append(sub)
        return False
