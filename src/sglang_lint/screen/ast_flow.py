"""Which bindings of a name reach a call, on :mod:`ast`, by the engine's own rule.

The engine keeps, of a name's bindings, those that can be the last one made before the use
(analysis/bindings.py ``may_be_last_binding``): not one later in the text (outside a loop around
both), and not one outside the stretch from a plain binding that *dominates* the use (a
statement of a block on the use's way in, before it) to the use. This module places every
statement of a file as analysis/bindings.py places it (the (block, index) of each enclosing statement,
the text order, whether a loop of its own scope encloses it) and applies that rule to the
bindings screen/ast_scopes.py lists, so that the screen reads the values the engine reads and not
all of them:

    model_name = response["id"]       # dominates the call: the ``None`` of the other branch
    tokenizer = get_processor(model_name)   # cannot reach it

What it drops, the engine drops too; where the two could place a statement differently it
drops less: small statements joined by ``;`` share one place (the engine's
``SimpleStatementLine``), only ``name = value`` statements and parameters dominate (the
engine's plain bindings include them), and a binding it cannot place is kept.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

INFINITY = 1 << 60

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TRY = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_COMPOUND = (*FUNCTIONS, ast.ClassDef, *_LOOPS, ast.If, ast.With, ast.AsyncWith, *_TRY, ast.Match)


@dataclass(frozen=True)
class Place:
    """Where a statement sits (analysis/bindings.py ``Where``): ``path`` the (block, index) of it and of
    each statement around it from the module down (a block is a statement list, by id),
    ``seq`` its order in the text, ``in_loop`` a ``for``/``while`` body of its own scope holds it."""

    path: tuple
    seq: int
    in_loop: bool = False

    def dominates(self, use: "Place") -> bool:
        """``Where.dominates``: this statement is in a block on ``use``'s way in, before the
        statement that holds ``use``."""
        depth = len(self.path) - 1
        if len(use.path) <= depth or self.path[:depth] != use.path[:depth]:
            return False
        return self.path[depth][0] == use.path[depth][0] and self.path[depth][1] < use.path[depth][1]

    def within(self, start: "Place", use: "Place") -> bool:
        """``Where.within``: this statement sits in ``start``'s block, from ``start`` to the
        statement that holds ``use``."""
        depth = len(start.path) - 1
        block, first = start.path[depth]
        return (len(self.path) > depth and self.path[:depth] == use.path[:depth]
                and self.path[depth][0] == block and first <= self.path[depth][1] <= use.path[depth][1])


class StatementPlaces:
    """Every statement of a module placed, and the bindings placed by their statement: a
    binding's value expression (``name = value``: it dominates; an unpacked display's element:
    it does not), a ``+=`` statement, a function (its parameters, placed before its body, as
    the engine places them: they dominate)."""

    def __init__(self, tree: ast.Module, data: bytes, starts: list[int]):
        self.data, self.starts = data, starts
        self.statements: dict[int, Place] = {}
        self.bound: dict[int, tuple[Place, bool]] = {}  # id(node) -> (place, dominates)
        self.ends: dict[int, Place] = {id(tree): Place(((id(tree.body), INFINITY),), INFINITY)}
        self.seq = 0
        self._block(tree.body, (), False)

    def _block(self, statements: list, prefix: tuple, in_loop: bool) -> None:
        block, index, previous = id(statements), -1, None
        for statement in statements:
            simple = not isinstance(statement, _COMPOUND)
            if not (simple and previous is not None and self._joined(previous, statement)):
                index += 1
                self.seq += 1
            previous = statement if simple else None
            place = Place(prefix + ((block, index),), self.seq, in_loop)
            self.statements[id(statement)] = place
            self._bindings(statement, place)
            self._nested(statement, place, in_loop)

    def _joined(self, previous: ast.stmt, statement: ast.stmt) -> bool:
        """Are two small statements parts of one line (``a = 1; b = 2``)? Yes too where unsure
        (a ``;`` ends the first line): one place for both is what the engine may see."""
        try:
            end = self.starts[previous.end_lineno - 1] + previous.end_col_offset
            start = self.starts[statement.lineno - 1] + statement.col_offset
        except IndexError:
            return True
        return b";" in self.data[end:start]

    def _bindings(self, statement: ast.stmt, place: Place) -> None:
        if isinstance(statement, ast.Assign):
            if any(isinstance(target, ast.Name) for target in statement.targets):
                self.bound[id(statement.value)] = (place, True)
            if isinstance(statement.value, (ast.Tuple, ast.List)):
                for element in statement.value.elts:
                    self.bound.setdefault(id(element), (place, False))
        elif isinstance(statement, ast.AnnAssign):
            if isinstance(statement.target, ast.Name) and statement.value is not None:
                self.bound[id(statement.value)] = (place, True)
        elif isinstance(statement, ast.AugAssign):
            self.bound[id(statement)] = (place, False)
        elif isinstance(statement, FUNCTIONS):
            self.bound[id(statement)] = (Place(place.path + ((id(statement.body), -1),), place.seq), True)

    def _nested(self, statement: ast.stmt, place: Place, in_loop: bool) -> None:
        path = place.path
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            self.ends[id(statement)] = Place(path + ((id(statement.body), INFINITY),), INFINITY)
            self._block(statement.body, path, False)  # a scope of its own: no loop of it around
        elif isinstance(statement, _LOOPS):
            self._block(statement.body, path, True)
            self._block(statement.orelse, path, in_loop)
        elif isinstance(statement, ast.If):
            self._block(statement.body, path, in_loop)
            self._block(statement.orelse, path, in_loop)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            self._block(statement.body, path, in_loop)
        elif isinstance(statement, _TRY):
            self._block(statement.body, path, in_loop)
            for handler in statement.handlers:
                self._block(handler.body, path, in_loop)
            self._block(statement.orelse, path, in_loop)
            self._block(statement.finalbody, path, in_loop)
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                self._block(case.body, path, in_loop)

    def use_place(self, path: tuple, scopes: tuple, owner: tuple) -> Place | None:
        """Where a use of a name bound in ``owner`` (a prefix of ``scopes``) sits, as the
        engine sees it: the statement holding it (``path``: the nodes around it, the module
        first) when only comprehensions lie between (the engine has no scope for them); the
        end of ``owner`` when a function or class does (``Scope.end``: seen from a nested
        scope, a name is as it is once its own scope has run). None: not placed."""
        scope = owner[-1]
        if isinstance(scope, (ast.Lambda, *COMPREHENSIONS)):
            return None  # (a lambda binds only its parameters; the engine binds a comprehension's outside)
        if all(isinstance(inner, COMPREHENSIONS) for inner in scopes[len(owner):]):
            for node in reversed(path):
                if isinstance(node, ast.stmt):
                    return self.statements.get(id(node))
            return None
        return self.ends.get(id(scope))

    def reaching(self, bindings: list[tuple], use: Place) -> list[tuple]:
        """The bindings (screen/ast_scopes.py tuples, all of one name in one scope) that may be the
        last made before ``use`` (analysis/bindings.py ``may_be_last_binding``)."""
        placed = [(binding, self.bound.get(id(binding[1])) if len(binding) > 1 else None) for binding in bindings]
        dominating = [(binding, found[0]) for binding, found in placed
                      if found is not None and found[1] and found[0].dominates(use)]
        kept = []
        for binding, found in placed:
            if found is not None:
                place = found[0]
                if place.seq > use.seq and not (place.in_loop and use.in_loop):
                    continue  # later in the text, no loop around both
                if any(other is not binding and not place.within(start, use) for other, start in dominating):
                    continue  # another binding runs on every way to the use, after this one
            kept.append(binding)
        return kept
