"""not-none: an argument is required; ``None`` raises.

Mirrors ``if x is None: raise``. Flags a literal ``None`` (or a conditional branch of
one), a name every reaching binding of which is ``None``, and a parameter that defaults
to ``None`` and reaches the call unchecked (an optional flag forwarded as it is), unless a
condition on that name guards the call (``if ids:``, ``if ids is not None:``, an early
return, ``assert``, ``ids = ids or [...]``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sglang_lint.checks.base import (
    CheckKind,
    argument_values,
    guarded_on,
    require_argument,
    show_call,
    target_trigger,
)
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import value_screen


@dataclass(frozen=True)
class NotNone:
    summary: str
    hint: str | None
    strict: bool = False  # only a None certain at the call (no "may be None", no defaults)


def parse(fields, targets):
    require_argument(fields, targets)
    return NotNone(
        summary=fields.str("summary"),
        hint=fields.str("hint", required=False),
        strict=fields.bool("strict", required=False) or False,
    )


def fails(params: NotNone, value: object) -> bool:
    return value is None


def run(site, rule, check, target):
    params: NotNone = check.params
    # "May be None" is enough: one reaching binding that is None fails the call.
    for arg, known in argument_values(site, target.argument, target.position, may=not params.strict):
        if not fails(params, known.value) or (params.strict and known.default):
            continue
        if known.via and guarded_on(site, known.via[0]):
            continue
        message = f"{show_call(site, target, known)}: {with_argument(params.summary, rule.raise_site.parameter, None)}"
        if params.hint:
            message += f"; {params.hint}"
        yield Finding(known.node, message)


def triggers(check):
    # Only a None the file writes can be flagged.
    params: NotNone = check.params
    return [
        target_trigger(
            target, *(() if target.omitted else ("None",)),
            screen=value_screen(
                target.argument, target.position, functools.partial(fails, params), None, params.strict,
                target.omitted,
            ),
        )
        for target in check.targets
    ]


KIND = CheckKind(
    name="not-none", site="call", parse=parse, run=run, triggers=triggers, through_wrappers=True, fails=fails
)
