"""Writing the derived catalog: one rule file per derivable site (``rules/derived/SGLnnn-*.toml``),
the lock file that keeps each site's code for good (``codes.lock``), the index of what was
made and skipped (``INDEX.md``), the server-argument table (``server_args.toml``), the re-exports
(``exports.toml``) and the functions that take launch flags (``launchers.toml``)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sglang_lint.catalog.rules import Rule
from sglang_lint.catalog.rules import EXPORTS_TABLE
from sglang_lint.checks.value_tests import within_bounds
from sglang_lint.core.rulefile import tomllib
from sglang_lint.derive.source.exports import aliases_of, exports_text
from sglang_lint.derive.sites.fails_when.examples import write_value
from sglang_lint.derive.sites.fails_when.files import path_rule_name, path_rule_text
from sglang_lint.derive.sites.fails_when.rules import path_called, path_holds
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string, toml_value
from sglang_lint.derive.reading.guards import LITERALS, shown_message
from sglang_lint.derive.commands.launchers import LAUNCHERS_TABLE, launchers_text
from sglang_lint.derive.server_args.fields import SERVER_ARGS_TABLE
from sglang_lint.derive.sites.guarded_raises import GuardedRaise
from sglang_lint.derive.sites.raise_sites import Derivation
from sglang_lint.derive.source.tree import UNKNOWN_VERSION
from sglang_lint.engine.ruletable import load_rules
from sglang_lint.text.pynames import NOT_LITERAL

FIRST_DERIVED_CODE = 100
LAST_DERIVED_CODE = 899
# Past SGL899 (SGL900 is the engine's): four digits, SGL1000-SGL8999.
MORE_DERIVED_CODES = range(1000, 9000)
DERIVED_DIR = "derived"
LOCK_FILE = "codes.lock"
INDEX_FILE = "INDEX.md"


def rule_name(site: GuardedRaise) -> str:
    """The rule's name: its function and parameter (``benchmark-backend``); for a guard that
    runs only when other arguments pass a test, or in a helper, those too (names stay apart)."""
    when = "".join(f"-when-{argument or condition.parameter}" for condition, argument, _, _ in site.conditions)
    caller = f"-in-{site.caller.split('.')[0]}" if site.caller else ""
    return _slug(site.function.replace(".", "-") + "-" + site.parameter + caller + when)


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text).lower()).strip("-")
    return slug[:60].strip("-") or "rule"


def _range_examples(c) -> tuple[object, object]:
    """(a number that fails, one that passes) the bounds of a number-range constraint."""
    bounds = [b for _, b in c.values]
    integral = all(isinstance(b, int) for b in bounds)
    step = 1 if integral else 0.5
    candidates = sorted({b + d for b in bounds for d in (-2 * step, -step, 0, step, 2 * step)}
                        | {(a + b) / 2 for a in bounds for b in bounds if a != b})
    passing = [v for v in candidates if within_bounds(v, c.values)]
    failing = [v for v in candidates if not within_bounds(v, c.values)]
    nearest = min(failing, key=lambda v: (min(abs(v - b) for b in bounds), v))  # the edge: n=0 for n > 0
    return nearest, (min(passing, key=lambda v: (min(abs(v - b) for b in bounds), v)) if passing else bounds[0])


class _Opaque:
    """A value no literal stands for (a tensor): shown as a name in an example."""

    def __repr__(self) -> str:
        return "value"


def _bad_value(site: GuardedRaise) -> object:
    c = site.constraint
    if c.kind == "number-range":
        return _range_examples(c)[0]
    if c.kind == "instance-of":
        return next(v for v in (*LITERALS, _Opaque()) if isinstance(v, _Opaque) or c.fails(v))
    if c.kind == "falsy":
        return True
    if c.kind == "allowed-values":
        sample = c.values[0]
        if isinstance(sample, bool):
            return next((v for v in (True, False) if v not in c.values), "invalid")
        if isinstance(sample, (int, float)):
            return max(v for v in c.values if not isinstance(v, bool)) + 1
        candidate = f"{sample}_typo" if isinstance(sample, str) else "invalid"
        return candidate
    if c.kind == "forbidden-values":
        return c.values[0]
    if c.kind in ("not-none", "truthy"):
        return None
    return True  # must-be-none


def _good_value(site: GuardedRaise) -> object:
    """A value that passes the site's guard, and the other guards on the same argument."""
    first = _own_good_value(site)
    candidates = [first] + [v for c in (site.constraint, *site.siblings) if c.kind == "allowed-values"
                            for v in c.values] + [_Opaque()]  # a name, where no literal passes them all
    passing = [v for v in candidates if not site.constraint.fails(v) and not any(c.fails(v) for c in site.siblings)]
    # one with which the callable's fails-when checks pass too, where there is one
    clear = (v for v in passing if all(path_holds(path, _with_companions(site, v)) is not True for path in site.paths))
    return next(clear, passing[0] if passing else first)


def _with_companions(site: GuardedRaise, value: object) -> dict:
    """The arguments the site's good example passes, as :func:`_example` writes them: the
    conditions' arguments passing their tests, then the companions of the other arguments."""
    good = {site.target.argument: value}
    for condition, argument, _, _ in site.conditions:
        good[argument] = _passing_all([c for c, a, _, _ in site.conditions if a == argument])
    for argument, companion in site.companions:
        good.setdefault(argument, companion)
    return good


def _own_good_value(site: GuardedRaise) -> object:
    c = site.constraint
    if c.kind == "instance-of":
        return next((v for v in LITERALS if not c.fails(v)), _Opaque())
    if c.kind == "falsy":
        return None
    if c.kind == "number-range":
        return _range_examples(c)[1]
    if c.kind == "allowed-values":
        return c.values[0]
    if c.kind == "forbidden-values":
        if all(isinstance(v, str) for v in c.values):
            return "other"
        return next(i for i in range(1000) if i not in c.values)
    if c.kind in ("not-none", "truthy"):
        return 1
    return None


def _example(site: GuardedRaise, value: object) -> str:
    target = site.target
    # With the other arguments a conditional guard needs, each passing its test.
    tested: dict[str, list] = {}  # argument -> its conditions (one argument may have several)
    for condition, argument, _, _ in site.conditions:
        tested.setdefault(argument, []).append(condition)
    shown = ", ".join([f"{target.argument}={value!r}" if target.argument else repr(value)] + [
        f"{argument}={_passing_all(conditions)!r}" for argument, conditions in tested.items()
    ] + [f"{argument}={write_value(good)}" for argument, good in site.companions if argument not in tested])
    torch = "import torch\n\n" if "torch.zeros(" in shown else ""  # a tensor a fails-when check needs
    if target.kind == "method":  # a receiver made at the call: evidence of its class
        module, _, cls = target.receivers[0].rpartition(".")
        return f"{torch}from {module} import {cls}\n\n{cls}(*args, **kwargs).{target.name}({shown})"
    module, _, name = target.name.rpartition(".")
    return f"{torch}from {module} import {name}\n\n{name}({shown})"


def set_companions(sites: list[GuardedRaise], passing: dict | None = None) -> None:
    """For each site's examples, the other arguments of the same callable that a call must
    pass (leaving them out fails: their defaults break a guard), each with a passing value,
    and the other guards on its own argument (its good value passes them too)."""
    passing = passing or {}
    required: dict[tuple, list[GuardedRaise]] = {}
    for site in sites:
        if site.target.omitted and site.target.argument:
            required.setdefault((site.target.kind, site.target.name), []).append(site)
    by_argument: dict[tuple, list[GuardedRaise]] = {}
    for site in sites:
        by_argument.setdefault((site.target.kind, site.target.name, site.parameter), []).append(site)
    for site in sites:
        site.siblings = [o.constraint for o in by_argument[(site.target.kind, site.target.name, site.parameter)]
                         if o is not site]
        others = required.get((site.target.kind, site.target.name), [])
        site.companions = list(dict.fromkeys(
            (o.target.argument, _good_value(o)) for o in others
            if o.target.argument != site.target.argument and o.parameter != site.parameter
        ))
        # the arguments the callable's fails-when checks need to pass (derive/sites/fails_when/rules.py)
        given = {site.target.argument, site.parameter, *(argument for argument, _ in site.companions)}
        needed = passing.get((site.target.kind, site.target.name), {})
        site.companions += [(name, value) for name, value in needed.items() if name not in given]


def _drop_conflicting_paths(derivation: Derivation) -> None:
    """A fails-when rule whose check a one-parameter rule's good example fails, or whose good
    example a one-parameter rule rejects, is left out: each rule's good call must pass every
    check of its callable."""
    by_callee: dict[tuple, list[GuardedRaise]] = {}
    for site in derivation.rules:
        by_callee.setdefault((site.target.kind, site.target.name), []).append(site)
    kept = []
    for path in derivation.paths:
        siblings = by_callee.get(path.target, ())
        read = path.read
        if any(site.constraint.kind in ("allowed-values", "forbidden-values") and read == {site.parameter}
               for site in siblings):
            # a second finding for one misspelt value says nothing new
            derivation.path_skipped["an allowed-values rule of the callable checks that argument already"] += 1
        elif any(_conflict(path, site) for site in siblings):
            derivation.path_skipped["no call passes every check of the callable together"] += 1
        else:
            kept.append(path)
    derivation.paths = kept


def _conflict(path, site: GuardedRaise) -> bool:
    if site.target.argument is None:
        return False
    if path_holds(path, _with_companions(site, _good_value(site))) is True:
        return True
    called = path_called(path, path.good)
    value = called.get(site.parameter, NOT_LITERAL)
    if not _literal_like(value) or not site.constraint.fails(value):
        return False
    return all(argument in called and _literal_like(called[argument]) and condition.passes(called[argument])
               for condition, argument, _, _ in site.conditions)


def _literal_like(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, tuple, list, dict))


def _passing_all(conditions: list) -> object:
    """A literal that passes every one of an argument's conditions."""
    candidates = [_passing(c) for c in conditions] + ["other", 1, True]
    return next((v for v in candidates if all(c.passes(v) for c in conditions)), candidates[0])


def _passing(condition) -> object:
    """A literal that passes a condition of a conditional guard."""
    if condition.holds == "truthy":
        return True
    if condition.holds == "falsy":
        return False
    if condition.holds == "in":
        return condition.values[0]
    values = [v for v in condition.values if v is not None]
    if not values:
        return 1
    if all(isinstance(v, str) for v in values):
        return next(f"other{i or ''}" for i in range(len(values) + 1) if f"other{i or ''}" not in values)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return max(values) + 1
    return None if None not in condition.values else "other"


def _title(site: GuardedRaise) -> str:
    c = site.constraint
    callee = site.target.name.rsplit(".", 1)[-1] if site.target.kind != "method" else site.target.name
    p = site.parameter
    if c.kind == "allowed-values":
        shown = ", ".join(repr(v) for v in c.values[:6]) + (", ..." if len(c.values) > 6 else "")
        return f"{callee}: {p}{f'.{c.fold}()' if c.fold else ''} must be one of {shown}"
    if c.kind == "number-range":
        return f"{callee}: {p} must be {' and '.join(f'{op} {b!r}' for op, b in c.values)}"
    if c.kind == "instance-of":
        return f"{callee}: {p} must be {c.describe(p)}"
    if c.kind == "falsy":
        return f"{callee}: {p} must be false, None or empty"
    return {
        "forbidden-values": f"{callee}: {p} must not be {', '.join(repr(v) for v in c.values)}",
        "not-none": f"{callee}: {p} is required (not None)",
        "must-be-none": f"{callee}: {p} is not supported (must be None)",
        "truthy": f"{callee}: {p} must be set (not empty, zero or None)",
    }[c.kind]


def rule_text(site: GuardedRaise, code: str, version: str, since: str | None = None) -> str:
    """A rule file for the site; ``since``: the first release whose site checks the same (for a
    catalog merged from several releases; None: every release)."""
    c = site.constraint
    lines = [
        GENERATED_MARK,
        f"code = {toml_string(code)}",
        f"name = {toml_string(rule_name(site))}",
        f"title = {toml_string(_title(site))}",
        f"catalog_id = {toml_string(hashlib.sha1(site.key.encode()).hexdigest()[:16])}",
        "",
        "[raise_site]",
        f"module = {toml_string(site.module)}",
        f"function = {toml_string(site.function)}",
        f"parameter = {toml_string(site.parameter)}",
        f"exception = {toml_string(site.exception.rsplit('.', 1)[-1] or 'Exception')}",
        f"message = {toml_string(shown_message(site.exception, site.message))}",
        f"line = {site.line}",
        f"sglang_version = {toml_string(version)}",
        *([f"since = {toml_string(since)}"] if since else []),
        "",
        "[derived]",
        f"key = {toml_string(site.key)}",
        f"constraint = {toml_string(c.describe(site.parameter))}",
        "",
        "[[check]]",
        f"kind = {toml_string(c.kind)}",
        f"summary = {toml_string(f'{site.exception}: {site.message}' if site.message else site.exception)}",
    ]
    if c.kind in ("allowed-values", "forbidden-values"):
        lines.append("values = [" + ", ".join(toml_value(v) for v in c.values) + "]")
    if c.fold is not None:
        lines.append(f"fold = {toml_string(c.fold)}")
    if c.kind == "number-range":
        lines.append("holds = [" + ", ".join(f"[{toml_string(op)}, {toml_value(b)}]" for op, b in c.values) + "]")
    if c.kind == "instance-of":
        for key, names in zip(("types", "not_types"), c.values):
            if names:
                lines.append(f"{key} = [" + ", ".join(toml_string(n) for n in names) + "]")
    if c.none_allowed:
        lines.append("none = true")
    lines.append("strict = true")
    for target in [site.target, *site.passthrough]:
        lines += ["", "[[check.target]]", f"{target.kind} = {toml_string(target.name)}"]
        if target.argument:
            lines.append(f"argument = {toml_string(target.argument)}")
        if target.position is not None:
            lines.append(f"position = {target.position}")
        if target.receivers:
            lines.append("receivers = [" + ", ".join(toml_string(r) for r in target.receivers) + "]")
        if target.on_class:
            lines.append("on_class = true")
        if target.fields:
            lines.append("fields = true")
        if target.omitted:
            lines.append("omitted = true")
        if target.via:
            lines.append(f"via = {toml_string(target.via)}")
    for condition, argument, position, default in site.conditions:
        lines += ["", "[[check.condition]]"]
        if argument:
            lines.append(f"argument = {toml_string(argument)}")
        if position is not None:
            lines.append(f"position = {position}")
        lines.append(f"holds = {toml_string(condition.holds)}")
        values = [v for v in condition.values if v is not None]
        if values:
            lines.append("values = [" + ", ".join(toml_value(v) for v in values) + "]")
        if None in condition.values:
            lines.append("none = true")
        if default is None:
            lines.append("default_none = true")
        elif default is not NOT_LITERAL:
            lines.append(f"default = {toml_value(default)}")
    when = " and ".join(condition.describe() for condition, *_ in site.conditions)
    why = (
        f"sglang's {site.function} ({site.module}, line {site.line} in {version}) raises "
        f"{site.exception}({site.message!r}) unless {c.describe(site.parameter)}"
        + (f", when {when}. The test runs on every call; when those arguments are literals at the call, "
           f"the outcome is certain" if when else ". The check runs on every call")
        + ", so a call that passes anything else fails at run time; this rule finds it in the source."
    )
    lines += [
        "",
        "[docs]",
        f"why = {toml_string(why)}",
        f"bad = {toml_string(_example(site, _bad_value(site)))}",
        f"good = {toml_string(_example(site, _good_value(site)))}",
        "",
    ]
    return "\n".join(lines)


def check_tables(text: str, since: str, until: str) -> str:
    """A rule file's [[check]] tables (and their targets), given the releases they are for."""
    body = text[text.index("\n[[check]]\n") + 1:text.index("\n[docs]\n")].rstrip("\n")
    return _with_check_range(body, since, until) + "\n"


def with_older_checks(text: str, since: str, older: str) -> str:
    """A rule file whose check is sglang's from release ``since`` on, with ``older``: the
    [[check]] tables of what the raise site checked in the releases before."""
    head, _, rest = text.partition("\n[[check]]\n")
    body, _, docs = rest.partition("\n[docs]\n")
    body = _with_check_range("[[check]]\n" + body.rstrip("\n"), since, "")
    return f"{head}\n{body}\n\n{older}\n[docs]\n{docs}"


def _with_check_range(tables: str, since: str, until: str) -> str:
    lines = tables.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("kind = ")) + 1
    extra = ([f"since = {toml_string(since)}"] if since else []) + ([f"until = {toml_string(until)}"] if until else [])
    return "\n".join(lines[:at] + extra + lines[at:])


def older_checks_of(rules_dir: Path) -> dict[str, tuple[str, str]]:
    """What a catalog's derived rules say of the checks their raise sites had in older
    releases: key -> (the first release of the newest check, the older [[check]] tables), in
    the form :func:`write_catalog` takes (for re-writing a catalog without its releases)."""
    found = {}
    for rule in load_rules([rules_dir]):
        if rule.derived_key and len(rule.checks) > 1 and rule.checks[0].since and not rule.raise_site.until:
            text = rule.path.read_text(encoding="utf-8")
            older = text[text.index("\n[[check]]\n", text.index("\n[[check]]\n") + 1) + 1:text.index("\n[docs]\n")]
            found[rule.derived_key] = (rule.checks[0].since, older.rstrip("\n") + "\n")
    return found


@dataclass(frozen=True)
class CatalogHistory:
    """What a catalog merged over releases records of them (read back from its files): the
    releases, oldest first; each derived rule's first release (by site key); the older checks
    of a site whose check changed (:func:`older_checks_of`); the merged server-argument table."""

    releases: tuple[str, ...]
    since: dict
    older_checks: dict
    server_args_text: str


def catalog_history(rules_dir: Path) -> CatalogHistory | None:
    """The history a rule folder's derived catalog records; None where it records none (no
    table, or a table of one release with no ``releases`` list)."""
    table = rules_dir / DERIVED_DIR / SERVER_ARGS_TABLE
    if not table.is_file():
        return None
    text = table.read_text(encoding="utf-8")
    releases = tuple(tomllib.loads(text).get("releases", ()))
    if not releases:
        return None
    rules = load_rules([rules_dir])
    since = {r.derived_key: r.raise_site.since for r in rules if r.derived_key and r.raise_site.since}
    return CatalogHistory(releases, since, older_checks_of(rules_dir), text)


def write_over_history(derivation: Derivation, rules_dir: Path, history: CatalogHistory) -> tuple[int, Counter]:
    """Write the newest release's tree (``derivation``) over a catalog merged over releases,
    keeping what the catalog records of the others: each rule's first release, its older
    checks, the rules of raise sites only older releases have, the merged server-argument
    table. On the tree the catalog was made from, every file comes out as it was."""
    if derivation.version != history.releases[-1]:
        raise ValueError(f"sglang {derivation.version} is not the newest release of the catalog "
                         f"({history.releases[-1]})")
    return write_catalog(derivation, rules_dir, history.server_args_text, history.since,
                         older_checks=history.older_checks)


def _read_lock(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return dict(tomllib.loads(path.read_text(encoding="utf-8")).get("codes", {}))


def _lock_text(codes: dict[str, str]) -> str:
    lines = [
        "# Generated by `sglang-lint catalog derive`. Each derived raise site keeps its code for",
        "# good: a site gone from sglang keeps its line here, so its code is never given again.",
        "[codes]",
    ]
    ordered = sorted(codes.items(), key=lambda kv: kv[1])
    lines += [f"{toml_string(key)} = {toml_string(code)}" for key, code in ordered]
    return "\n".join(lines) + "\n"


def covered_by(curated: list[Rule]) -> set[tuple[str, str]]:
    """(target name, argument) pairs a curated rule already checks."""
    covered = set()
    for rule in curated:
        for check in rule.checks:
            for target in check.targets:
                covered.add((target.name, target.argument or ""))
    return covered


def write_catalog(
    derivation: Derivation, rules_dir: Path, server_args_text: str | None = None, since: dict | None = None,
    gone: dict | None = None, older_checks: dict | None = None,
) -> tuple[int, Counter]:
    """Write one rule file per derivable site into ``rules_dir/derived`` (codes kept stable
    through the lock file). Returns (rules written, skipped by reason). Refuses a tree whose
    release is unknown: every rule records the release it was verified in. For a catalog
    merged from several releases: ``server_args_text``, the merged table; ``since``, the first
    release of each rule (by site key; see derive/releases/history.py); ``gone``, the raise sites of
    older releases that the newest no longer has: key -> (rule entry, since, until);
    ``older_checks``, for a site whose check changed: key -> (the first release of its check
    now, the [[check]] tables of what it checked before)."""
    if derivation.version == UNKNOWN_VERSION:
        raise ValueError(
            "the sglang release of this tree is unknown (no sglang-*.dist-info, no sglang/_version.py, "
            "no wheel name): refusing to write a catalog that records no release"
        )
    out = rules_dir / DERIVED_DIR
    out.mkdir(parents=True, exist_ok=True)
    if derivation.server_fields:  # first: curated rules read it
        text = server_args_text if server_args_text is not None else derivation.server_args_text()
        (out / SERVER_ARGS_TABLE).write_text(text, encoding="utf-8")
    curated = [r for r in load_rules([rules_dir]) if DERIVED_DIR not in r.path.relative_to(rules_dir).parts[:-1]]
    covered = covered_by(curated)
    for site in derivation.rules:
        if (site.target.name, site.target.argument or "") in covered:
            site.skipped = "covered by a curated rule"
    set_companions(derivation.rules, derivation.path_passing)
    paths: dict[tuple, list] = {}
    for path in derivation.paths:
        if not path.receiver:
            paths.setdefault(path.target, []).append(path)
    for site in derivation.rules:
        site.paths = paths.get((site.target.kind, site.target.name), [])
    _drop_conflicting_paths(derivation)
    lock = _read_lock(out / LOCK_FILE)
    used = set(lock.values())
    numbers = (*range(FIRST_DERIVED_CODE, LAST_DERIVED_CODE + 1), *MORE_DERIVED_CODES)
    free = (f"SGL{n:03d}" for n in numbers if f"SGL{n:03d}" not in used)
    files = {}
    index = []
    for site in sorted(derivation.rules, key=lambda s: s.key):
        code = lock.get(site.key)
        if code is None:
            code = next(free, None)
            if code is None:
                site.skipped = "no derived code left (SGL100-SGL899 and SGL1000-SGL8999 are all taken)"
                continue
            lock[site.key] = code
        name = rule_name(site)
        text = rule_text(site, code, derivation.version, (since or {}).get(site.key))
        if site.key in (older_checks or {}):
            text = with_older_checks(text, *older_checks[site.key])
        files[f"{code}-{name}.toml"] = text
        callee = site.target.name if site.target.kind != "method" else f".{site.target.name}()"
        index.append(
            (code, f"| {code} | `{name}` | `{callee}` | `{_cell(site.constraint.describe(site.parameter))}` | "
                   f"{site.exception} in `{site.module}.{site.function}` |")
        )
    # the names sglang re-exports an enum by: a member a user names through one is known too
    enum_aliases = aliases_of({e.qualified for site in derivation.paths for e in site.enums}, derivation.exports)
    for site in derivation.paths:
        site.enums = tuple(dataclasses.replace(e, aliases=tuple(enum_aliases.get(e.qualified, ()))) for e in site.enums)
        code = lock.get(site.key)
        if code is None:
            code = next(free, None)
            if code is None:
                continue
            lock[site.key] = code
        files[f"{code}-{path_rule_name(site)}.toml"] = path_rule_text(
            site, code, derivation.version, (since or {}).get(site.key))
        kind, callee = site.target
        index.append((code, f"| {code} | `{path_rule_name(site)}` | `{callee if kind != 'method' else f'.{callee}()'}` "
                            f"| `{_cell('not (' + site.when + ')')}` | {site.exception} in "
                            f"`{site.module}.{site.function}` |"))
    older = {}  # file name -> text, for the raise sites only older releases have
    if gone is None:
        # One release alone says nothing of older ones: their rules (``until``) stay as written.
        for path in out.glob("SGL*.toml"):
            text = path.read_text(encoding="utf-8")
            if text.startswith(GENERATED_MARK) and "\nuntil = " in text.partition("\n[derived]\n")[0]:
                older[path.name] = text
    for key, (entry, first, until) in sorted((gone or {}).items()):
        if tuple(entry["target"]) in covered:
            continue
        code = lock.get(key)
        if code is None:
            code = next(free, None)
            if code is None:
                continue
            lock[key] = code
        older[f"{code}-{entry['name']}.toml"] = _with_range(entry["text"], code, first, until)
    for name, text in older.items():
        files[name] = text
        index.append(_older_row(text))
    for stale in out.glob("SGL*.toml"):
        if stale.name not in files and stale.read_text(encoding="utf-8").startswith(GENERATED_MARK):
            stale.unlink()
    for name, text in files.items():
        path = out / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    _write_launchers(out, derivation)  # (first: the rules read their targets from it, and exports.toml their names)
    _write_exports(out, rules_dir, derivation)
    (out / LOCK_FILE).write_text(_lock_text(lock), encoding="utf-8")
    (out / INDEX_FILE).write_text(_index_text(index, derivation, len(older)), encoding="utf-8")
    return len(files), derivation.skipped()


def _write_exports(out: Path, rules_dir: Path, derivation: Derivation) -> None:
    """exports.toml: the names sglang re-exports each class or function of the catalog by."""
    path = out / EXPORTS_TABLE
    path.unlink(missing_ok=True)  # the targets are read as written, not through an older table
    targets = {name for rule in load_rules([rules_dir]) for check in rule.checks for target in check.targets
               for name in ((target.name,) if target.kind in ("function", "class") else target.receivers)}
    aliases = aliases_of(targets, derivation.exports)
    if aliases:
        path.write_text(exports_text(aliases, derivation.version), encoding="utf-8")


def _write_launchers(out: Path, derivation: Derivation) -> None:
    """launchers.toml: the functions of sglang that take launch flags (or a launch command) in a
    parameter, and the flags of `sglang serve`'s other backend (the server-args rules read it)."""
    text = launchers_text(derivation.launch_entry_points, derivation.version, derivation.commands,
                          derivation.keyword_launchers, bool(derivation.scripts))
    (out / LAUNCHERS_TABLE).write_text(text, encoding="utf-8")


def _with_range(text: str, code: str, since: str, until: str) -> str:
    """A rule file of an older release (its code left as SGL000) with its code and releases."""
    lines = text.replace('code = "SGL000"', f"code = {toml_string(code)}", 1).split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("sglang_version = ")) + 1
    extra = ([f"since = {toml_string(since)}"] if since else []) + [f"until = {toml_string(until)}"]
    return "\n".join(lines[:at] + extra + lines[at:])


def _older_row(text: str) -> tuple[str, str]:
    """The index row of a rule of older releases, read from its file."""
    rule = tomllib.loads(text)
    site, target = rule["raise_site"], rule["check"][0]["target"][0]
    kind = next(k for k in ("function", "class", "method", "attribute") if k in target)
    callee = f".{target[kind]}()" if kind == "method" else target[kind]
    code = rule["code"]
    return code, (f"| {code} | `{rule['name']}` | `{callee}` | `{_cell(rule['derived']['constraint'])}` | "
                  f"{site['exception']} in `{site['module']}.{site['function']}` (until {site['until']}) |")


def _cell(text: str) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= 90 else text[:87] + "..."


def _index_text(rows: list[tuple[str, str]], derivation: Derivation, older: int = 0) -> str:
    skipped = derivation.skipped()
    lines = [
        "<!-- Generated by `sglang-lint catalog derive`: do not edit; re-derive instead. -->",
        f"# Derived rules (sglang {derivation.version})",
        "",
        f"{len(derivation.sites)} raise sites of sglang {derivation.version} have a guard that tests a parameter "
        f"of their function; {len(rows) - older} of them are rules here, {sum(skipped.values())} were skipped"
        + (f"; {older} more rules are raise sites only older releases have (until):" if older else ":"),
        "",
        "| skipped | reason |",
        "|---:|---|",
        *[f"| {count} | {reason} |" for reason, count in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))],
        "",
        f"{len(derivation.paths)} of the rules are fails-when rules: the whole path to a raise as one expression "
        "over the parameters (derive/reading/paths.py). Why the other raises of functions a call can name got none:",
        "",
        "| no fails-when rule | reason |",
        "|---:|---|",
        *[f"| {count} | {reason} |"
          for reason, count in sorted(derivation.path_skipped.items(), key=lambda kv: (-kv[1], kv[0]))],
        "",
        "| Code | Name | Call | Must hold | Raise site |",
        "|---|---|---|---|---|",
        *[row for _, row in sorted(rows)],
        "",
    ]
    return "\n".join(lines)
