"""The start-up rules of every release as one table (``rules/derived/startup.toml``): each rule
once, with the releases that have it, and per release group how many of the start-up sites
became rules and why the others did not."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

from sglang_lint.core.places import keep_file
from sglang_lint.catalog.rules import version_key
from sglang_lint.checks.server_args.startup import needed_fields
from sglang_lint.checks.server_args.startup_table import value_closure
from sglang_lint.core.rulefile import tomllib
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree
from sglang_lint.derive.source.presence import in_runs, presence_runs, read_merged
from sglang_lint.derive.server_args.fields import derive_server_fields
from sglang_lint.derive.startup.order import merged_order
from sglang_lint.derive.startup.rules import Rule, site_rules
from sglang_lint.derive.startup.sequence import run_startup
from sglang_lint.derive.source.tree import no_gc, read_modules

STARTUP_FORMAT = "v29"  # bump when the start-up derivation changes what a release's rules hold
TABLE = "startup.toml"
IMMUTABLE_TYPES = ("str", "int", "float", "bool")  # a call handed such a field cannot change it

# The groups the summary counts by: sglang's three layouts of its start-up validation.
GROUPS = (("0.5.1", "0.5.10"), ("0.5.10", "0.5.20"), ("0.5.20", ""))


HEADER = (
    "# sglang's start-up validation of a server's arguments (ServerArgs.__post_init__ or",
    "# resolve_once, then check_server_args), one rule per raise or assert a launch can",
    "# certainly reach: `fails_when` over the fields (and environment variables by name),",
    "# `defaults` the literal defaults of the fields it reads. A part several places read,",
    "# or a long one, is written once in [values] under a name made from its text (_v and ten",
    "# hex digits) and read by that name, by checks and other values alike. `needs`: the",
    "# fields a launch must set away from their defaults for the check to fail (each, left at",
    "# its default, makes the condition false whatever else). `platform`: the platform probes",
    "# (rules/platforms.toml) the check needs answered: it is judged only on a machine the",
    "# project declares. Read by SGL012.",
)


def startup_text(per_release: dict[str, tuple[list[Rule], list[str], int]]) -> str:
    """The table of the rules each release has (release -> (rules, skip reasons, sites)),
    each rule with the runs of releases that have it."""
    return table_text(per_release, HEADER, needs=True)


def table_text(per_release: dict[str, tuple], header: tuple[str, ...], needs: bool = False) -> str:
    """The table of a validation's rules each release has (release -> (rules, in the order the
    release meets them; skip reasons; sites), and, where a release says which fields the class
    takes, (..., fields): written under ``[fields]`` with their runs of releases), each rule with
    its runs of releases; with ``needs``, the fields it cannot fail without (startup.needed_fields)."""
    releases = sorted(per_release, key=version_key)
    having: dict[Rule, set] = {}
    for release in releases:
        for rule in per_release[release][0]:
            having.setdefault(rule, set()).add(release)
    lines = [GENERATED_MARK, *header, f"releases = [{', '.join(toml_string(r) for r in releases)}]", ""]
    for group in _summary(per_release, releases):
        lines.append(group)
    lines += _per_release(per_release, releases)

    def first(rule: Rule):
        return version_key(min(having[rule], key=version_key))

    # in the order sglang meets them (each release's list is; a newer release's where two
    # disagree), the least of several that may come next first
    ordered = merged_order((per_release[release][0] for release in reversed(releases)), key=lambda r: (
        r.module, r.function, r.message, first(r), r.condition, repr(r.defaults), r.values, r.shown, r.platform))
    for rule in ordered:
        runs = presence_runs([r in having[rule] for r in releases], releases)
        lines += [
            "",
            "[[check]]",
            f"site = {toml_string(f'{rule.module}: {rule.function}')}",
            f"exception = {toml_string(rule.exception)}",
            f"message = {toml_string(rule.message)}",
        ]
        if rule.shown:  # the value of each {...} of the message, in order ("": not known)
            lines.append(f"shown = [{', '.join(toml_string(text) for text in rule.shown)}]")
        lines += [
            f"fails_when = {toml_string(rule.condition)}",
            f"releases = [{', '.join(f'[{toml_string(a)}, {toml_string(b)}]' for a, b in runs)}]",
        ]
        if rule.defaults:
            lines.append(f"defaults = {toml_string(repr(dict(rule.defaults)))}")
        needed = needed_fields(rule.condition, value_closure(rule.condition, dict(rule.values)),
                               dict(rule.defaults)) if needs else ()
        if needed:
            lines.append(f"needs = [{', '.join(toml_string(name) for name in needed)}]")
        if rule.platform:
            lines.append(f"platform = [{', '.join(toml_string(name) for name in rule.platform)}]")
    pool = value_pool(ordered)
    if pool:
        lines += ["", "[values]"]
        lines += [f"{name} = {toml_string(text)}" for name, text in sorted(pool.items())]
    fields = sorted({name for r in releases if len(per_release[r]) > 3 for name in per_release[r][3]})
    if fields:
        lines += ["", "[fields]"]
        for name in fields:
            runs = presence_runs([name in per_release[r][3] for r in releases], releases)
            lines.append(f"{name} = [{', '.join(f'[{toml_string(a)}, {toml_string(b)}]' for a, b in runs)}]")
    return "\n".join(lines) + "\n"


def value_pool(rules) -> dict:
    """name -> text of every value the rules read (ValueError where one name has two texts)."""
    pool: dict = {}
    for rule in rules:
        for name, text in rule.values:
            if pool.setdefault(name, text) != text:
                raise ValueError(f"two values are named {name}: {pool[name]!r} and {text!r}")
    return pool


def _summary(per_release: dict, releases: list[str]) -> list[str]:
    """``[[group]]`` tables: per release group, the sites (counted once per release) and
    rules, and the reasons the others are none."""
    lines = []
    for since, until in GROUPS:
        inside = [r for r in releases if version_key(since) <= version_key(r)
                  and (not until or version_key(r) < version_key(until))]
        if not inside:
            continue
        rules = sum(len({(x.module, x.function, x.message) for x in per_release[r][0]}) for r in inside)
        sites = sum(per_release[r][2] for r in inside)
        why = Counter(reason for r in inside for reason in per_release[r][1])
        lines += ["[[group]]", f"releases = [{toml_string(inside[0])}, {toml_string(inside[-1])}]",
                  f"sites = {sites}", f"rules = {rules}", f"skipped = {_counts(why)}", ""]
    return lines


def _counts(why: Counter) -> str:
    """An inline table of reasons and counts, most first (ties by reason)."""
    ordered = sorted(why.items(), key=lambda item: (-item[1], item[0]))
    return "{ " + ", ".join(f"{toml_string(k)} = {v}" for k, v in ordered) + " }"


def _per_release(per_release: dict, releases: list[str]) -> list[str]:
    """``[[release]]`` tables: each release's sites and skip reasons (what a merge of a newer
    release reads back, with each rule's runs)."""
    lines = []
    for release in releases:
        why, sites = per_release[release][1:3]
        lines += ["", "[[release]]", f"name = {toml_string(release)}", f"sites = {sites}",
                  f"skipped = {_counts(Counter(why))}"]
    return lines


def startup_history(rules: Path) -> dict[str, tuple[list[Rule], list[str], int]] | None:
    """Each release of ``rules/derived/startup.toml`` as :func:`startup_text` took it (release ->
    (rules, skip reasons, sites)); None where there is no table. ValueError where the table does
    not read back as itself (edited by hand, or written by another deriver)."""
    return table_history(rules / "derived" / TABLE, HEADER, needs=True)


def table_history(path: Path, header: tuple[str, ...], needs: bool = False) -> dict[str, tuple] | None:
    """Each release of the table at ``path`` as :func:`table_text` took it, with ``header``
    (and ``needs``)."""
    return read_merged(path, _rules_by_release, lambda per_release: table_text(per_release, header, needs),
                       "the rules of the releases it records write")


def _rules_by_release(data: dict, releases: list[str]) -> dict[str, tuple]:
    per_release = {r["name"]: ([], [reason for reason, n in r["skipped"].items() for _ in range(n)], r["sites"])
                   for r in data["release"]}
    pool = data.get("values", {})
    for check in data.get("check", []):
        module, function = check["site"].split(": ", 1)
        defaults = tuple(sorted(ast.literal_eval(check.get("defaults", "{}")).items()))
        shown = tuple(check.get("shown", ()))
        rule = Rule(module, function, check["exception"], check["message"], check["fails_when"], defaults,
                    value_closure(" ".join((check["fails_when"], *shown)), pool), shown,
                    tuple(check.get("platform", ())))
        for release in in_runs(check["releases"], releases):
            per_release[release][0].append(rule)
    if "fields" in data:
        taken: dict = {release: [] for release in releases}
        for name, runs in data["fields"].items():
            for release in in_runs(runs, releases):
                taken[release].append(name)
        per_release = {r: (*v, tuple(taken[r])) for r, v in per_release.items()}
    return per_release


def tree_startup(root: Path) -> tuple[list[Rule], list[str], int]:
    """One tree's start-up rules, the reasons its other sites are none, and how many sites."""
    with no_gc():
        modules = read_modules(root)
        fields = derive_server_fields(modules)
        startup = run_startup({m.name: m for m in modules}, [f.name for f in fields],
                              immutable=frozenset(f.name for f in fields if f.type in IMMUTABLE_TYPES))
    if startup is None:
        return [], [], 0
    defaults = {f.name: f.default if f.literal_default else f.container_default[0]
                for f in fields if f.literal_default or f.container_default}
    return site_rules(startup, defaults)


def release_startup(version: str, covered: frozenset = frozenset()) -> tuple[list[Rule], list[str], int]:
    """A release's start-up rules (tree_startup), kept in the cache as JSON."""
    path = cache_dir() / "startup" / f"{STARTUP_FORMAT}-{version}.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    else:
        rules, why, count = tree_startup(fetch_tree(version))
        data = {"rules": [rule_row(r) for r in rules], "skipped": why, "sites": count}
        keep_file(path, json.dumps(data).encode())  # (whole or not at all: another worker may read it)
    rules = [row_rule(row) for row in data["rules"]]
    return _uncovered(rules, data["skipped"], data["sites"], covered)


def rule_row(rule: Rule) -> list:
    """A rule as the per-release cache keeps it (JSON)."""
    return [rule.module, rule.function, rule.exception, rule.message, rule.condition, repr(rule.defaults),
            [list(v) for v in rule.values], list(rule.shown), list(rule.platform)]


def row_rule(row: list) -> Rule:
    m, f, e, msg, c, d, values, shown, *platform = row
    platform = platform[0] if platform else ()
    return Rule(m, f, e, msg, c, _defaults(d), tuple(tuple(v) for v in values), tuple(shown), tuple(platform))


def _uncovered(rules: list[Rule], why: list[str], sites: int, covered: frozenset) -> tuple:
    """A release's rules but those a curated rule reports (``covered``: their messages),
    counted as skipped for it."""
    kept = [r for r in rules if r.message not in covered]
    return kept, why + ["covered by a curated rule"] * (len(rules) - len(kept)), sites


def _defaults(text: str) -> tuple:
    """The defaults as written (repr of Python literals: None and tuples as they are)."""
    return tuple(tuple(pair) for pair in ast.literal_eval(text))


def curated_sites(rules: Path) -> frozenset:
    """The messages of the raise sites the curated rules report (rules/SGL0*.toml), wherever
    a release has them."""
    found = set()
    for path in sorted(rules.glob("SGL0*.toml")):
        site = tomllib.loads(path.read_text(encoding="utf-8")).get("raise_site", {})
        if site.get("message"):
            found.add(site["message"])
    return frozenset(found)


def write_startup(rules: Path, releases: list[str]) -> Path:
    """derived/startup.toml of these releases (each derived once, then read from the cache)."""
    covered = curated_sites(rules)
    return _write(rules, {release: release_startup(release, covered) for release in releases})


def merge_startup(rules: Path, version: str, root: Path, alone: bool = False) -> Path:
    """Add the release ``version`` (its tree under ``root``) to derived/startup.toml, the
    table's other releases as it records them (``alone``, or no table: that release only)."""
    history = {} if alone else startup_history(rules) or {}
    history[version] = _uncovered(*tree_startup(root), curated_sites(rules))
    return _write(rules, history)


def _write(rules: Path, per_release: dict) -> Path:
    path = rules / "derived" / TABLE
    path.write_text(startup_text(per_release), encoding="utf-8")
    return path
