"""Whether a method call's receiver may be shown to be of the rule's classes, read on the
file's ``ast``: the screen's side of analysis/resolve.py ``instance_of`` and ``names_class``
(``self`` in such a class, a call of one or of a function annotated to return one, a name bound
to such a call, a parameter annotated with one, ``self.x`` of a class that annotates ``x`` or
assigns it only values that may be evidence). A superset of the engine's answer: where the
screen says no, the engine finds no receiver of the rule's; any class of the file may derive
from one, any annotation or function may name one."""

from __future__ import annotations

import ast

from sglang_lint.screen.ast_flow import FUNCTIONS
from sglang_lint.screen.ast_scopes import GLOBAL, PARAM, VALUE, AstFile
from sglang_lint.text.pynames import UNSURE


def receiver_may_be(file: AstFile, receiver: ast.expr, scopes: tuple, wanted: frozenset, on_class: bool) -> bool:
    """Could the engine show that ``receiver``, seen from ``scopes``, is an instance of one of
    the classes ``wanted`` (qualified names) or, ``on_class``, one of them itself?"""
    if isinstance(receiver, ast.Name) and receiver.id == "self":
        method = _method_of_self(file, scopes)
        if method is not None:  # (analysis/resolve.py ``enclosing_class_of_self``, then ``class_is_a``)
            return any(file.may_be_a(method[0], method[1], qualified) for qualified in wanted)
        return any(isinstance(scope, ast.ClassDef) for scope in scopes)
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        method = _method_of_self(file, scopes)  # (analysis/resolve.py ``_attribute_is_a`` of that class)
        if method is None or _attribute_may_be(file, method, receiver.attr, wanted):
            return any(isinstance(scope, ast.ClassDef) for scope in scopes)
    local = {node.name for node, _ in file.classes()}
    made = [receiver] if isinstance(receiver, ast.Call) else []
    if isinstance(receiver, ast.Name):
        found = file.lookup(receiver.id, scopes)
        for binding in found[0] if found is not None else ():
            if binding[0] == GLOBAL:
                return True
            if binding[0] == VALUE and isinstance(binding[1], ast.Call):
                made.append(binding[1])  # (the engine takes a name bound once: any of them here)
            if binding[0] == PARAM and _annotated(binding[1], receiver.id):
                return True
            if binding[0] == VALUE and (isinstance(binding[1], ast.Name) or isinstance(binding[1], ast.Attribute)
                                        and isinstance(binding[1].value, ast.Name)
                                        and binding[1].value.id == "self"):
                return True  # (a name bound to another name, or to ``self.x``: the engine follows it)
    for call in made:
        qualified = file.qualify(call.func, scopes)
        if qualified is UNSURE or qualified in wanted or isinstance(call.func, ast.Name) and call.func.id in local:
            return True
        if isinstance(call.func, ast.Name) and call.func.id in _returning_functions(file):
            return True
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == "self":
            return True
    if on_class:
        qualified = file.qualify(receiver, scopes)
        return qualified is UNSURE or qualified in wanted or isinstance(receiver, ast.Name) and receiver.id in local
    return False


def _attribute_may_be(file: AstFile, method: tuple, name: str, wanted: frozenset) -> bool:
    """``self.<name>`` in a method of the class ``method[0]`` (defined in the scopes
    ``method[1]``): annotated in the class (an annotation may name one of ``wanted``), or
    assigned, in its methods or its body, only values that may each be evidence, seen from
    where they are written. A value that reads the attribute again is taken to be evidence."""
    cls, outer = method
    running = file.receivers.setdefault("running", set())
    if (cls, name) in running:
        return True
    writes = file.receivers.get(cls)
    if writes is None:
        writes = file.receivers[cls] = self_assignments(cls)
    found = list(writes.get(name, ()))
    for statement in cls.body:  # (the class body's own statements, as analysis/resolve.py ``_class_statements``)
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            found.append((None, statement.value, ()))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and statement.target.id == name:
            found.append((statement.annotation, statement.value, ()))
    if any(annotation is not None for annotation, _, _ in found):
        return True
    running.add((cls, name))
    try:
        return bool(found) and all(value is not None and receiver_may_be(file, value, (*outer, cls, *chain), wanted,
                                                                         False)
                                   for _, value, chain in found)
    finally:
        running.discard((cls, name))


def self_assignments(cls: ast.ClassDef) -> dict[str, list[tuple]]:
    """Every assignment of ``self.<name>`` in a class's own methods (nested classes aside), by
    name: (annotation or None, value or None where the form gives no one value: unpacking,
    ``+=``, a loop or ``with`` target; the functions, from the class's down, it is written in),
    as analysis/resolve.py ``_self_assignments`` finds them on LibCST's tree."""
    found: dict[str, list[tuple]] = {}

    def own(node: ast.AST) -> str | None:
        """``<name>`` of a ``self.<name>`` node."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        return None

    def inside(target: ast.AST) -> set[str]:
        return {name for name in map(own, _target_parts(target)) if name is not None}

    def add(names: set[str], annotation: ast.expr | None, value: ast.expr | None, chain: tuple) -> None:
        for name in names:
            found.setdefault(name, []).append((annotation, value, chain))

    pending: list[tuple[ast.AST, tuple]] = [(cls, ())]
    while pending:
        node, chain = pending.pop()
        if isinstance(node, ast.ClassDef) and node is not cls:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if own(target) is not None:
                    add({own(target)}, None, node.value, chain)
                else:
                    add(inside(target), None, None, chain)
        elif isinstance(node, ast.AnnAssign) and own(node.target) is not None:
            add({own(node.target)}, node.annotation, node.value, chain)
        elif isinstance(node, ast.AugAssign):
            add({own(node.target)} - {None}, None, None, chain)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            add(inside(node.target), None, None, chain)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            add(inside(node.optional_vars), None, None, chain)
        inner = (*chain, node) if isinstance(node, (*FUNCTIONS, ast.Lambda)) else chain
        pending.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


def _target_parts(node: ast.AST) -> list[ast.AST]:
    """An assignment target and, for a tuple or list, its elements (starred ones too)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return [part for element in node.elts for part in _target_parts(element)]
    if isinstance(node, ast.Starred):
        return _target_parts(node.value)
    return [node]


def _returning_functions(file: AstFile) -> frozenset[str]:
    """The names of the file's functions with a return annotation."""
    found = file.receivers.get("returning")
    if found is None:
        found = file.receivers["returning"] = frozenset(
            node.name for node in ast.walk(file.tree) if isinstance(node, FUNCTIONS) and node.returns is not None)
    return found


def _method_of_self(file: AstFile, scopes: tuple) -> tuple[ast.ClassDef, tuple] | None:
    """The class whose method binds ``self`` seen from ``scopes`` (its one binding, the
    method's first parameter), and the scopes that class is defined in; None when the
    screen cannot tell as surely as the engine would."""
    found = file.lookup("self", scopes)
    if found is None or len(found[0]) != 1 or found[0][0][0] != PARAM:
        return None
    function, owner = found[0][0][1], found[1]
    positional = [*function.args.posonlyargs, *function.args.args] if isinstance(function, FUNCTIONS) else []
    if not positional or positional[0].arg != "self" or len(owner) < 3 or not isinstance(owner[-2], ast.ClassDef):
        return None
    return owner[-2], owner[:-2]


def _annotated(function: ast.AST, name: str) -> bool:
    """Does ``function``'s parameter ``name`` carry an annotation?"""
    arguments = getattr(function, "args", None)
    return arguments is not None and any(
        arg.arg == name and arg.annotation is not None
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
