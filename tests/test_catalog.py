"""The catalog: every shipped rule is complete and its own examples behave; a malformed
rule file is refused with the file and the field named, before anything is linted."""

from __future__ import annotations

import collections
import functools
from pathlib import Path

import pytest

from conftest import ROOT, run
from sglang_lint import lint
from sglang_lint.analysis.source import parse
from sglang_lint.core.rulefile import RuleFileError, tomllib
from sglang_lint.core.versions import version_key
from sglang_lint.engine.fixes import fix_text
from sglang_lint.engine.ruletable import RuleSet, default_rules, load_rules

UNSCREENED = RuleSet(default_rules(), screen=False)
SCREENED = RuleSet(default_rules())
DERIVED_UNSCREENED, DERIVED_SCREENED = (s.select(None, ["SGL013"]) for s in (UNSCREENED, SCREENED))

SEEDS = ["000_1538b24e4e1c2abb", "001_dba098f04c7d3fb1", "002_e00cb8aa553d4839",
         "003_ec078740dd00e4ba", "004_329cdf3d6a01b27e"]


def curated_rules():
    return [r for r in default_rules() if r.derived_key is None]


def test_seed_rules_in_seed_order():
    rules = curated_rules()[:5]
    assert [r.code for r in rules] == ["SGL001", "SGL002", "SGL003", "SGL004", "SGL005"]
    assert [r.seed for r in rules] == SEEDS
    later = ["SGL006", "SGL007", "SGL008", "SGL009", "SGL010", "SGL011", "SGL012", "SGL013", "SGL014", "SGL015"]
    assert [r.code for r in curated_rules()[5:]] == later
    for rule in rules:
        assert rule.path.name.startswith(f"{rule.code}-{rule.name}")
        assert rule.raise_site.module.startswith("sglang.")
        assert rule.raise_site.sglang_version == "0.5.23"


def case_variant(rule) -> tuple[str, str] | None:
    """For a rule whose check allows a list of strings: its good example with the allowed
    value it uses written in the other case, and that value; None where no such variant
    exists, or another allowed value differs from it only by case."""
    for check in rule.checks:
        if check.kind != "allowed-values" or check.params.enum is not None:
            continue
        values = [v for v in check.params.values if isinstance(v, str)]
        if not values:
            continue
        value = next(v for v in values if repr(v) in rule.docs.good)
        changed = value.upper() if value.upper() != value else value.lower()
        same_up_to_case = [v for v in values if v.lower().replace("-", "_") == value.lower().replace("-", "_")]
        if changed == value or len(same_up_to_case) > 1:
            return None
        return rule.docs.good.replace(repr(value), repr(changed), 1), value
    return None


@pytest.mark.parametrize("rule", default_rules(), ids=lambda r: r.code)
def test_rule_examples(rule):
    """Every check a rule's own examples go through, each example linted once per mode, in
    the release the rule was derived from (a raise site only older releases have is judged
    there; in the newest release its rule is off)."""
    release = [rule.raise_site.sglang_version] if rule.raise_site.until else []
    # A derived rule's examples pass the arguments its check reads, not every required one
    # (SGL013 would name the others).
    sets = (DERIVED_SCREENED, DERIVED_UNSCREENED) if rule.derived_key else (SCREENED, UNSCREENED)
    screened, unscreened = (_for_releases(s, tuple(release)) for s in sets)
    bad = lint(rule.docs.bad, "example.py", screened)
    # A derived rule's bad example may break another guard of the same callable too (ver=5 is
    # also outside flash_attn's (3, 4)); any other code is then a rule of that callable. Where
    # that guard is on an earlier line of the same function and reads an argument this rule
    # reads, sglang raises there first, and only that one is reported (engine/precedence.py).
    codes = {d.code for d in bad}
    assert bad and (rule.code in codes or rule.derived_key and _raised_before(rule, codes))
    assert codes - {rule.code} <= (same_callee(rule) if rule.derived_key else set())
    assert lint(rule.docs.good, "example.py", screened) == []
    # The prefilter and the call-site screen never hide a finding (test_screen).
    assert lint(rule.docs.bad, "example.py", unscreened) == bad
    assert lint(rule.docs.good, "example.py", unscreened) == []
    if release:
        # (another rule may judge the same call in the newest, where the site moved)
        assert rule.code not in {d.code for d in lint(rule.docs.bad, "example.py")}, "off in the newest"
        return
    # Any fix the bad example gets yields code that parses and no longer has the finding.
    fixed = fix_text(rule.docs.bad, "example.py", unsafe=True)
    parse(fixed.text)
    if fixed.fixed:
        assert [d for d in fixed.remaining if d.code == rule.code] == []
    # A derived rule's good example with its value in the other case is fixed back,
    # safely, to the good example itself.
    # (not where sglang looks the value up lower-cased: the other case is taken there)
    folded = any(getattr(check.params, "fold", None) for check in rule.checks)
    variant = case_variant(rule) if rule.derived_key and not folded else None
    if variant is not None:
        misspelt, _ = variant
        assert [d.code for d in lint(misspelt, "example.py")] == [rule.code]
        assert fix_text(misspelt, "example.py").text == rule.docs.good


@functools.lru_cache(maxsize=None)
def _for_releases(rules: RuleSet, releases: tuple[str, ...]) -> RuleSet:
    """``rules.for_releases(releases)`` of the module's rule sets, each made once: a thousand
    rules are judged in the older release they were derived from, and a rule set's screen
    takes a while to build."""
    return rules.for_releases(releases)


def _raised_before(rule, codes: set[str]) -> bool:
    """Is one of ``codes`` a rule of a raise on an earlier line of the function ``rule``'s is in?"""
    site = rule.raise_site
    by_code = {other.code: other.raise_site for other in default_rules()}
    return any(by_code[code].module == site.module and by_code[code].function == site.function
               and by_code[code].line < site.line for code in codes)


def same_callee(rule) -> set[str]:
    """The codes of the other rules that target a callable this rule targets."""
    by_callee = _codes_by_callee()
    return {code for c in rule.checks for t in c.targets for code in by_callee[t.name]} - {rule.code}


@functools.lru_cache(maxsize=1)
def _codes_by_callee() -> dict[str, set[str]]:
    by_callee: dict[str, set[str]] = collections.defaultdict(set)
    for other in default_rules():
        for check in other.checks:
            for target in check.targets:
                by_callee[target.name].add(other.code)
    return by_callee


def test_most_derived_rules_are_checked_for_the_case_fix():
    derived = [r for r in default_rules() if r.derived_key and not r.raise_site.until  # the newest release's
               and r.checks[0].kind == "allowed-values"]  # (numbers and None have no case to get wrong)
    assert sum(case_variant(r) is not None for r in derived) > len(derived) // 3


VALID = """
code = "SGL101"
name = "team-rule"
title = "A team's own rule"
catalog_id = "0123456789abcdef"

[raise_site]
module = "sglang.x"
function = "f"
exception = "ValueError"
message = "bad mode"
sglang_version = "0.5.23"

[[check]]
kind = "allowed-values"
summary = "bad mode"
values = ["a", "b"]

[[check.target]]
function = "sglang.x.f"
argument = "mode"
position = 0

[docs]
why = "because"
bad = "f('c')"
good = "f('a')"
"""


def write(tmp_path: Path, text: str, name: str = "SGL101-team-rule.toml") -> Path:
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


def test_valid_team_rule_loads_and_runs(tmp_path):
    from sglang_lint.engine.ruletable import RuleSet

    (rule,) = load_rules([write(tmp_path, VALID)])
    assert rule.code == "SGL101"
    ruleset = RuleSet([rule])
    found = lint("from sglang.x import f\nf('c')\nf('a')\n", "t.py", ruleset)
    assert [(d.line, d.col, d.code) for d in found] == [(2, 2, "SGL101")]


@pytest.mark.parametrize(
    "change, field, problem",
    [
        (('title = "A team\'s own rule"\n', ""), "title", "is missing"),
        (('code = "SGL101"', 'code = "SGL1"'), "code", "does not match"),
        (('code = "SGL101"', 'code = "SGL900"'), "code", "reserved"),
        (('position = 0', 'position = "0"'), "check[0].target[0].position", "must be an integer"),
        (('kind = "allowed-values"', 'kind = "allowed-valuez"'), "check[0].kind", "unknown check kind"),
        (('values = ["a", "b"]', "values = []"), "check[0].values", "non-empty list"),
        (('values = ["a", "b"]', 'values = ["a", "a"]'), "check[0].values", "twice"),
        (('summary = "bad mode"', 'summary = "bad mode"\nsumary = "typo"'), "check[0].sumary", "not a known field"),
        (('function = "sglang.x.f"', 'function = "f"'), "check[0].target[0].function", "qualified name"),
        (('[docs]', '[doc]'), "docs", "is missing"),
        (('exception = "ValueError"', "exception = 3"), "raise_site.exception", "non-empty string"),
        (('summary = "bad mode"', 'since = "0.5.10"\nuntil = "0.5.9"\nsummary = "bad mode"'), "check[0].until",
         "not after since = 0.5.10"),
        (('summary = "bad mode"', 'since = "latest"\nsummary = "bad mode"'), "check[0].since", "does not match"),
    ],
)
def test_malformed_rule_names_file_and_field(tmp_path, change, field, problem):
    old, new = change
    assert old in VALID
    folder = write(tmp_path, VALID.replace(old, new))
    with pytest.raises(RuleFileError) as caught:
        load_rules([folder])
    assert caught.value.field_name == field
    assert problem in caught.value.problem
    assert str(caught.value).startswith(str(folder / "SGL101-team-rule.toml"))


def test_not_toml_and_duplicate_code(tmp_path):
    folder = write(tmp_path, "code = = 1")
    with pytest.raises(RuleFileError, match="is not valid TOML"):
        load_rules([folder])
    folder = write(tmp_path, VALID)
    write(tmp_path, VALID, "SGL101-again.toml")
    with pytest.raises(RuleFileError) as caught:
        load_rules([folder])
    assert caught.value.field_name == "code" and "already used" in caught.value.problem


def test_shipped_rules_folder_is_the_repository_catalog():
    names = sorted(p.name for p in (ROOT / "rules").rglob("SGL*.toml"))
    assert names == sorted(r.path.name for r in default_rules())


def test_readme_lists_every_curated_rule_and_the_index_every_derived_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in curated_rules():
        assert f"| {rule.code} | `{rule.name}` |" in readme
    index = (ROOT / "rules" / "derived" / "INDEX.md").read_text(encoding="utf-8")
    derived = [r for r in default_rules() if r.derived_key]
    assert len(derived) >= 300
    for rule in derived:
        assert f"| {rule.code} | `{rule.name}` |" in index


def test_project_passes_its_own_flake8_config():
    result = run("-m", "flake8", "src", "tests", "scripts", "bench", cwd=ROOT)  # setup.cfg's configuration
    assert (result.returncode, result.stdout) == (0, "")


NUMBER_WORDS = {15: "fifteen", 16: "sixteen", 17: "seventeen"}


def _readme_count(text: str) -> int:
    return int(text.replace(",", ""))


def test_readme_counts_are_the_catalogs():
    """The rule counts the README gives are those of the rule files: curated, derived from the
    newest release's raise sites, from older releases' only, and the guard table's rows (each
    row counts the rules of the newest release's sites with that form)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    derived = [tomllib.loads(p.read_text(encoding="utf-8")) for p in (ROOT / "rules" / "derived").glob("SGL*.toml")]
    newest = max((r["raise_site"]["sglang_version"] for r in derived), key=version_key)
    current = [r for r in derived if r["raise_site"]["sglang_version"] == newest]
    guards = [r for r in current if r["check"][0]["kind"] != "fails-when"]

    def kinds(*names: str) -> int:
        return sum(any(c["kind"] in names for c in r["check"]) for r in current)

    expected = {
        "allowed / forbidden values": kinds("allowed-values", "forbidden-values"),
        "`number-range`": kinds("number-range"),
        "`not-none`, `must-be-none`, `truthy`, `falsy`": kinds("not-none", "must-be-none", "truthy", "falsy"),
        "`instance-of`": kinds("instance-of"),
        "the same kinds": sum(r["raise_site"]["exception"] == "AssertionError" for r in guards),
        "the caller's argument": sum(any(part.startswith("from ") for part in r["derived"]["key"].split(":")[3:])
                                     for r in guards),
        "the check with `[[check.condition]]`": sum(any("condition" in c for c in r["check"]) for r in current),
        "`omitted = true`": sum(any(t.get("omitted") for c in r["check"] for t in c["target"]) for r in current),
        "`fails-when`": kinds("fails-when"),
    }
    table = {}
    for line in readme.split("| guard in sglang | rule | rules |")[1].split("\n\n")[0].splitlines()[2:]:
        rule_column, count = line.strip("|").split(" | ")[1:]
        (name,) = [name for name in expected if rule_column.startswith(name)]
        table[name] = _readme_count(count.strip(" |"))
    assert table == expected

    curated = len(list((ROOT / "rules").glob("SGL*.toml")))
    sentence = (f"Beside these {NUMBER_WORDS[curated]} curated rules, **{len(current):,} rules are derived from "
                f"sglang {newest}'s own source**")
    prose = " ".join(readme.split())
    assert sentence in prose
    assert f"and {len(derived) - len(current):,} more from raise sites only older releases have" in prose
    assert f"({expected['`fails-when`']:,} `fails-when` rules, below)" in prose
