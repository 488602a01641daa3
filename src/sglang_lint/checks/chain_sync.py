"""chain-sync: a class's capture-side and replay-side mode chains must test the same modes.

Mirrors pairs of ``if mode.is_a(): ... elif mode.is_b(): ... else: raise ValueError`` chains
in methods named ``*capture*`` and ``*replay*`` of one class (CUDA-graph capture and
replay). When the two accept different modes, a graph is captured with a layout that
replay cannot reproduce, or a mode that replays was never captured."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sglang_lint.lazycst import libcst as cst

from sglang_lint.checks.base import CheckKind, Trigger, mentions
from sglang_lint.model import Finding
from sglang_lint.syntax import dotted_name


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
    # Both sides must be methods of the file, and something must raise.
    capture = re.compile(rf"def \w*{re.escape(p.capture)}\w*\(")
    replay = re.compile(rf"def \w*{re.escape(p.replay)}\w*\(")
    return [Trigger(p.subject, "word", (f"raise {p.exception}", capture, replay))]


def _predicates(test: cst.BaseExpression, subject: str) -> set[str]:
    found: set[str] = set()

    def visit(node: cst.CSTNode) -> bool:
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value.startswith("is_")
        ):
            owner = dotted_name(node.func.value)
            if owner is not None and owner.rsplit(".", 1)[-1] == subject:
                found.add(node.func.attr.value)
        return False

    mentions(test, visit)
    return found


def _raises(block: cst.BaseSuite, exception: str) -> bool:
    if not isinstance(block, cst.IndentedBlock):
        return False
    for statement in block.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Raise) and small.exc is not None:
                    exc = small.exc.func if isinstance(small.exc, cst.Call) else small.exc
                    if dotted_name(exc) == exception:
                        return True
    return False


def _chains(function: cst.FunctionDef, p: ChainSync) -> list[tuple[cst.If, frozenset[str]]]:
    """Every ``if/elif .../else: raise`` chain over the subject's predicates in a method."""
    chains = []
    elifs: set[int] = set()
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(reversed(node.children))
        if not isinstance(node, cst.If) or id(node) in elifs:
            continue
        predicates: set[str] = set()
        current = node
        while True:
            found = _predicates(current.test, p.subject)
            if not found:
                predicates = set()
                break
            predicates |= found
            if isinstance(current.orelse, cst.If):
                current = current.orelse
                elifs.add(id(current))
                continue
            break
        if predicates and isinstance(current.orelse, cst.Else) and _raises(current.orelse.body, p.exception):
            chains.append((node, frozenset(predicates)))
    return chains


def _show(predicates) -> str:
    return ", ".join(f"{name}()" for name in sorted(predicates))


def run(site, rule, check, target):
    p: ChainSync = check.params
    capture: list[tuple[str, cst.If, frozenset[str]]] = []
    replay: list[tuple[str, frozenset[str]]] = []
    body = site.node.body
    if not isinstance(body, cst.IndentedBlock):
        return
    for statement in body.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        name = statement.name.value
        side = p.capture if p.capture in name else p.replay if p.replay in name else None
        if side is None:
            continue
        for head, predicates in _chains(statement, p):
            if side == p.capture:
                capture.append((name, head, predicates))
            else:
                replay.append((name, predicates))
    if not capture or not replay:
        return
    replayed = frozenset().union(*(preds for _, preds in replay))
    replay_names = ", ".join(sorted({name for name, _ in replay}))
    for name, head, predicates in capture:
        if predicates == replayed:
            continue
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
            f"{_show(replayed)} ({'; '.join(detail)}): {p.summary}",
        )


KIND = CheckKind(name="chain-sync", site="class", parse=parse, run=run, triggers=triggers)
