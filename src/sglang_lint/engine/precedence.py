"""The derived rules that certainly fail one call, as sglang meets them: each rule's raise site
is a line of one sglang function, and a call that fails several raises of one function stops at
the first of them on its way through it (checks/precedence.py decides which later ones are
reported too). Only derived rules take part: their raise site is the raise their check tests,
and a raise inside a loop or a ``try`` gets no rule (``derive/reading/paths.py``), so of two raises whose
paths a call certainly takes, the one on the earlier line is reached first."""

from __future__ import annotations

import dataclasses

from sglang_lint.catalog.rules import Check, Rule
from sglang_lint.checks.fails_when.language import names_read
from sglang_lint.checks.precedence import also, first_raised


@dataclasses.dataclass(frozen=True)
class Place:
    """Where a rule's raise is: its function (in the release whose lines the rule records) and
    line, and the parameters its check reads (None: not known)."""

    function: tuple
    line: int
    reads: frozenset | None


def place(rule: Rule, check: Check) -> Place | None:
    """The place of a derived rule's raise (None for a curated rule, or one without a line)."""
    site = rule.raise_site
    if rule.derived_key is None or site.line is None:
        return None
    return Place((site.module, site.function, site.sglang_version), site.line, _reads(rule, check))


def _reads(rule: Rule, check: Check) -> frozenset | None:
    if check.kind == "fails-when":
        params = check.params
        return names_read(params.expression) & frozenset(p.name for p in params.parameters)
    parameter = rule.raise_site.parameter
    if parameter is None or any(c.argument is None for c in check.conditions):
        return None
    return frozenset({parameter, *(c.argument for c in check.conditions)})


def preempted(reported: list) -> list:
    """``reported`` (engine/dispatch.py's, each with its :class:`Place` or None) but the findings
    of a call that an earlier raise of the same function pre-empts; a later one kept (it fails
    whichever way the earlier ones are fixed) says so."""
    groups: dict[tuple, dict[int, list]] = {}
    for item in reported:
        if item.place is not None:
            groups.setdefault((id(item.call), item.place.function), {}).setdefault(item.place.line, []).append(item)
    if not any(len(lines) > 1 for lines in groups.values()):
        return reported
    verdict: dict[int, bool] = {}  # id(item) -> reported after an earlier raise
    for lines in groups.values():
        units = [lines[line] for line in sorted(lines)]

        def reads(unit: list) -> frozenset | None:
            found = [item.place.reads for item in unit]
            return None if any(r is None for r in found) else frozenset().union(*found)

        for unit, later in first_raised(units, reads):
            verdict.update((id(item), later) for item in unit)
    kept = []
    for item in reported:
        if item.place is None:
            kept.append(item)
        elif id(item) in verdict:
            kept.append(dataclasses.replace(item, message=also(item.message)) if verdict[id(item)] else item)
    return kept
