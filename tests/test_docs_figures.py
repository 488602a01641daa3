"""The figures of the pages under docs/ (docs/rules.md aside: it is generated): each one that is
a fact of the repository (how many rule files, their size, rules per kind, releases, codes, the
constants and test sets the pages describe) is computed here from the repository and must be
written on its page as it is. A measurement (a time, a ratio, a count over sglang's own tree or
a real project) is not checked here: its page names the command that makes it."""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import marshal
import re
import sys
import tomllib

from conftest import ROOT
from sglang_lint.core.versions import version_key

RULES = ROOT / "rules"
DERIVED = RULES / "derived"
TESTS = ROOT / "tests"
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def word(count: int) -> str:
    """A small count as the pages write it in words."""
    return NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else f"{count:,}"


@functools.lru_cache(maxsize=None)
def page(name: str) -> str:
    """The page's text with every run of white space one space (a phrase may wrap)."""
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def says(name: str, *phrases: str) -> None:
    text = page(name)
    missing = [phrase for phrase in phrases if " ".join(phrase.split()) not in text]
    assert missing == [], f"docs/{name} does not say: {missing}"


def source(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def constant(path: str, name: str) -> str:
    """The literal a module binds ``name`` to at its top level, as written."""
    found = re.findall(rf"^{name} = (.+?)(?:  #.*)?$", source(path), re.M)
    assert len(found) == 1, (path, name, found)
    return found[0]


@functools.lru_cache(maxsize=None)
def rules() -> tuple:
    from sglang_lint.engine.ruletable import default_rules

    return default_rules()


@functools.lru_cache(maxsize=None)
def derived() -> tuple:
    return tuple(r for r in rules() if r.derived_key)


@functools.lru_cache(maxsize=None)
def newest() -> str:
    return max({r.raise_site.sglang_version for r in derived()}, key=version_key)


@functools.lru_cache(maxsize=None)
def current() -> tuple:
    """The derived rules of the newest release's raise sites."""
    release = newest()
    return tuple(r for r in derived() if r.raise_site.sglang_version == release and not r.raise_site.until)


def fails_when(rule) -> bool:
    return any(check.kind == "fails-when" for check in rule.checks)


@functools.lru_cache(maxsize=None)
def table(name: str) -> dict:
    with open(DERIVED / name, "rb") as stream:
        return tomllib.load(stream)


def n(count: int) -> str:
    return f"{count:,}"


# --- docs/catalog.md -----------------------------------------------------------------------

def test_the_catalog_s_files_and_their_size():
    files = [p for p in RULES.rglob("*") if p.is_file()]
    rule_files = list(RULES.rglob("SGL*.toml"))
    assert len(rule_files) == len(rules())
    megabytes = round(sum(p.stat().st_size for p in files) / 1e6)
    server_args = round((DERIVED / "server_args.toml").stat().st_size / 1e3)
    says("catalog.md", f"The catalog's files hold {megabytes} MB of text ({n(len(rule_files))} rule files; "
                       f"the server-argument table {server_args} KB)")


def test_the_index_s_counts_are_the_rule_files():
    head = (DERIVED / "INDEX.md").read_text(encoding="utf-8")
    match = re.search(r"^(\d+) raise sites of sglang (\S+) have a guard that tests a parameter of their function; "
                      r"(\d+) of them are rules here, (\d+) were skipped; (\d+) more rules", head, re.M)
    assert match, "INDEX.md's first sentence"
    sites, release, made, skipped, older = match.groups()
    assert release == newest() and int(made) == len(current())
    assert int(older) == len(derived()) - len(current())
    says("catalog.md", f"For sglang {release}, the top of `rules/derived/INDEX.md` says it: {n(int(sites))} raise "
                       f"sites have a guard that tests a parameter of their function, {n(int(made))} rules come from "
                       f"that release's sites ({n(sum(map(fails_when, current())))} of them fails-when rules, "
                       f"docs/reading.md), and the {n(int(skipped))} sites skipped are counted by reason.")


def test_every_release_the_catalog_merges():
    from sglang_lint.frontends.indexes import rule_index

    releases = rule_index().releases
    assert list(releases) == table("server_args.toml")["releases"] and releases[-1] == newest()
    says("catalog.md", f"every sglang release from {releases[0]} to {releases[-1]} ({len(releases)} releases, "
                       "every `.postN` included)")
    one_parameter = [r for r in current() if not fails_when(r)]
    later = [r for r in one_parameter if r.raise_site.since
             and version_key(r.raise_site.since) > version_key(releases[0])]
    assert {r.raise_site.since for r in current() if fails_when(r)} == {newest()}
    says("catalog.md", f"{n(len(later))} of the {n(len(one_parameter))} one-parameter rules of {newest()}'s sites "
                       f"start after {releases[0]}, and a fails-when rule starts at the release its path is derived "
                       f"from, {newest()}")


def test_the_curated_rules_younger_than_the_first_release():
    younger = {"SGL001": "0.5.13", "SGL003": "0.5.13", "SGL004": "0.5.11", "SGL010": "0.5.11", "SGL005": "0.5.17"}
    first = table("server_args.toml")["releases"][0]
    found = {r.code: r.raise_site.since for r in rules()
             if not r.derived_key and r.raise_site.since not in (None, first)}
    assert found == younger
    says("catalog.md", "(SGL001, SGL003: 0.5.13; SGL004, SGL010: 0.5.11; SGL005: 0.5.17)")


def test_the_rules_that_checked_otherwise_in_older_releases():
    ranged = [r for r in rules() if len(r.checks) > 1 and any(c.since or c.until for c in r.checks)]
    (backend,) = [r for r in rules() if r.raise_site.function == "StorageBackendFactory._create_builtin_backend"]
    sets = [c for c in backend.checks if c.kind == "allowed-values"]
    oldest = min((c.since for c in sets), key=version_key)
    says("catalog.md", f"({len(ranged)} rules, {sum(len(r.checks) for r in ranged)} checks: "
                       f"`StorageBackendFactory._create_builtin_backend` has {word(len(sets))} allowed sets "
                       f"between {oldest} and {newest()})")
    older = [r for r in derived() if r.raise_site.until]
    says("catalog.md", f"(`since`/`until`; {n(len(older))} such rules, written from the newest release")


def test_the_server_argument_table():
    server = table("server_args.toml")
    fields = server["fields"]
    says("catalog.md",
         f"(`rules/derived/server_args.toml`, {len(fields)} fields over all releases)",
         f"(`open_choices`: {sum(bool(f.get('open_choices')) for f in fields.values())} fields,",
         f"(`extensible`: {sum(bool(f.get('extensible')) for f in fields.values())} fields;")
    deprecated = server["deprecated_values"]
    attention = [name for name in deprecated if name.endswith("attention_backend")]
    assert {v["since"] for name in attention for v in deprecated[name].values()} == {"0.5.23"}
    assert {v["since"] for v in deprecated["tool_call_parser"].values()} == {"0.5.3.post1"}
    assert set(deprecated) == {*attention, "tool_call_parser"}
    says("catalog.md", f"`tool_call_parser` since 0.5.3.post1, {word(len(attention))} attention backend "
                       "fields since 0.5.23")


def _runs(value: list) -> list:
    return value if value and isinstance(value[0], list) else [value]


def _within(release: str, value: list) -> bool:
    """Is ``release`` in a [since, until) run ("" an open end) of ``value``?"""
    key = version_key(release)
    return any((not since or version_key(since) <= key) and (not until or key < version_key(until))
               for since, until in _runs(value))


def _flag_counts(parser: dict, releases: list) -> dict:
    ranges = parser["flag_ranges"]
    return {release: sum(flag not in ranges or _within(release, ranges[flag]) for flag in parser["flags"])
            for release in releases if _within(release, parser["range"])}


def test_the_subcommand_tables():
    serve = table("serve.toml")
    releases, parsers = serve["releases"], serve["parsers"]
    diffusion, generate = _flag_counts(parsers["diffusion"], releases), _flag_counts(parsers["generate"], releases)
    keywords = _flag_counts(parsers["diffusion_keywords"], releases)
    config = _flag_counts(parsers["diffusion_config_keywords"], releases)
    opened = [r for r in diffusion if _within(r, parsers["diffusion"]["open"])]
    says("catalog.md",
         f"({min(diffusion.values())} to {max(diffusion.values())} flags: {diffusion['0.5.5']} in 0.5.5, "
         f"{diffusion['0.5.23']} in 0.5.23) and of `sglang generate`'s ({min(generate.values())} to "
         f"{max(generate.values())})",
         f"the releases whose diffusion server takes any flag ({opened[0]}-{opened[-1]})",
         f"{min(keywords.values())} to {max(keywords.values())}: {keywords['0.5.5']} in 0.5.5, "
         f"{keywords['0.5.10.post1']} in 0.5.10.post1, {keywords['0.5.23']} in 0.5.23;",
         f"(`[parsers.diffusion_config_keywords]`: {config['0.5.5']} in 0.5.5, {config['0.5.23']} in 0.5.23;")


def test_the_held_out_sets():
    recall = sorted((TESTS / "recall" / "cases").glob("[0-9][0-9][0-9]_*.py"))
    says("catalog.md", f"`tests/recall/` holds {len(recall)} bad calls into sglang 0.5.23")
    registries = json.loads((TESTS / "registries" / "heldout.json").read_text(encoding="utf-8"))["cases"]
    names = {case["registry"].rsplit(".", 1)[-1] for case in registries}  # (one moved module between releases)
    releases = {case["release"] for case in registries}
    says("catalog.md", f"`tests/registries/` holds {len(registries)} calls into {word(len(names))} such "
                       f"registries over {word(len(releases))} releases",
         f"all {len(registries)} are caught, with no good twin flagged (`python tests/registries/heldout.py measure`")
    keywords = json.loads((TESTS / "diffusion_keywords" / "heldout.json").read_text(encoding="utf-8"))["cases"]
    releases = sorted({case["release"] for case in keywords}, key=version_key)
    says("catalog.md", f"`tests/diffusion_keywords/` holds {len(keywords)} such calls over {releases[0]}, "
                       f"{releases[1]} and {releases[2]}",
         f"all {len(keywords)} are caught, no good twin flagged (`python tests/diffusion_keywords/heldout.py measure`)")


def test_the_corpus_script_s_bugs_and_releases():
    import sglang_corpus

    mutations = sglang_corpus.MUTATIONS
    older = sglang_corpus.OTHER_RELEASES
    says("catalog.md", f"lints the own trees of {', '.join(older[:-1])} and {older[-1]} against their own release",
         f"({sum(m.replays for m in mutations)} of its {len(mutations)} bugs may be planted again so;",
         f"besides {word(len(sglang_corpus.RELEASE_MUTATIONS))} bugs that only some releases have")
    says("testing.md", f"then plants {len(mutations)} bugs at real call sites of sglang")
    packages = dict(spec.split("==") for spec in sglang_corpus.FOREIGN_PACKAGES)
    says("testing.md", f"lints the sources of torch {packages['torch']}, transformers {packages['transformers']} "
                       f"and diffusers {packages['diffusers']} and of what they depend on")
    says("speed.md", f"sglang's own {word(len(sglang_corpus.OWN_DEPRECATED_USES))} uses of a deprecated "
                     "flag (SGL011)")
    import test_foreign_code

    says("testing.md", f"beside {word(len(test_foreign_code.SGLANG_FINDINGS))} real sglang bugs of its own")


def test_the_codes():
    from flake8.defaults import VALID_CODE_PREFIX

    from sglang_lint.catalog.rules import CODE_PATTERN
    from sglang_lint.core.model import CRASH_CODE
    from sglang_lint.derive.sites import writing
    from sglang_lint.frontends import config, options

    first, last, more = writing.FIRST_DERIVED_CODE, writing.LAST_DERIVED_CODE, writing.MORE_DERIVED_CODES
    numbers = sorted(int(r.code[3:]) for r in derived())
    assert all(first <= c <= last or c in more for c in numbers)
    curated = sorted(r.code for r in rules() if not r.derived_key)
    says("catalog.md",
         f"hand-written entries (`{curated[0]}`–`{curated[-1]}`) |",
         f"| `SGL{first}`–`SGL{last}`, then `SGL{more[0]}`–`SGL{more[-1]}` | derived rules: "
         f"{n(last - first + 1 + len(more))} codes, of which the {n(len(numbers))} derived rule files take "
         f"`SGL{numbers[0]}` to `SGL{numbers[-1]}` |",
         f"| `SGL900`–`SGL999` | the engine's own: `{CRASH_CODE}`, a rule that crashed on a file")
    assert CRASH_CODE == "SGL900" and CODE_PATTERN.match(f"SGL{numbers[-1]}") and not CODE_PATTERN.match("SGL12345")
    says("catalog.md", "A code is `SGL` and three or four digits")
    assert VALID_CODE_PREFIX.match("SGL123") and not VALID_CODE_PREFIX.match(f"SGL{more[0]}")
    says("catalog.md", f"(`{VALID_CODE_PREFIX.pattern}`: `extend-ignore = SGL123` there leaves out `SGL123` and "
                       "`SGL1230`–`SGL1239` alike)")
    assert config.CODE_PREFIX.match("SGL1234") and options.CODE_PREFIX.match("SGL1234")


def test_the_names_users_import_targets_by():
    exports = table("exports.toml")["exports"]
    says("catalog.md", f"({n(len(exports))} targets have another name)")


def test_the_drift_lines_shown():
    shown = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8").split("```text\n", 1)[1].split("```")[0]
    lines = [line for line in shown.splitlines() if line.startswith(("changed:", "missing:", "new:"))]
    says("catalog.md", f"{word(len(lines))} of the drifts its tests plant")


# --- docs/reading.md -----------------------------------------------------------------------

def test_sglang_s_launch_entry_points():
    points = [p for p in table("launchers.toml")["entry_point"]
              if p["takes"] in ("flags", "command", "shell") and not p.get("fields")]
    named = 4  # popen_launch_server, popen_launch_pd_server, prepare_server_args, run_bench_serving
    says("reading.md", f"`run_bench_serving(..., other_server_args=[...])` and {len(points) - named} more,")


# --- docs/design.md ------------------------------------------------------------------------

def test_the_odd_files_and_the_size_limit():
    import test_hostile

    from sglang_lint.analysis.source import MAX_PARSE_BYTES

    nesting = test_hostile.CASES["deep_nesting"][0].count(b"[")
    huge = round(len(test_hostile.CASES["huge_without_calls"][0]) / 1e6)
    says("design.md", f"{n(nesting)} levels of nesting, a {huge} MB generated file (a file over "
                      f"{MAX_PARSE_BYTES // 1_000_000} MB that calls a catalog API is reported, not parsed)")


def test_the_pathological_launch_texts():
    module = ast.parse(source("tests/test_launch_text.py"))
    (texts,) = [node.value for node in module.body if isinstance(node, ast.Assign)
                and [target.id for target in node.targets if isinstance(target, ast.Name)] == ["PATHOLOGICAL"]]
    (test,) = [node for node in module.body
               if isinstance(node, ast.FunctionDef) and node.name == "test_a_large_file_takes_linear_time"]
    body = ast.unparse(test)
    small, large = (int(v) for v in re.search(r"_lines_run\(make, ([\d_]+)\), _lines_run\(make, ([\d_]+)\)",
                                              body).groups())
    apart = int(re.search(r"large <= (\d+) \*", body).group(1))
    whole = int(re.search(r"_scan\(make\(([\d_]+)\)\)", body).group(1))
    says("design.md", f"run in linear time on {len(texts.keys)} pathological texts",
         f"for {small // 1000} kB and {large // 1000} kB, at most {apart} x apart, and {whole // 1_000_000} MB must "
         "end (a slow C call runs no line of Python: how long 1 MB takes is timed by `python bench/pathological.py`)")


def test_the_robustness_and_fuzzing_figures():
    killed = inspect.getsource(__import__("test_robustness").test_fix_killed_midway_leaves_every_file_whole)
    files = int(re.search(r"for index in range\((\d+)\)", killed).group(1))
    assert f"len(states) == {files}" in killed
    says("design.md", f"(tested on {files} files)")
    fuzz = int(constant("tests/test_fuzz.py", "EXAMPLES").split('"')[-2])
    agreement = int(constant("tests/test_screen_agreement.py", "EXAMPLES").split('"')[-2])
    default = int(re.search(r"SGLANG_LINT_FUZZ_EXAMPLES=\"\$\{1:-(\d+)\}\"", source("scripts/fuzz")).group(1))
    says("design.md", f"CI runs {fuzz} examples per fuzz property and {agreement} per agreement property",
         f"`./scripts/fuzz [N]` runs N (default {n(default)}) with fresh seeds")
    says("design.md", f"on a file over {constant('tests/test_architecture.py', 'MAX_LINES')} lines, and on a folder of "
                      f"more than {constant('tests/test_architecture.py', 'MAX_MODULES')} modules.")


def test_where_a_project_s_release_is_read_from():
    from sglang_lint.catalog.release_dates import releases_around, upload_days

    most = constant("src/sglang_lint/launch/image_pins.py", "MAX_FILES")
    says("design.md", f"At most {most} files a folder are read")
    days = upload_days()
    lower, upper = releases_around("2025-12-15", days)
    says("design.md", f"`nightly-dev-20251215-...` is judged by {lower} (uploaded {days[lower]}) and {upper} "
                      f"({days[upper]})")


def test_the_kept_verdicts():
    from sglang_lint.core import verdict_log

    assert verdict_log.MOST_BYTES % (1 << 20) == 0
    says("design.md", f"fixed {verdict_log.RECORD}-byte records",
         f"past {verdict_log.MOST_BYTES >> 20} MB the log is started again",
         f"(the {word(verdict_log.KEEP_LOGS)} newest are kept)")


# --- docs/editors.md, docs/startup.md ------------------------------------------------------

def test_the_language_server_s_pause():
    debounce = re.search(r"self\.debounce = ([\d.]+)", source("src/sglang_lint/frontends/server.py")).group(1)
    says("editors.md", f"while you type (after a {debounce} s pause;")


def test_the_start_up_checks_limits():
    from sglang_lint.checks.fails_when import language
    from sglang_lint.derive.reading import symbolic

    says("startup.md", f"at most {language.SPLIT_DEPTH} tests on one line of cases and {language.SPLIT_CASES} "
                       "cases a check",
         f"the size limits ({n(symbolic.MAX_VALUE)} distinct nodes a value, {n(symbolic.MAX_CONDITION)} a condition)")


def test_the_named_values_are_ten_hex_digits_of_their_sha1():
    text = (DERIVED / "startup.toml").read_text(encoding="utf-8")
    values = re.findall(r'^(_v[0-9a-f]*) = "(.*)"$', text, re.M)
    assert values and {len(name) for name, _ in values} == {2 + 10}
    plain = [(name, value) for name, value in values if "\\" not in value]  # (TOML's escapes left aside)
    assert plain and all(name[2:] == hashlib.sha1(value.encode()).hexdigest()[:10] for name, value in plain)
    says("startup.md", "`_v` and the first ten hex digits of the SHA-1 of its text")


def test_the_platforms_table():
    from sglang_lint.catalog.platforms import default_table

    with open(default_table(), "rb") as stream:
        platforms = tomllib.load(stream)["platform"]
    assert "hip" in platforms["rocm"]["aliases"]
    says("startup.md", f"lists the platforms ({', '.join(f'`{name}`' for name in platforms)}, with aliases such as "
                       "`hip`)")


# --- docs/speed.md -------------------------------------------------------------------------

def test_the_index_and_the_parsed_catalog():
    from sglang_lint.engine.ruletable import KEEP_RULE_SETS
    from sglang_lint.frontends.indexes import rule_index

    names = round(len(marshal.dumps(rule_index().names)) / 1e3)
    says("speed.md", f"(read on every start, about {names} KB)",
         f"the newest {word(KEEP_RULE_SETS)} kept",
         f"instead of about 1.4 s of parsing its {n(len(rules()))} rules")
    sample = re.search(r"\.sample\(tree, min\((\d+), len\(tree\)\)\)", source("tests/test_index.py")).group(1)
    says("speed.md", f"(tested on every fixture, the examples and {sample} files of sglang's tree)")


def test_the_start_up_cost_figures():
    import test_startup_cost

    from sglang_lint.checks.fails_when import language

    cases = test_startup_cost.test_a_launch_that_fails_no_check_is_settled_without_cases.pytestmark[0].args[1]
    _, _, conditions, most = cases[0]  # the benchmark's file, its first launch
    says("speed.md", f"at most {conditions} conditions are evaluated, in at most {n(most)} node evaluations",
         f"one of {word(len(language.WORLDS))} worlds")
    launch = [r for r in rules() if any(c.kind == "server-args" for c in r.checks)]
    says("speed.md", f"(the {len(launch)} launch rules and their tables read")


def test_the_benchmark_s_own_settings():
    bench = source("bench/bench.py")
    assert "one_file_rows(plain, plugin, tree, max(args.runs, 21))" in bench
    assert "project_rows(plugin, base, max(args.runs, 7))" in bench
    assert "max(args.runs, 5), jobs, args.slime_git)" in bench
    says("speed.md", "(21 runs at least)", "the one-file commands 21 runs each, the project 7",
         "slime's pair of 5")
    sys.path.insert(0, str(ROOT / "bench"))
    import lsp_latency

    lines = inspect.signature(lsp_latency.pick_document).parameters["lines"].default
    changes = inspect.signature(lsp_latency.lsp_rows).parameters["changes"].default
    wait = re.search(r"time\.sleep\((\d+)\)", inspect.getsource(lsp_latency.open_latencies)).group(1)
    says("speed.md", f"a {n(lines)}-line file of sglang's tree is opened, then changed {changes} times",
         f"timed in a new server each run, {wait} s after it was initialized")


def test_the_screen_tests_forms():
    import test_argv_screen_agreement
    import test_chain_sync_screen
    import test_fails_when_screen
    import test_screen_agreement as agreement

    mapping = agreement.test_mapping_forms_agree.pytestmark[0].args[1]
    every = inspect.getsource(agreement)
    assert "[*CURATED, *CHECKED[::5]]" in every and "[*CURATED, *CHECKED[::10]]" in every
    says("speed.md",
         f"the catalog subclassed in {word(len(agreement.CONFIG_FORMS))} forms",
         f"{len(agreement._guard_forms(str, '1', '2'))} guard forms and {len(mapping)} mapping forms of every "
         "curated check and every fifth derived one",
         f"{len(agreement.FLOW_FORMS)} flow forms of every curated check and every tenth derived one",
         f"{len(test_fails_when_screen.FORMS)} forms, and {len(test_fails_when_screen.RECEIVER_FORMS)} receiver forms",
         f"launch flags in {len(test_argv_screen_agreement.FORMS)} forms",
         f"a capture or replay chain takes: {len(test_chain_sync_screen.CASES)} programs")
