"""not-none: an argument is required; ``None`` raises.

Mirrors ``if x is None: raise``. Flags a literal ``None`` (or a conditional branch of
one), and a name whose only binding is ``None`` unless a condition on that name guards
the call (``if ids:``, ``if ids is not None:``, an early return)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from sglang_lint.checks.base import (
    CheckKind,
    Finding,
    argument_values,
    mentions,
    require_argument,
    show_call,
    target_trigger,
)


@dataclass(frozen=True)
class NotNone:
    summary: str
    hint: str | None


def parse(fields, targets):
    require_argument(fields, targets)
    return NotNone(summary=fields.str("summary"), hint=fields.str("hint", required=False))


def _guarded(site, name: str) -> bool:
    return any(
        mentions(g.test, lambda n: isinstance(n, cst.Name) and n.value == name) for g in site.guards
    )


def run(site, rule, check, target):
    params: NotNone = check.params
    for arg, known in argument_values(site, target.argument, target.position):
        if known.value is not None:
            continue
        if known.via and _guarded(site, known.via[0]):
            continue
        message = f"{show_call(target, target.argument, arg.value, known)}: {params.summary}"
        if params.hint:
            message += f"; {params.hint}"
        yield Finding(known.node, message)


def triggers(check):
    # Only a None the file writes can be flagged.
    return [target_trigger(target, "None") for target in check.targets]


KIND = CheckKind(name="not-none", site="call", parse=parse, run=run, triggers=triggers)
