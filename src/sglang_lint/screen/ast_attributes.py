"""How a class assigns its own attributes, read on ``ast``: the screen's side of
analysis/resolve.py ``_self_assignments`` and ``_attribute_assignments``. ``self.x`` as a
method's receiver is evidence of its class only where the class annotates ``x``, or assigns it
only values that may be evidence; a class that unpacks into it, adds to it, loops or ``with``s
into it, or never assigns it gives the engine no evidence, and the screen rules the call out."""

from __future__ import annotations

import ast


def self_assignments(cls: ast.ClassDef) -> dict[str, list[tuple]]:
    """Every assignment of ``self.<name>`` in a class's own methods (nested classes aside), by
    name: (annotation or None, value or None where the form gives no one value: unpacking,
    ``+=``, a loop or ``with`` target), as the engine's walk of the class finds them."""
    found: dict[str, list[tuple]] = {}

    def own(node: ast.AST) -> str | None:
        """``<name>`` of a ``self.<name>`` node."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        return None

    def inside(target: ast.AST) -> set[str]:
        return {name for name in map(own, _target_parts(target)) if name is not None}

    def unknown(names: set[str]) -> None:
        for name in names:
            found.setdefault(name, []).append((None, None))

    pending: list[ast.AST] = [cls]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ClassDef) and node is not cls:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                name = own(target)
                if name is not None:
                    found.setdefault(name, []).append((None, node.value))
                else:
                    unknown(inside(target))
        elif isinstance(node, ast.AnnAssign) and own(node.target) is not None:
            found.setdefault(own(node.target), []).append((node.annotation, node.value))
        elif isinstance(node, ast.AugAssign):
            unknown({own(node.target)} - {None})
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            unknown(inside(node.target))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            unknown(inside(node.optional_vars))
        pending.extend(ast.iter_child_nodes(node))
    return found


def _target_parts(node: ast.AST) -> list[ast.AST]:
    """An assignment target and, for a tuple or list, its elements (starred ones too)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return [part for element in node.elts for part in _target_parts(element)]
    if isinstance(node, ast.Starred):
        return _target_parts(node.value)
    return [node]


def attribute_may_be_evidence(cls: ast.ClassDef, name: str, kept: dict) -> bool:
    """Could the engine find ``self.<name>``, in a method of ``cls``, to be an instance of a
    class? Where the class annotates it (an annotation may name the class), or assigns it, in
    its methods or its body, only values (each may be evidence). ``kept``: each class's
    :func:`self_assignments`, by class statement."""
    writes = kept.get(cls)
    if writes is None:
        writes = kept[cls] = self_assignments(cls)
    found = list(writes.get(name, ()))
    for statement in cls.body:  # (the class body's own statements, as analysis/resolve.py ``_class_statements``)
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            found.append((None, statement.value))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and statement.target.id == name:
            found.append((statement.annotation, statement.value))
    if any(annotation is not None for annotation, _ in found):
        return True
    return bool(found) and all(value is not None for _, value in found)
