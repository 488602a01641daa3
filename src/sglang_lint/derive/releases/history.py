"""The facts of each sglang release, derived once and kept in the cache (its server arguments,
deprecations, raise-site rules), and their history over releases: fields, flags and choices merged
into the ranges of releases that have them, rules carried as long as their site lasts."""

from __future__ import annotations

import ast
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.server_args.deprecations import deprecated_flags, deprecated_values
from sglang_lint.core.places import keep_file
from sglang_lint.derive.server_args.fields import (
    ServerField,
    derive_server_fields,
    manual_flags,
    server_args_text,
)
from sglang_lint.derive.sites.raise_sites import Derivation, derive_sites
from sglang_lint.derive.sites.writing import check_tables, rule_name, rule_text, set_companions, with_older_checks
from sglang_lint.derive.source.generated import toml_string
from sglang_lint.derive.source.presence import Presence, presence, presence_runs
from sglang_lint.derive.source.tree import UNKNOWN_VERSION, read_modules
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree


# --- the server arguments of many releases, merged into ranges -------------------------------

@dataclass
class MergedField:
    field: ServerField  # as the newest release that has it declares it; choices and flags of any release
    range: Presence
    choice_ranges: dict  # choice -> Presence, for choices not in every release of the field
    flag_ranges: dict  # flag -> Presence, for flags not in every release of the field
    open_choices: list = dataclasses.field(default_factory=list)  # Presence of each run with no fixed choices
    # Presence of each run whose list a plugin may extend, where that is some of the field's releases only
    extensible_runs: list = dataclasses.field(default_factory=list)
    # converter -> its runs of releases (Presence each), where the releases of the field do not
    # all convert its word alike (runs, not a range: a converter may come back)
    word_ranges: dict = dataclasses.field(default_factory=dict)


def merge_server_args(history: dict[str, tuple[list[ServerField], list[str]]]) -> tuple[list, dict, list[str]]:
    """The server arguments of several releases (release -> (fields, hand-registered flags)),
    merged: each field, choice and flag with the releases that have it. Returns (merged
    fields by name, hand-registered flags -> Presence, releases oldest first)."""
    releases = sorted(history, key=version_key)
    names = sorted({f.name for fields, _ in history.values() for f in fields})
    by_release = {r: {f.name: f for f in history[r][0]} for r in releases}
    merged = []
    for name in names:
        where = [r for r in releases if name in by_release[r]]
        newest = by_release[where[-1]][name]
        # In the newest release's order (what its messages list), then those only older ones had.
        choices = list(dict.fromkeys(c for r in reversed(where) for c in by_release[r][name].choices))
        flags = list(dict.fromkeys(f for r in reversed(where) for f in by_release[r][name].flags))
        choice_ranges = {
            c: presence([c in by_release[r][name].choices for r in where], where) for c in choices
        }
        flag_ranges = {f: presence([f in by_release[r][name].flags for r in where], where) for f in flags}
        hooked = [by_release[r][name].extensible for r in where]  # a plugin may extend it, per release
        field = ServerField(
            name, newest.type, newest.optional, tuple(choices), any(hooked), tuple(flags), newest.default,
            nargs=newest.nargs, item=newest.item, parse=newest.parse, word=newest.word,
        )
        words = list(dict.fromkeys(by_release[r][name].word for r in reversed(where)))
        merged.append(MergedField(
            field, presence([name in by_release[r] for r in releases], releases),
            {c: p for c, p in choice_ranges.items() if p != ("", "")},
            {f: p for f, p in flag_ranges.items() if p != ("", "")},
            presence_runs([not by_release[r][name].choices for r in where], where) if choices else [],
            presence_runs(hooked, where) if any(hooked) and not all(hooked) else [],
            {w: presence_runs([by_release[r][name].word == w for r in where], where) for w in words}
            if len(words) > 1 else {},
        ))
    manual = sorted({f for _, flags in history.values() for f in flags})
    manual_ranges = {f: presence([f in history[r][1] for r in releases], releases) for f in manual}
    return merged, {f: p for f, p in manual_ranges.items() if p != ("", "")}, releases


def merge_deprecated(history: dict[str, dict]) -> dict:
    """Deprecated flags of several releases (release -> {flag: DeprecatedFlag}): each flag with
    the runs of consecutive releases that deprecate it alike, each run (its DeprecatedFlag,
    since, until); after the last, it is gone."""
    releases = sorted(history, key=version_key)
    merged = {}
    for flag in sorted({f for flags in history.values() for f in flags}):
        kinds = [history[r].get(flag) for r in releases]
        runs = []
        for kind in dict.fromkeys(k for k in kinds if k is not None):
            for since, until in presence_runs([k == kind for k in kinds], releases):
                runs.append((kind, since, until))
        merged[flag] = sorted(runs, key=lambda run: version_key(run[1]) if run[1] else ())
    return merged


def merge_deprecated_values(history: dict[str, dict]) -> dict:
    """Deprecated values of several releases (release -> {field: {old: (new, exact)}}): each
    with the replacement its newest deprecating release names and the releases that do."""
    releases = sorted(history, key=version_key)
    merged: dict = {}
    for name in sorted({n for values in history.values() for n in values}):
        for old in sorted({o for values in history.values() for o in values.get(name, {})}):
            where = [r for r in releases if old in history[r].get(name, {})]
            new, exact = history[where[-1]][name][old]
            span = presence([old in history[r].get(name, {}) for r in releases], releases)
            merged.setdefault(name, {})[old] = (new, exact, *span)
    return merged


def release_deprecated(version: str) -> tuple[dict, dict]:
    """One release's deprecated flags and values (server_args.py and the arg_groups package
    alone are read: quick, not cached)."""
    return tree_deprecated(fetch_tree(version), registered_flags(*release_server_args(version)))


def registered_flags(fields: list[ServerField], manual: list[str]) -> frozenset:
    """Every flag a release's launcher registers: its fields' and those registered by hand."""
    return frozenset(flag for field in fields for flag in field.flags) | frozenset(manual)


def tree_deprecated(root: Path, flags: frozenset = frozenset()) -> tuple[dict, dict]:
    """:func:`release_deprecated` of the tree under ``root``, whose launcher registers ``flags``."""
    srt = root / "sglang" / "srt"
    if not (srt / "server_args.py").is_file():
        return {}, {}
    server_args = ast.parse((srt / "server_args.py").read_text(encoding="utf-8"))
    groups = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted((srt / "arg_groups").glob("*.py"))]
    return deprecated_flags([server_args, *groups], flags), deprecated_values([server_args, *groups])


def merged_server_args_text(history: dict[str, tuple[list[ServerField], list[str]]],
                            deprecated: dict[str, dict] | None = None,
                            values: dict[str, dict] | None = None) -> str:
    """server_args.toml for several releases: the newest one's table, with the releases each
    field, choice and flag is in where that is not all of them; ``deprecated``: each release's
    deprecated flags; ``values``: each release's deprecated values."""
    merged, manual_ranges, releases = merge_server_args(history)
    text = server_args_text([m.field for m in merged], sorted({f for _, fl in history.values() for f in fl}),
                            releases[-1], merge_deprecated(deprecated) if deprecated else None,
                            merge_deprecated_values(values) if values else None)
    extra = {m.field.name: m for m in merged}
    lines = []
    for line in text.split("\n"):
        lines.append(line)
        if line.startswith("manual_flags = ") and len(releases) > 1:
            lines.append("releases = [" + ", ".join(toml_string(r) for r in releases) + "]")
            if manual_ranges:
                lines.append("manual_flag_ranges = { " + ", ".join(
                    f"{toml_string(f)} = {_range_text(p)}" for f, p in sorted(manual_ranges.items())) + " }")
        elif line.startswith("[fields.") and len(releases) > 1:
            m = extra[line[len("[fields."):-1]]
            since, until = m.range
            if since:
                lines.append(f"since = {toml_string(since)}")
            if until:
                lines.append(f"until = {toml_string(until)}")
            if m.word_ranges:
                lines.append("word_ranges = { " + ", ".join(
                    f"{toml_string(w)} = [" + ", ".join(_range_text(p) for p in runs) + "]"
                    for w, runs in m.word_ranges.items()) + " }")
            for key, ranges in (("choice_ranges", m.choice_ranges), ("flag_ranges", m.flag_ranges)):
                if ranges:
                    lines.append(f"{key} = {{ " + ", ".join(
                        f"{toml_string(str(k))} = {_range_text(p)}" for k, p in ranges.items()) + " }")
            for key, runs in (("open_choices", m.open_choices), ("extensible_runs", m.extensible_runs)):
                if runs:
                    lines.append(f"{key} = [" + ", ".join(_range_text(p) for p in runs) + "]")
    return "\n".join(lines)


def _range_text(p: Presence) -> str:
    return f"[{toml_string(p[0])}, {toml_string(p[1])}]"


def release_server_args(version: str) -> tuple[list[ServerField], list[str]]:
    """One release's server arguments (fields, hand-registered flags), derived from its tree
    and kept in the cache as JSON (a release never changes; the deriver may: the file is
    named after :data:`SERVER_ARGS_FORMAT`)."""
    path = cache_dir() / "server-args" / f"{SERVER_ARGS_FORMAT}-{version}.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return [ServerField(**{**f, "choices": tuple(f["choices"]), "flags": tuple(f["flags"])})
                for f in data["fields"]], data["manual_flags"]
    modules = read_modules(fetch_tree(version))
    fields, flags = derive_server_fields(modules), manual_flags(modules)
    # (written whole or not at all: a test worker or another terminal may be reading it)
    keep_file(path, json.dumps({"fields": [dataclasses.asdict(f) for f in fields], "manual_flags": flags}).encode())
    return fields, flags


SERVER_ARGS_FORMAT = "v10"  # bump when derive_server_fields changes what it reads


def release_sites(version: str) -> dict[str, str]:
    """One release's derivable raise sites: key -> what the rule would check (its constraint
    and its callable); read from :func:`release_rules`, so a release is derived once."""
    return {key: rule["signature"] for key, rule in release_rules(version).items()}


def site_signature(site) -> str:
    target = site.target
    where = f"{target.kind} {target.name} {target.argument} {target.position}"
    return f"{site.constraint.describe(site.parameter)} @ {where}"


@dataclass(frozen=True)
class Run:
    """A stretch of releases in which a raise site checks the same thing."""

    since: str  # its first release ("": the oldest merged)
    until: str  # the first release after it ("": the newest has it)
    release: str  # its last release, whose rule text is the run's


def site_runs(key: str, history: dict[str, dict[str, dict]], last: str) -> list[Run]:
    """The unbroken stretch of releases ending at ``last`` that have the raise site ``key``,
    cut where what it checks changes (its signature); newest first. ``history``: release ->
    its rules (key -> at least {"signature"})."""
    releases = sorted(history, key=version_key)
    runs = []
    end = releases.index(last)
    while end >= 0 and key in history[releases[end]]:
        signature = history[releases[end]][key]["signature"]
        start = end
        while start > 0 and history[releases[start - 1]].get(key, {}).get("signature") == signature:
            start -= 1
        runs.append(Run(releases[start] if start > 0 else "",
                        releases[end + 1] if end + 1 < len(releases) else "", releases[end]))
        end = start - 1
    return runs


def site_history(newest: Derivation, history: dict[str, dict[str, dict]]) -> tuple[dict, dict]:
    """For the rules of the newest release: (key -> the first release with its raise site, for
    a site not in every release merged; key -> (the first release of what it checks now, the
    [[check]] tables of what it checked in the releases before), for a site whose check
    changed). ``history``: release -> its rules (the newest's need only their signature)."""
    newest_release = max(history, key=version_key)
    since, older = {}, {}
    for site in newest.rules:
        runs = site_runs(site.key, history, newest_release)
        if runs[-1].since:
            since[site.key] = runs[-1].since
        if len(runs) > 1:
            older[site.key] = (runs[0].since, _older_check_tables(site.key, history, runs[1:]))
    return since, older


def _older_check_tables(key: str, history: dict, runs: list[Run]) -> str:
    return "\n".join(check_tables(history[run.release][key]["text"], run.since, run.until) for run in runs)


def release_rules(version: str) -> dict[str, dict]:
    """One release's rules as rule files would hold them: key -> {signature, name, text (with
    the code left as ``SGL000``), index row}; cached as JSON like :func:`release_sites`. What a
    catalog merged over releases writes for a raise site the newest release no longer has."""
    path = cache_dir() / "rules" / f"{RULES_FORMAT}-{version}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    derivation = derive_sites(fetch_tree(version), paths=False)  # (one-parameter rules only)
    if derivation.version == UNKNOWN_VERSION:
        derivation.version = version
    found = rules_of(derivation, version)
    keep_file(path, json.dumps(found, sort_keys=True).encode())  # (whole or not at all, as above)
    return found


def rules_of(derivation: Derivation, version: str) -> dict[str, dict]:
    """A derivation's rules in the form :func:`release_rules` keeps (see there)."""
    found = {}
    set_companions(derivation.rules)
    for site in derivation.rules:
        found[site.key] = {
            "signature": site_signature(site),
            "name": rule_name(site),
            "text": rule_text(site, PLACEHOLDER_CODE, version),
            "callee": site.target.name if site.target.kind != "method" else f".{site.target.name}()",
            "constraint": site.constraint.describe(site.parameter),
            "where": f"{site.exception} in `{site.module}.{site.function}`",
            "target": [site.target.name, site.target.argument or ""],
        }
    return found


RULES_FORMAT = "v11"  # bump when the deriver changes what a release's rules hold
PLACEHOLDER_CODE = "SGL000"


def gone_rules(newest: Derivation, history: dict[str, dict[str, dict]]) -> dict[str, tuple]:
    """The raise sites older releases had and the newest has not: key -> (the rule as the
    last release with it writes it, with the [[check]] tables of what it checked before, since,
    until), over the unbroken run of releases, ending at that last one, that have the site."""
    releases = sorted(history, key=version_key)
    current = {site.key for site in newest.rules}
    found = {}
    for key in sorted({k for rules in history.values() for k in rules} - current):
        last = max((r for r in releases if key in history[r]), key=version_key)
        runs = site_runs(key, history, last)
        text = history[last][key]["text"]
        if len(runs) > 1:
            text = with_older_checks(text, runs[0].since, _older_check_tables(key, history, runs[1:]))
        found[key] = ({**history[last][key], "text": text}, runs[-1].since, runs[0].until or newest.version)
    return found
