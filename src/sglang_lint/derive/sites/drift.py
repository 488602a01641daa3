"""Verifying a catalog against a tree: each rule's raise site found again (by function and
message, not line), its guard derived again and compared with what the rule checks, the
server-argument table compared field by field, and derivable sites no rule has yet."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sglang_lint.catalog.rules import Rule
from sglang_lint.checks.allowed_values import AllowedValues
from sglang_lint.checks.fails_when.check import FailsWhen
from sglang_lint.checks.forbidden_combination import ForbiddenCombination
from sglang_lint.checks.not_none import NotNone
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.table import Table
from sglang_lint.checks.value_tests import ValueTest
from sglang_lint.derive.sites.drift_index import enum_drift, target_drift
from sglang_lint.derive.reading.guards import Constraint, normalize_message, shown_message
from sglang_lint.derive.server_args.fields import ServerField
from sglang_lint.derive.sites.guarded_raises import GuardedRaise
from sglang_lint.derive.sites.raise_sites import Derivation
from sglang_lint.derive.sites.writing import covered_by


@dataclass
class Drift:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.missing or self.changed or self.new)

    def report(self, version: str) -> list[str]:
        """`catalog verify`'s output: a line per drift, then the counts."""
        lines = [f"{label}: {item}" for label, items in (("missing", self.missing), ("changed", self.changed),
                                                         ("new", self.new)) for item in items]
        return lines + [f"sglang {version}: {len(self.missing)} missing, {len(self.changed)} changed, "
                        f"{len(self.new)} new"]


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
    fields = {f.name for f in derivation.server_fields}
    for rule in rules:
        if rule.raise_site.until and not rule.raise_site.applies_to(derivation.version):
            if rule.derived_key:
                known_keys.add(rule.derived_key)
            continue  # a raise site of older releases only: this tree is not expected to have it
        site_key = rule.derived_key
        if site_key:
            known_keys.add(site_key)
        place = f"{rule.code} {rule.raise_site.module}.{rule.raise_site.function}"
        facts = _facts_drift(rule, derivation.callables, fields)
        drift.changed += [f"{place}: {fact}" for fact in facts]
        parameter = guarded_parameter(rule)
        messages = raises.get((rule.raise_site.module, rule.raise_site.function), set())
        message = normalize_message(rule.raise_site.message)
        in_function = by_function.get((rule.raise_site.module, rule.raise_site.function), [])
        if message not in messages:
            reworded = _reworded(rule, parameter, in_function)
            if reworded is None:
                drift.missing.append(f"{place}: no raise of {rule.raise_site.message!r} there any more")
                continue
            drift.changed.append(f"{place}: the message was {rule.raise_site.message!r}, now {reworded!r}")
            message = normalize_message(reworded)
        if not parameter or rule_constraint(rule) is None:
            continue
        now = [
            s for s in in_function
            if s.parameter == parameter and s.constraint is not None
            and normalize_message(shown_message(s.exception, s.message)) == message
        ]
        # Several guards of one function may raise alike (bare asserts): the rule's own first.
        now.sort(key=lambda s: s.key != rule.derived_key)
        if not now:
            drift.changed.append(f"{place}: the guard on {parameter} can no longer be derived")
            continue
        expected = rule_constraint(rule)
        if now[0].constraint != expected:
            drift.changed.append(
                f"{place}: was {expected.describe(parameter)}, now {now[0].constraint.describe(parameter)}"
            )
        if rule.derived_key and _when(rule.derived_key) != _when(now[0].key):
            drift.changed.append(f"{place}: checked {_when(rule.derived_key) or 'always'}, now "
                                 f"{_when(now[0].key) or 'always'}")
        if rule.derived_key and now[0].target is not None and not facts:
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


def guarded_parameter(rule: Rule) -> str | None:
    """The parameter the rule's raise site tests: its own record (a derived rule's), else the
    argument of the first target of its first check (a curated rule names the raise site's own
    callable first)."""
    if rule.raise_site.parameter:
        return rule.raise_site.parameter
    if rule.derived_key:  # (a fails-when rule: a path over several parameters)
        return None
    return next((t.argument for t in rule.checks[0].targets if t.argument and not t.via), None)


def _reworded(rule: Rule, parameter: str | None, in_function: list[GuardedRaise]) -> str | None:
    """The message of the one guard of the raise site's function on the rule's parameter with the
    rule's kind of check, where the rule's message is no longer raised there (None: none, or several)."""
    expected = rule_constraint(rule)
    if not parameter or expected is None:
        return None
    same = {shown_message(s.exception, s.message) for s in in_function
            if s.parameter == parameter and s.constraint is not None and s.constraint.kind == expected.kind}
    return same.pop() if len(same) == 1 else None


def _when(key: str) -> str:
    """The conditions a derived rule's key records (``...:when a is truthy:when b in (1,)``)."""
    conditions = key.split(":from ", 1)[0].split(":when ")[1:]
    return "when " + " and ".join(conditions) if conditions else ""


def _facts_drift(rule: Rule, callables, fields: set[str]) -> list[str]:
    """What the rule names that the tree no longer has: its targets, the ways to them, their
    checked arguments and positions, an enum's members, a fails-when rule's parameters, the
    server arguments a combination names."""
    if callables is None:
        return []
    found: list[str] = []
    for check in rule.checks:
        if check.until:  # (an older release's check: its targets are that release's)
            continue
        for target in check.targets:
            found += target_drift(callables, target)
        params = check.params
        if isinstance(params, AllowedValues) and params.enum:
            found += enum_drift(callables, params.enum, params.values)
        elif isinstance(params, FailsWhen):
            for target in check.targets:
                for parameter in params.parameters:
                    if not (parameter.var or parameter.receiver):
                        found += target_drift(callables, replace(target, argument=parameter.name,
                                                                 position=parameter.position, via=None))
        elif isinstance(params, ForbiddenCombination) and fields:
            named = [name for name, _ in params.when] + list(params.conflicts)
            found += [f"server argument {name} is gone" for name in named if name not in fields]
    return list(dict.fromkeys(found))


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
        return Constraint("allowed-values", params.values, params.none, params.fold) if params.enum is None else None
    if isinstance(params, NotNone):  # not-none
        return Constraint("not-none")
    if isinstance(params, ValueTest):  # forbidden-values (with values), must-be-none, truthy
        return Constraint(check.kind, params.values)
    return None


def _rule_position(rule: Rule) -> tuple[str | None, int | None]:
    target = rule.checks[0].targets[0]
    return target.argument, target.position
