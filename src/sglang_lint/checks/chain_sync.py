"""chain-sync: a class's capture-side and replay-side mode chains must test the same modes.

Mirrors pairs of ``if mode.is_a(): ... elif mode.is_b(): ... else: raise ValueError`` chains
in methods named ``*capture*`` and ``*replay*`` of one class (CUDA-graph capture and
replay). When the two accept different modes, a graph is captured with a layout that
replay cannot reproduce, or a mode that replays was never captured."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.syntax import dotted_name
from sglang_lint.checks.base import CheckKind, Trigger
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding
from sglang_lint.text.pynames import ast_dotted_name


@dataclass(frozen=True)
class ChainSync:
    summary: str
    subject: str
    capture: str
    replay: str
    exception: str


def parse(fields, targets):
    if targets:
        raise fields.error("target", "chain-sync checks classes, not calls; it takes no targets")
    return ChainSync(
        summary=fields.str("summary"),
        subject=fields.str("subject"),
        capture=fields.str("capture"),
        replay=fields.str("replay"),
        exception=fields.str("exception"),
    )


def triggers(check):
    p: ChainSync = check.params
    # Both sides must be methods of the file, and something must raise; then the file's ast
    # must hold a class whose chains disagree (the check's own reading, on ast).
    capture = re.compile(rf"def \w*{re.escape(p.capture)}\w*\(")
    replay = re.compile(rf"def \w*{re.escape(p.replay)}\w*\(")
    return [Trigger(p.subject, "file", (f"raise {p.exception}", capture, replay),
                    screen=lambda tree: _ast_may_fire(tree, p))]


class _Spelling:
    """How one syntax tree (LibCST for the check, ast for its screen) writes what a chain is
    made of; :func:`_chains` and :func:`_disagreements` read either through it, so the screen
    and the check cannot read a class differently. Where ast cannot tell two forms apart
    (``else: raise`` on the else's own line, a one-line class body) it reads them as the
    check reads the form it may be, so the screen lets through every class the check reports."""

    def __init__(self, tree: str):
        self.cst = tree == "cst"
        if self.cst:
            self.skip = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
            self.if_node, self.call, self.attribute = cst.If, cst.Call, cst.Attribute
        else:
            self.skip = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            self.if_node, self.call, self.attribute = ast.If, ast.Call, ast.Attribute

    def children(self, node) -> list:
        return list(node.children) if self.cst else list(ast.iter_child_nodes(node))

    def methods(self, class_node) -> list:
        """(name, statements) of each method written in the class body itself."""
        if self.cst:
            body = class_node.body
            statements = body.body if isinstance(body, cst.IndentedBlock) else ()
            return [(s.name.value, [s.body]) for s in statements if isinstance(s, cst.FunctionDef)]
        return [(s.name, s.body) for s in class_node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def elif_of(self, node):
        """The ``elif`` of an ``if`` (an ``if`` alone in an ``else`` block is no elif: on ast
        it is indented deeper than its parent)."""
        if self.cst:
            return node.orelse if isinstance(node.orelse, cst.If) else None
        following = node.orelse
        if len(following) == 1 and isinstance(following[0], ast.If) and following[0].col_offset == node.col_offset:
            return following[0]
        return None

    def else_raises(self, node, exception: str) -> bool:
        """Does the chain's ``else`` block raise ``exception``?"""
        if self.cst:
            if not isinstance(node.orelse, cst.Else) or not isinstance(node.orelse.body, cst.IndentedBlock):
                return False
            statements = [small for line in node.orelse.body.body if isinstance(line, cst.SimpleStatementLine)
                          for small in line.body]
            raises = [s.exc for s in statements if isinstance(s, cst.Raise) and s.exc is not None]
        else:
            raises = [s.exc for s in node.orelse if isinstance(s, ast.Raise) and s.exc is not None]
        return any(self.dotted(exc.func if isinstance(exc, self.call) else exc) == exception for exc in raises)

    def dotted(self, node) -> str | None:
        return dotted_name(node) if self.cst else ast_dotted_name(node)

    def predicates(self, test, subject: str) -> set[str]:
        """The ``<...>.subject.is_x()`` calls anywhere in the test."""
        found: set[str] = set()
        stack = [test]
        while stack:
            node = stack.pop()
            stack.extend(self.children(node))
            if isinstance(node, self.call) and isinstance(node.func, self.attribute):
                attr = node.func.attr.value if self.cst else node.func.attr
                if attr.startswith("is_") and (self.dotted(node.func.value) or "").rsplit(".", 1)[-1] == subject:
                    found.add(attr)
        return found


def _chains(statements: list, p: ChainSync, spelling: _Spelling) -> list:
    """(head, predicates) of every ``if/elif .../else: raise`` chain over the subject's
    predicates in a method's statements (not in functions or classes inside it)."""
    chains = []
    elifs: set[int] = set()
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        if isinstance(node, spelling.skip):
            continue
        stack.extend(reversed(spelling.children(node)))
        if not isinstance(node, spelling.if_node) or id(node) in elifs:
            continue
        predicates: set[str] = set()
        current = node
        while True:
            found = spelling.predicates(current.test, p.subject)
            if not found:
                predicates = set()
                break
            predicates |= found
            following = spelling.elif_of(current)
            if following is None:
                break
            current = following
            elifs.add(id(current))
        if predicates and spelling.else_raises(current, p.exception):
            chains.append((node, frozenset(predicates)))
    return chains


def _disagreements(class_node, p: ChainSync, spelling: _Spelling):
    """(capture method, chain head, its predicates, the replay side's predicates, the replay
    methods) for each capture chain that tests other modes than the replay chains do."""
    capture, replay = [], []
    for name, statements in spelling.methods(class_node):
        side = p.capture if p.capture in name else p.replay if p.replay in name else None
        if side is None:
            continue
        for head, predicates in _chains(statements, p, spelling):
            (capture if side == p.capture else replay).append((name, head, predicates))
    if not capture or not replay:
        return
    replayed = frozenset().union(*(preds for _, _, preds in replay))
    replay_names = ", ".join(sorted({name for name, _, _ in replay}))
    for name, head, predicates in capture:
        if predicates != replayed:
            yield name, head, predicates, replayed, replay_names


def _ast_may_fire(tree: ast.Module, p: ChainSync) -> bool:
    """The screen: could :func:`run` report a class of this file?"""
    spelling = _Spelling("ast")
    return any(isinstance(node, ast.ClassDef) and next(_disagreements(node, p, spelling), None) is not None
               for node in ast.walk(tree))


def _show(predicates) -> str:
    return ", ".join(f"{name}()" for name in sorted(predicates))


def run(site, rule, check, target):
    p: ChainSync = check.params
    for name, head, predicates, replayed, replay_names in _disagreements(site.node, p, _Spelling("cst")):
        only_capture = predicates - replayed
        only_replay = replayed - predicates
        detail = []
        if only_capture:
            detail.append(f"only captured: {_show(only_capture)}")
        if only_replay:
            detail.append(f"only replayed: {_show(only_replay)}")
        yield Finding(
            head,
            f"{name}() tests {p.subject}.{_show(predicates)} but {replay_names}() tests "
            f"{_show(replayed)} ({'; '.join(detail)}): {with_argument(p.summary)}",
        )


KIND = CheckKind(name="chain-sync", site="class", parse=parse, run=run, triggers=triggers)
