"""Verifying a catalog against a tree: each rule's raise site found again (by function and
message, not line), its guard derived again and compared with what the rule checks, the
server-argument table compared field by field, and derivable sites no rule has yet."""

from __future__ import annotations

from dataclasses import dataclass, field

from sglang_lint.catalog.rules import Rule
from sglang_lint.checks.allowed_values import AllowedValues
from sglang_lint.checks.not_none import NotNone
from sglang_lint.checks.server_args.check import ServerArgsCheck
from sglang_lint.checks.server_args.table import Table
from sglang_lint.checks.value_tests import ValueTest
from sglang_lint.derive.guards import Constraint, normalize_message, shown_message
from sglang_lint.derive.server_args import ServerField
from sglang_lint.derive.sites import Derivation, GuardedRaise
from sglang_lint.derive.writing import covered_by


@dataclass
class Drift:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.missing or self.changed or self.new)


def verify(rules: list[Rule], derivation: Derivation) -> Drift:
    """Find each rule's raise site again in the derivation's tree (``derive_sites(...,
    index_raises=True)``): missing sites, changed guards, and derivable sites no rule has."""
    drift = Drift()
    by_function: dict[tuple[str, str], list[GuardedRaise]] = {}
    for site in derivation.sites:
        by_function.setdefault((site.module, site.function), []).append(site)
    raises = derivation.raises
    known_keys = set()
    # The rules of a derived table (server arguments, the public API, sampling parameters): their
    # "raise site" is argparse's, Python's binding, each of the table's checks.
    table_rules = [r for r in rules if r.checks and hasattr(r.checks[0].params, "for_releases")]
    server_rules = [r for r in table_rules if isinstance(r.checks[0].params, ServerArgsCheck)]
    if server_rules and derivation.server_fields:
        drift.changed += _table_drift(server_rules[0].checks[0].params.table, derivation.server_fields)
    rules = [r for r in rules if r not in table_rules]
    for rule in rules:
        if rule.raise_site.until and not rule.raise_site.applies_to(derivation.version):
            if rule.derived_key:
                known_keys.add(rule.derived_key)
            continue  # a raise site of older releases only: this tree is not expected to have it
        site_key = rule.derived_key
        if site_key:
            known_keys.add(site_key)
        place = f"{rule.code} {rule.raise_site.module}.{rule.raise_site.function}"
        messages = raises.get((rule.raise_site.module, rule.raise_site.function), set())
        if normalize_message(rule.raise_site.message) not in messages:
            drift.missing.append(f"{place}: no raise of {rule.raise_site.message!r} there any more")
            continue
        parameter = rule.raise_site.parameter
        if not parameter:
            continue
        now = [
            s for s in by_function.get((rule.raise_site.module, rule.raise_site.function), [])
            if s.parameter == parameter and s.constraint is not None
            and normalize_message(shown_message(s.exception, s.message)) == normalize_message(rule.raise_site.message)
        ]
        # Several guards of one function may raise alike (bare asserts): the rule's own first.
        now.sort(key=lambda s: s.key != rule.derived_key)
        if not now:
            drift.changed.append(f"{place}: the guard on {parameter} can no longer be derived")
            continue
        expected = rule_constraint(rule)
        if expected is not None and now[0].constraint != expected:
            drift.changed.append(
                f"{place}: was {expected.describe(parameter)}, now {now[0].constraint.describe(parameter)}"
            )
        elif expected is not None and rule.derived_key and now[0].target is not None:
            position = _rule_position(rule)
            if position != (now[0].target.argument, now[0].target.position):
                drift.changed.append(f"{place}: {parameter} moved to {now[0].target.position}")
    covered = set()
    for rule in rules:
        if rule.raise_site.parameter:
            covered.add((rule.raise_site.module, rule.raise_site.function, rule.raise_site.parameter))
    curated_targets = covered_by([r for r in rules if not r.derived_key])
    for site in derivation.rules:
        if site.key in known_keys or (site.module, site.function, site.parameter) in covered:
            continue
        if (site.target.name, site.target.argument or "") in curated_targets:
            continue
        drift.new.append(f"{site.module}.{site.function}: {site.constraint.describe(site.parameter)}")
    return drift


def _table_drift(table: Table, fields: list[ServerField]) -> list[str]:
    """Server-argument fields added, removed, or with another type, choices, flags or plugin hook
    than the table has for the release."""
    now = {f.name: f for f in fields}
    drift = []
    for name in sorted(set(table.fields) | set(now)):
        old, new = table.fields.get(name), now.get(name)
        if old is None:
            drift.append(f"server argument {name}: new in the tree")
        elif new is None:
            drift.append(f"server argument {name}: gone from the tree")
        elif any(getattr(old, key) != getattr(new, key) for key in ("type", "choices", "flags", "extensible")):
            drift.append(f"server argument {name}: type, choices, flags or plugin hook changed")
    return drift


def rule_constraint(rule: Rule) -> Constraint | None:
    """What the rule's first check demands, as a guard would: None for a check no guard
    derives (an enum's member names, or another kind)."""
    check = rule.checks[0]
    params = check.params
    if isinstance(params, AllowedValues):  # allowed-values
        return Constraint("allowed-values", params.values, params.none) if params.enum is None else None
    if isinstance(params, NotNone):  # not-none
        return Constraint("not-none")
    if isinstance(params, ValueTest):  # forbidden-values (with values), must-be-none, truthy
        return Constraint(check.kind, params.values)
    return None


def _rule_position(rule: Rule) -> tuple[str | None, int | None]:
    target = rule.checks[0].targets[0]
    return target.argument, target.position
