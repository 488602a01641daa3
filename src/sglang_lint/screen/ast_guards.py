"""The names the conditions in force at a call test, read on the file's :mod:`ast` for the
call-site screen: analysis/guards.py's ``GuardCollector`` mirrored along the path from the module down
to the call.

The engine does not guess at a value a guard in force tests (checks/base.py ``guarded_on``:
``if mode is None: return`` before ``f(mode)``, ``f(mode) if mode else g()``, ``assert
mode``), so a call whose argument is such a name cannot be reported for that value. The
screen rules calls out on these names, so what it reads must be a subset of what the engine
reads: where the two could differ (an ``elif`` that ends in ``return``, several statements
on the line of an exit) the name is left out, and the call is judged as before.
"""

from __future__ import annotations

import ast

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)  # analysis/guards.py EXIT_STATEMENTS


def tested_names(path: tuple) -> frozenset[str]:
    """The names read by the guards in force at the last node of ``path`` (the module, then
    each node holding the next)."""
    names: set[str] = set()
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, (ast.If, ast.While)):
            # ``if``/``while`` body, ``if`` else (and so each ``elif`` under it)
            if _position(parent.body, child) is not None or isinstance(parent, ast.If) and _position(
                    parent.orelse, child) is not None:
                names |= _names(parent.test)
        elif isinstance(parent, ast.IfExp):
            if child is parent.body or child is parent.orelse:
                names |= _names(parent.test)
        elif isinstance(parent, ast.BoolOp):
            # ``a and f(x)``: the operands before it (LibCST nests them to the left)
            for operand in parent.values:
                if operand is child:
                    break
                names |= _names(operand)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(parent, field, None)
            index = _position(statements, child) if isinstance(statements, list) else None
            if index is not None:
                for earlier in statements[:index]:
                    names |= _established(earlier)
    return frozenset(names)


def _established(statement: ast.stmt) -> set[str]:
    """What an earlier statement of the block leaves in force (analysis/guards.py ``visit_Assert``,
    ``leave_If``): ``assert t``; ``if t: ... return`` (or one that sets a name ``t`` reads)
    with no ``else``. (The last ``elif`` of a chain that ends so is left out: LibCST puts it
    in force in the chain's block, where the ast cannot tell it from ``else: if``.)"""
    if isinstance(statement, ast.Assert):
        return _names(statement.test)
    if isinstance(statement, ast.If) and not statement.orelse and statement.body:
        if isinstance(statement.body[-1], _EXITS) or _rebinds_tested_name(statement):
            return _names(statement.test)
    return set()


def _rebinds_tested_name(node: ast.If) -> bool:
    """analysis/guards.py ``_rebinds_tested_name``: ``if x is None: x = default()``."""
    tested = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
    for statement in node.body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id in tested for t in targets):
            return True
    return False


def _names(node: ast.AST) -> set[str]:
    """The names in an expression as LibCST holds them (``Name`` nodes; an attribute's name,
    a keyword and a lambda's parameter are ``Name`` nodes there too)."""
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
        elif isinstance(inner, ast.keyword) and inner.arg is not None:
            found.add(inner.arg)
        elif isinstance(inner, ast.arg):
            found.add(inner.arg)
    return found


def _position(statements: list, child: ast.AST) -> int | None:
    """Where ``child`` is in a list of statements (by identity), None when not there."""
    return next((i for i, statement in enumerate(statements) if statement is child), None)
