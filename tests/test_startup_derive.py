"""The start-up derivation (derive/startup*.py) on a stand-in ServerArgs (tests/startup_tree):
which checks become rules, with which condition and defaults, and why the others do not; and
the start-up check (checks/server_args/startup.py) over launches of it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sglang_lint.checks.server_args import startup, startup_table
from sglang_lint.derive.startup.rules import unshared, value_name, written, written_with
from sglang_lint.derive.startup.table import startup_text, tree_startup

TREE = Path(__file__).resolve().parent / "startup_tree"


@pytest.fixture(scope="module")
def derived():
    return tree_startup(TREE)


def _rule(rules, message):
    found = [r for r in rules if r.message == message]
    assert len(found) == 1, [r.message for r in rules]
    return found[0]


def test_each_certain_check_is_a_rule_over_the_launch_s_fields(derived):
    rules, skipped, sites = derived
    chain = dict(_rule(rules, "the b2 MoE backend needs page_size 1").values)
    ninth = next(name for name, text in chain.items() if text.startswith("'b9' if tp_size > 9"))
    assert ninth == value_name(chain[ninth])
    assert sites == 20
    assert {(r.function, r.condition) for r in rules} == {
        ("_handle_parallelism", "enable_dp_attention and tp_size % dp_size != 0"),
        ("_handle_environment", "env_bool(SGLANG_ENABLE_WIDE_MODE) and page_size != 1"),
        ("check_server_args", "not schedule_conservativeness >= 0"),
        # served_model_name defaults to the model path (a rewrite the later check sees)
        ("check_server_args", "':' in (model_path if served_model_name is None else served_model_name)"),
        # DP attention disables the radix cache before the check reads it
        ("check_server_args", "enable_mixed_chunk and (not (True if enable_dp_attention else disable_radix_cache))"),
        # a default the GPU decides is unknown, not its literal (the GPU's memory, a query tested
        # nowhere else: the values it may take)
        ("check_server_args", "((8192 if unknown else 2048) if chunked_prefill_size is None else chunked_prefill_size)"
                              " % page_size != 0"),
        # a value each step of a chain tests before it rewrites it: read by name (below)
        ("_handle_moe_backend",
         f"('b10' if tp_size > 10 and {ninth} != 'b10' else {ninth}) == 'b2' and page_size != 1"),
        # a check a helper runs on a field's value (its try ends only by raising)
        ("validate_buckets", f"prompt_buckets[0] == 'custom' and prompt_buckets and "
                             f"(len(set({value_name(BUCKETS)})) != len({value_name(BUCKETS)}))"),
        # a loop that only tests its items: some item fails
        ("check_server_args",
         "mm_limits and any((modality not in {'image', 'video'} for modality in mm_limits.keys()))"),
        # the checkpoint's quantization is unknown, but one of the two its test names
        ("_handle_model", "env_bool(SGLANG_CUTLASS_MOE) and ('modelopt_fp4' if unknown else 'modelopt_fp8' if unknown "
                          "else quantization) != 'fp8'"),
        # the platform, asked twice, is one query: whichever it is, the launch fails
        ("_handle_platform", "attention_backend == 'fa3' and (('hip' if unknown_is_hip and kv_layout is None else "
                             "kv_layout) == 'hip' or not unknown_is_hip)"),
        ("_handle_speculative", f"({TOPK} > 1 and page_size > 1) and speculative_algorithm is not None"),
        ("_handle_speculative", f"({STEPS} is not None and {STEPS} > 8) and speculative_algorithm is not None"),
        # None ordered against a number: a TypeError, on the first comparison of each value
        ("_handle_moe_backend", "tp_size is None"),
        ("check_server_args", "schedule_conservativeness is None"),
        ("_handle_speculative", f"speculative_algorithm is not None and {TOPK} is None"),
        ("_handle_speculative", f"speculative_algorithm is not None and {TOPK} > 1 and (page_size is None)"),
    }
    # the check that reads the model's architecture can never be certain; nor one whose value
    # an enclosing test named, once a call was handed the object it was read from
    assert skipped == ["depends on the model's config", "depends on the model's config",
                       "depends on the GPU or platform",  # (ROCm's GPU count: the platform's alone)
                       # "must be numeric": the raise of a handler of what the list's making raised
                       "depends on the run's own state (a loop, a try, a value computed at run time)",
                       "inside a loop"]  # (a loop that writes what it tests)
    assert dict(_rule(rules, "{...} bucket values must not repeat").values) == {value_name(BUCKETS): BUCKETS}


TOPK = "(1 if speculative_num_steps is None and speculative_eagle_topk is None else speculative_eagle_topk)"
STEPS = value_name("3 if speculative_num_steps is None and speculative_eagle_topk is None else speculative_num_steps")
BUCKETS = "list((float(x) for x in prompt_buckets[1:]))"  # a list comprehension, as the evaluator reads it


@pytest.mark.parametrize("buckets, fails", [
    (["custom", "100", "1000", "1000"], True),
    (["custom", "100", "1000", "1e3"], True),  # as floats
    (["custom", "100", "1000"], False),
    (["custom", "100", "1k", "1k"], False),  # not a number: the other check's (no finding here)
    (["default"], False),
])
def test_a_list_flag_s_items_are_checked_as_the_helper_reads_them(derived, buckets, fails):
    check = _check(derived[0], "{...} bucket values must not repeat")
    assert startup.fails(check, _launch(True, {}, prompt_buckets=buckets)) is fails


@pytest.mark.parametrize("limits, fails", [
    ({"image": 1, "images": 2}, True),
    ({"image": 1, "video": 2}, False),
    ({}, False),
])
def test_a_loop_that_only_tests_its_items_fails_where_one_item_does(derived, limits, fails):
    check = _check(derived[0], "unknown modality {...}")
    assert startup.fails(check, _launch(True, {}, mm_limits=limits)) is fails


def test_a_method_is_written_with_its_call_never_named_alone():
    """``x.startswith("lora")`` with ``x`` a long shared value: the value is named, the method
    stays with its call (a named method would be a method of a value split by cases)."""
    backend = ast.parse("'b1' if tp > 1 else 'b2' if tp > 2 else 'b3' if tp > 3 else backend", mode="eval").body
    condition = ast.BoolOp(ast.And(), [
        ast.Call(ast.Attribute(backend, "startswith", ast.Load()), [ast.Constant("lora")], []),
        ast.Compare(backend, [ast.NotEq()], [ast.Constant("x")]),
    ])
    text, values = written(condition)
    name = value_name(ast.unparse(backend))
    assert text == f"{name}.startswith('lora') and {name} != 'x'" and [n for n, _ in values] == [name]


def test_a_placeholder_never_changes_how_the_condition_is_written():
    """A part the condition reads once and the message shows too stays in the condition's
    text (named for the message only): named because of the message, it would split the
    condition into other values, read by other cases, and each launch would evaluate more."""
    backend = ast.parse("'b1' if tp > 1 else 'b2' if tp > 2 else backend", mode="eval").body
    condition = ast.Compare(backend, [ast.NotIn()], [ast.Tuple([ast.Constant("x"), ast.Constant("y")], ast.Load())])
    shown = [ast.Call(ast.Name("repr", ast.Load()), [backend], [])]
    name = value_name(ast.unparse(backend))
    text, values, texts = written_with(condition, shown)
    assert written(condition) == (f"({ast.unparse(backend)}) not in ('x', 'y')", ())
    assert text == written(condition)[0]
    assert texts == [f"repr({name})"] and values == ((name, ast.unparse(backend)),)
    # a part the condition itself reads twice is named there, and the message reads that name
    twice = ast.BoolOp(ast.And(), [condition, ast.Compare(backend, [ast.NotEq()], [ast.Constant("z")])])
    text, values, texts = written_with(twice, shown)
    assert (text, values) == written(twice) == (f"{name} not in ('x', 'y') and {name} != 'z'",
                                                ((name, ast.unparse(backend)),))
    assert texts == [f"repr({name})"]


def test_a_rule_keeps_the_literal_defaults_of_the_fields_it_reads(derived):
    rules, _, _ = derived
    assert _rule(rules, "tp_size must be divisible by dp_size with DP attention").defaults == (
        ("dp_size", 1), ("enable_dp_attention", False), ("tp_size", 1))
    assert _rule(rules, "served_model_name cannot contain a colon").defaults == (("served_model_name", None),)


def test_the_table_lists_each_rule_with_its_releases_and_the_group_counts(derived):
    text = startup_text({"0.5.1": derived, "0.5.2": derived})
    assert 'releases = ["0.5.1", "0.5.2"]' in text
    assert text.count("[[check]]") == 17
    assert 'fails_when = "not schedule_conservativeness >= 0"' in text
    assert 'releases = [["", ""]]' in text  # in every release of the table
    first = "'b1' if tp_size > 1 and moe_backend != 'b1' else moe_backend"
    assert "\n[values]\n" in text and f'\n{value_name(first)} = "{first}"\n' in text  # once, for every check
    assert 'sites = 40\nrules = 32\nskipped = { "depends on the model\'s config" = 4, "depends on the GPU or ' \
           'platform" = 2, "depends on the run\'s own state (a loop, a try, a value computed at run time)" = 2, ' \
           '"inside a loop" = 2 }' in text


def _check(rules, message):
    return _as_check(_rule(rules, message))


def _as_check(rule):
    return startup.StartupCheck(f"{rule.module}: {rule.function}", rule.exception, rule.message, rule.condition,
                                (("", ""),), dict(rule.defaults), rule.values)


def _launch(complete=True, environ=None, **settings):
    return startup.Launch({k: startup.Setting(v, None, f"{k}={v!r}") for k, v in settings.items()}, complete,
                          environ or {})


@pytest.mark.parametrize("message, settings, complete, environ, fails", [
    # a combination: both set
    ("tp_size must be divisible by dp_size with DP attention",
     {"enable_dp_attention": True, "tp_size": 4, "dp_size": 3}, True, {}, True),
    ("tp_size must be divisible by dp_size with DP attention",
     {"enable_dp_attention": True, "tp_size": 4, "dp_size": 2}, True, {}, False),
    # dp_size left out: its default (1) only where the launch certainly sets nothing else
    ("tp_size must be divisible by dp_size with DP attention",
     {"enable_dp_attention": True, "tp_size": 4}, True, {}, False),
    ("tp_size must be divisible by dp_size with DP attention",
     {"enable_dp_attention": True, "tp_size": 4, "dp_size": startup.UNKNOWN}, True, {}, False),
    # a range
    ("schedule_conservativeness must be non-negative", {"schedule_conservativeness": -0.5}, True, {}, True),
    # a string form, through the rewrite: served_model_name from the model path
    ("served_model_name cannot contain a colon", {"model_path": "org/m:v1"}, True, {}, True),
    ("served_model_name cannot contain a colon", {"model_path": "org/m:v1"}, False, {}, False),
    ("served_model_name cannot contain a colon", {"model_path": "org/m:v1", "served_model_name": "m"}, False, {},
     False),
    # an environment variable: only where the launch sets it
    ("wide mode needs page_size 1", {"page_size": 16}, True, {"SGLANG_ENABLE_WIDE_MODE": "1"}, True),
    ("wide mode needs page_size 1", {"page_size": 16}, True, {"SGLANG_ENABLE_WIDE_MODE": "false"}, False),
    ("wide mode needs page_size 1", {"page_size": 16}, True, {}, False),
    # a value the GPU decides is unknown (8192 or 2048); one the launch sets is not; where
    # either default fails, so does the launch
    ("chunked_prefill_size must be divisible by page_size", {"page_size": 4096}, True, {}, False),
    ("chunked_prefill_size must be divisible by page_size", {"page_size": 3}, True, {}, True),
    ("chunked_prefill_size must be divisible by page_size", {"page_size": 3, "chunked_prefill_size": 4096}, True,
     {}, True),
    # the rewrite makes the later check pass
    ("mixed chunk needs the radix cache disabled", {"enable_mixed_chunk": True}, True, {}, True),
    ("mixed chunk needs the radix cache disabled", {"enable_mixed_chunk": True, "enable_dp_attention": True}, True,
     {}, False),
    # a chain of rewrites read through its named values: tp 3 leaves b2, tp 5 b5
    ("the b2 MoE backend needs page_size 1", {"tp_size": 3, "page_size": 16}, True, {}, True),
    ("the b2 MoE backend needs page_size 1", {"tp_size": 3, "page_size": 1}, True, {}, False),
    ("the b2 MoE backend needs page_size 1", {"tp_size": 5, "page_size": 16}, True, {}, False),
    ("the b2 MoE backend needs page_size 1", {"tp_size": startup.UNKNOWN, "page_size": 16}, True, {}, False),
    ("the b2 MoE backend needs page_size 1", {"tp_size": 3, "page_size": 16, "moe_backend": "b7"}, True, {}, True),
    # whichever quantization the checkpoint brings, awq is not fp8; fp8 may be overridden
    ("cutlass MoE needs fp8 quantization", {"quantization": "awq"}, True, {"SGLANG_CUTLASS_MOE": "1"}, True),
    ("cutlass MoE needs fp8 quantization", {"quantization": "fp8"}, True, {"SGLANG_CUTLASS_MOE": "1"}, False),
    ("cutlass MoE needs fp8 quantization", {"quantization": "awq"}, True, {}, False),
    # the platform is not known, but fa3 fails on each: on ROCm through the layout it writes
    ("fa3 needs a CUDA machine and the default KV layout", {"attention_backend": "fa3"}, True, {}, True),
    ("fa3 needs a CUDA machine and the default KV layout", {"attention_backend": "fa3", "kv_layout": "nhd"}, True, {},
     False),
    ("fa3 needs a CUDA machine and the default KV layout", {"attention_backend": "fa3"}, False, {}, False),
])
def test_a_check_fails_a_launch_only_where_it_certainly_raises(derived, message, settings, complete, environ, fails):
    check = _check(derived[0], message)
    assert startup.fails(check, _launch(complete, environ, **settings)) is fails


@pytest.mark.parametrize("settings, complete, fails", [
    # the companion left out: sglang fills neither, and orders None against 1
    ({"speculative_algorithm": "EAGLE", "speculative_num_steps": 3}, True, True),
    ({"speculative_algorithm": "EAGLE", "speculative_num_steps": 3}, False, False),  # may set topk elsewhere
    ({"speculative_algorithm": "EAGLE"}, True, False),  # both left out: sglang fills both
    ({"speculative_algorithm": "EAGLE", "speculative_num_steps": 3, "speculative_eagle_topk": 2}, True, False),
    ({"speculative_num_steps": 3}, True, False),  # the comparison never runs
])
def test_none_ordered_against_a_number_fails_where_the_companion_is_left_out(derived, settings, complete, fails):
    rule = next(r for r in derived[0]
                if r.function == "_handle_speculative" and r.condition.endswith(f"{TOPK} is None"))
    assert (rule.exception, rule.message) == (
        "TypeError", "'>' not supported between instances of 'NoneType' and 'int'")
    assert startup.fails(_as_check(rule), _launch(complete, {}, **settings)) is fails


def test_a_finding_names_the_arguments_the_release_and_sglang_s_message(derived):
    rules, _, _ = derived
    checks = tuple(_as_check(r) for r in rules)
    table = startup.StartupTable(checks, ("0.5.9",))
    launch = _launch(True, {}, model_path="org/m", enable_dp_attention=True, tp_size=4, dp_size=3)
    found = [message for _, message in startup.findings(table, launch, ("0.5.9",), "0.5.9")]
    assert found == [
        "enable_dp_attention=True with tp_size=4 and dp_size=3: sglang 0.5.9 raises ValueError at start-up "
        '(srt/server_args.py: _handle_parallelism): "tp_size must be divisible by dp_size with DP attention"',
    ]
    launch = _launch(True, {}, model_path="org/m", speculative_algorithm="EAGLE", speculative_num_steps=3)
    assert [message for _, message in startup.findings(table, launch, ("0.5.9",), "0.5.9")] == [
        "speculative_algorithm='EAGLE' with speculative_num_steps=3 (speculative_eagle_topk=None by default): "
        "sglang 0.5.9 raises TypeError at start-up "
        "(srt/server_args.py: _handle_speculative): \"'>' not supported between instances of 'NoneType' and 'int'\""]
    # a dummy model skips the checks
    dummy = _launch(True, {}, model_path="dummy", enable_dp_attention=True, tp_size=4, dp_size=3)
    assert list(startup.findings(table, dummy, ("0.5.9",), "0.5.9")) == []


@pytest.fixture(scope="module")
def shipped_startup_history():
    """rules/derived/startup.toml read back, each release's rules (reading it checks that it
    reads back as itself, to the byte: some 15 seconds, made once)."""
    from sglang_lint.derive.startup.table import startup_history

    return startup_history(Path(__file__).resolve().parent.parent / "rules")


@pytest.mark.corpus
def test_the_shipped_table_is_what_the_deriver_makes_of_a_release(tmp_path, shipped_startup_history):
    """rules/derived/startup.toml holds, for a release, exactly the rules its tree derives now
    (those that need the platform with the probes they read); and the check reads the same
    table, leaving those out where no machine is declared."""
    from sglang_lint.checks.server_args.startup import load_startup
    from sglang_lint.derive.source.wheels import fetch_tree
    from sglang_lint.derive.startup.table import curated_sites

    root = Path(__file__).resolve().parent.parent / "rules"
    shipped = shipped_startup_history["0.5.9"][0]
    rules, _, _ = tree_startup(fetch_tree("0.5.9"))
    covered = curated_sites(root)
    derived = {(r.module, r.function, r.message, r.condition, r.platform) for r in rules if r.message not in covered}
    assert derived == {(r.module, r.function, r.message, r.condition, r.platform) for r in shipped}
    assert len(derived) >= 60 and sum(1 for rule in derived if rule[-1]) >= 5
    read = {(c.site, c.message, c.fails_when) for c in load_startup(root / "derived" / "startup.toml").checks
            if c.in_release("0.5.9")}
    assert read == {(f"{m}: {f}", message, when) for m, f, message, when, platform in derived if not platform}


# --- the table over releases: read back, and a newer release merged into it ----------------
def _table_of(tmp_path: Path, per_release: dict) -> Path:
    from sglang_lint.derive.startup.table import _write

    (tmp_path / "derived").mkdir(parents=True, exist_ok=True)
    return _write(tmp_path, per_release)


def test_the_table_reads_back_as_the_releases_it_was_written_from(tmp_path, derived):
    from sglang_lint.derive.startup.table import startup_history

    rules, skipped, sites = derived
    per_release = {"9.9.8": (rules[:-1], skipped + ["depends on the model's config"], sites),
                   "9.9.9": (rules, skipped, sites)}
    path = _table_of(tmp_path, per_release)
    back = startup_history(tmp_path)
    assert {r: (set(back[r][0]), sorted(back[r][1]), back[r][2]) for r in back} == \
        {r: (set(rs), sorted(why), n) for r, (rs, why, n) in per_release.items()}
    assert startup_text(back) == path.read_text(encoding="utf-8")


def test_a_table_edited_by_hand_is_refused_before_a_merge(tmp_path, derived):
    from sglang_lint.derive.startup.table import startup_history

    path = _table_of(tmp_path, {"9.9.9": derived})
    sites = derived[2]
    path.write_text(path.read_text(encoding="utf-8").replace(f"sites = {sites}", f"sites = {sites + 1}", 1),
                    encoding="utf-8")
    with pytest.raises(ValueError, match="is not what the rules of the releases it records write"):
        startup_history(tmp_path)
    path.write_text("releases = [", encoding="utf-8")
    with pytest.raises(ValueError, match="does not read back as its releases"):
        startup_history(tmp_path)


def test_a_newer_release_merged_into_the_table_is_the_table_of_all_of_them(tmp_path, derived):
    """merge_startup(rules, X, tree) over the table of the older releases writes what the
    table of every release is (the older releases as the table records them)."""
    from sglang_lint.derive.startup.table import merge_startup

    rules, skipped, sites = derived
    older = {"9.9.7": (rules[1:], skipped, sites), "9.9.8": (rules[:-1], skipped, sites)}
    whole = _table_of(tmp_path / "whole", {**older, "9.9.9": derived}).read_text(encoding="utf-8")
    _table_of(tmp_path / "merged", older)
    merged = merge_startup(tmp_path / "merged", "9.9.9", TREE)
    assert merged.read_text(encoding="utf-8") == whole
    alone = merge_startup(tmp_path / "merged", "9.9.9", TREE, alone=True)
    assert alone.read_text(encoding="utf-8") == _table_of(tmp_path / "one", {"9.9.9": derived}).read_text(
        encoding="utf-8")


@pytest.mark.corpus
def test_the_shipped_table_reads_back_as_itself(shipped_startup_history):
    back = shipped_startup_history
    assert len(back) >= 42 and sum(len(rules) for rules, _, _ in back.values()) >= 1000


def test_every_shipped_condition_is_in_the_fails_when_grammar():
    """A condition the check could not parse would never fire (and say nothing of why)."""
    from sglang_lint.checks.server_args.startup import load_startup

    table = load_startup(Path(__file__).resolve().parent.parent / "rules" / "derived" / "startup.toml")
    assert [c.message for c in table.checks if c.parsed.expression is None] == []


def test_a_value_read_in_several_places_is_written_once_and_means_what_the_tree_means():
    """A chain of steps each testing the value the step before wrote doubles when written out
    in full; named, it grows by a line a step, and reads as the full tree does."""
    value = ast.Name("backend", ast.Load())
    for k in range(1, 13):
        test = ast.BoolOp(ast.And(), [ast.Compare(ast.Name("tp", ast.Load()), [ast.Gt()], [ast.Constant(k)]),
                                      ast.Compare(value, [ast.NotEq()], [ast.Constant(f"b{k}")])])
        value = ast.IfExp(test, ast.Constant(f"b{k}"), value)
    condition = ast.Compare(value, [ast.Eq()], [ast.Constant("b2")])
    text, values = written(condition)
    first = "'b1' if tp > 1 and backend != 'b1' else backend"
    second = f"'b2' if tp > 2 and {value_name(first)} != 'b2' else {value_name(first)}"
    eleventh = next(name for name, part in values if part.startswith("'b11'"))
    assert text == f"('b12' if tp > 12 and {eleventh} != 'b12' else {eleventh}) == 'b2'"
    assert len(values) == 11 and dict(values)[value_name(first)] == first
    assert dict(values)[value_name(second)] == second  # a value reads the one before by its name
    assert [name for name, _ in values] == sorted(name for name, _ in values)
    check = startup.StartupCheck("m: f", "ValueError", "m", text, (("", ""),), {}, values)
    small = ast.unparse(ast.fix_missing_locations(unshared(condition)))  # (some 40,000 nodes)
    for tp, backend, fails in ((3, "x", True), (1, "b2", True), (2, "x", False), (13, "x", False)):
        launch = _launch(True, {}, tp=tp, backend=backend)
        assert startup.fails(check, launch) is fails
        assert eval(small, {"tp": tp, "backend": backend}) is fails  # noqa: S307 (the test's own text)


def test_a_named_value_has_one_value_wherever_the_condition_reads_it():
    """A named part with an unknown test (a default the GPU picks) is one value: read twice,
    both places see the same case; one that reads itself is unknown, never a loop."""
    values = (("_v1", "(8192 if unknown else 2048) if chunked is None else chunked"),)
    check = startup.StartupCheck("m: f", "ValueError", "m", "_v1 % page != 0 and _v1 > page", (("", ""),),
                                 {"chunked": None}, values)
    assert startup.fails(check, _launch(True, {}, page=3)) is True  # 8192 % 3 and 2048 % 3 both fail
    assert startup.fails(check, _launch(True, {}, page=4096)) is False  # 2048 is not above it
    assert startup.fails(check, _launch(True, {}, page=64)) is False
    assert check.parsed.names == frozenset({"chunked", "page", "unknown"})
    looping = startup.StartupCheck("m: f", "ValueError", "m", "_v1 > page", (("", ""),), {}, (("_v1", "_v1 + 1"),))
    assert startup.fails(looping, _launch(True, {}, page=3)) is False


def test_a_named_value_two_checks_read_is_worked_out_once_per_launch_and_inputs():
    """Checks of one launch that read the same value share its worth, keyed by the inputs it
    reads: a check whose defaults differ works it out again."""
    values = (("_v1", "x * 2 if flag else x"),)
    low = startup.StartupCheck("m: f", "ValueError", "a", "_v1 > 10", (("", ""),), {"x": 3}, values)
    high = startup.StartupCheck("m: g", "ValueError", "b", "_v1 > 10", (("", ""),), {"x": 6}, values)
    launch = _launch(True, {}, flag=True)
    assert startup.fails(low, launch) is False  # 3 * 2
    assert len(launch.worth) == 1
    assert startup.fails(low, launch) is False
    assert len(launch.worth) == 1  # read again: no new worth
    assert startup.fails(high, launch) is True  # 6 * 2: not the first check's 6
    assert len(launch.worth) == 2


def test_a_verdict_is_kept_by_the_condition_and_the_inputs_it_reads():
    """Launches that give a condition the same inputs share its verdict (whichever check, and
    whether the launch or a default gives them); other inputs are judged again."""
    startup._VERDICTS.clear()
    check = startup.StartupCheck("m: f", "ValueError", "m", "tp % dp != 0", (("", ""),), {"dp": 1})
    other = startup.StartupCheck("m: g", "ValueError", "m", "tp % dp != 0", (("", ""),), {"dp": 3})
    assert startup.fails(check, _launch(True, {}, tp=4, dp=3)) is True
    assert startup.fails(check, _launch(True, {}, tp=4, dp=3, model_path="x")) is True  # (not read)
    assert len(startup._VERDICTS) == 1
    assert startup.fails(check, _launch(True, {}, tp=4)) is False  # dp 1 by default
    assert len(startup._VERDICTS) == 2
    # dp 3 by default: the inputs of the first launch, whose verdict it is
    assert startup.fails(other, _launch(True, {}, tp=4)) is True
    assert len(startup._VERDICTS) == 2


def test_a_table_whose_values_are_not_expressions_is_refused_naming_the_row(tmp_path):
    from sglang_lint.checks.server_args.startup import load_startup

    path = tmp_path / "startup.toml"
    row = '[[check]]\nsite = "m: f"\nexception = "E"\nmessage = "m"\nfails_when = "_v0123456789 > 1"\n' \
          'releases = [["", ""]]\n'
    path.write_text("values = 3\n" + row, encoding="utf-8")  # (a top-level key: before the first table)
    with pytest.raises(ValueError, match=r"startup.toml: values: a table of names and expressions"):
        load_startup(path)
    path.write_text(row + '[values]\n_v9876543210 = "tp * 2"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"startup.toml: check #1: fails_when reads _v0123456789, which \[values\] "
                                         r"does not hold"):
        load_startup(path)
    path.write_text(row.replace("_v0123456789", "tp") + "needs = [3]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"startup.toml: check #1: needs: a list of field names"):
        load_startup(path)


def test_a_condition_read_in_two_places_is_written_with_each_place_s_parentheses():
    """ast.unparse keeps one precedence per node: a shared test (``a if b else c``, also the
    ``else`` of an inner conditional) must still be parenthesised where it is a test."""
    shared = ast.parse("a if b else c", mode="eval").body
    condition = ast.IfExp(shared, ast.IfExp(ast.Name("y", ast.Load()), ast.Name("z", ast.Load()), shared),
                          ast.Name("w", ast.Load()))
    text = ast.unparse(ast.fix_missing_locations(unshared(condition)))
    assert text == "(z if y else a if b else c) if (a if b else c) else w"
    assert ast.dump(ast.parse(text, mode="eval").body) == ast.dump(condition)


# --- the 0.5.20 layout: hooks that read views and declare (tests/resolution_tree) ---------
RESOLUTION_TREE = Path(__file__).resolve().parent / "resolution_tree"


@pytest.fixture(scope="module")
def resolved():
    return tree_startup(RESOLUTION_TREE)


def test_the_resolution_hooks_leave_the_fields_they_cannot_write_known(resolved):
    """A platform method no sglang class gives a body, a plugin's callback run on a recorder,
    an environment variable sglang sets for some models only,
    a read-only view handed to a plugin's function, backends renamed in a loop over names,
    and a declaration of computed ``watermark_*`` keys: each changes only what it may."""
    rules, skipped, sites = resolved
    assert sites == 8  # (a TypeError on the assert's line)
    assert [r.condition for r in rules if r.exception == "TypeError"] == [  # (None ordered against 0)
        "(schedule_conservativeness * 0.3 if enable_dp_attention and torch.cuda.device_count() > 1 "
        "else schedule_conservativeness) is None",
        "(watermark_delta if watermark_config is None else unknown) is None"]
    assert {r.message: r.condition for r in rules if r.exception != "TypeError"} == {
        # the variable sglang sets for some models is the launch's text on the other way
        "Spec v2 only supports topk 1":
            "env_bool((str(True) if not env_bool(SGLANG_ENABLE_SPEC_V2) else SGLANG_ENABLE_SPEC_V2) if "
            "'MiMoForCausalLM' in unknown.get(('architectures', model_path), ()) else SGLANG_ENABLE_SPEC_V2) and "
            "speculative_eagle_topk is not None and (speculative_eagle_topk > 1)",
        "schedule_conservativeness must be non-negative":
            "not (schedule_conservativeness * 0.3 if enable_dp_attention and torch.cuda.device_count() > 1 "
            "else schedule_conservativeness) >= 0",
        "tp_size must be divisible by attn_cp_size": "tp_size % attn_cp_size != 0",
        "Speculative decoding is not supported with Flex Attention":
            "(('dsv4' if attention_backend == 'compressed' else attention_backend) if attention_backend == "
            "'compressed' or decode_attention_backend == 'compressed' else attention_backend) == 'flex_attention' "
            "and speculative_algorithm is not None",
        "requires at least one encoder url": "language_only and len(encoder_urls) == 0",
        "watermark_delta must be positive": "(watermark_delta if watermark_config is None else unknown) <= 0",
    }
    # the megakernel's reasons come from a plugin's spec
    assert skipped == ["depends on a value the derivation does not follow"]
    # a default built by default_factory is a default too
    assert _rule(rules, "requires at least one encoder url").defaults == (("encoder_urls", []),
                                                                          ("language_only", False))


@pytest.mark.parametrize("message, settings, complete, fails", [
    # whether the GPU count halves it or not, a negative value stays negative
    ("schedule_conservativeness must be non-negative", {"schedule_conservativeness": -0.5}, True, True),
    ("schedule_conservativeness must be non-negative",
     {"schedule_conservativeness": -0.5, "enable_dp_attention": True}, True, True),
    ("schedule_conservativeness must be non-negative", {"schedule_conservativeness": 0.5}, True, False),
    ("tp_size must be divisible by attn_cp_size", {"tp_size": 6, "attn_cp_size": 4}, False, True),
    ("tp_size must be divisible by attn_cp_size", {"tp_size": 8, "attn_cp_size": 4}, False, False),
    ("Speculative decoding is not supported with Flex Attention",
     {"attention_backend": "flex_attention", "speculative_algorithm": "NGRAM"}, True, True),
    ("Speculative decoding is not supported with Flex Attention",
     {"attention_backend": "triton", "speculative_algorithm": "NGRAM"}, True, False),
    ("requires at least one encoder url", {"language_only": True}, True, True),
    ("requires at least one encoder url", {"language_only": True}, False, False),
    ("requires at least one encoder url", {"language_only": True, "encoder_urls": ["http://e:1"]}, True, False),
    # a watermark config may declare any watermark_* field
    ("watermark_delta must be positive", {"watermark_delta": -1.0}, True, True),
    ("watermark_delta must be positive", {"watermark_delta": -1.0, "watermark_config": "w.json"}, True, False),
])
def test_a_resolution_check_fails_a_launch_only_where_it_certainly_raises(
        resolved, message, settings, complete, fails):
    check = _check(resolved[0], message)
    assert startup.fails(check, _launch(complete, {}, **settings)) is fails


@pytest.mark.parametrize("environ, fails", [
    ({"SGLANG_ENABLE_SPEC_V2": "1"}, True),  # on whatever the model
    ({"SGLANG_ENABLE_SPEC_V2": "0"}, False),  # sglang may turn it on for the model
    ({}, False),
])
def test_an_environment_variable_sglang_sets_on_one_way_is_the_launch_s_on_the_other(resolved, environ, fails):
    check = _check(resolved[0], "Spec v2 only supports topk 1")
    assert startup.fails(check, _launch(True, environ, speculative_eagle_topk=2)) is fails


def test_a_check_whose_words_the_launch_does_not_set_is_never_parsed():
    """The words of a check's texts hold every name it reads: a launch that sets none of them
    is passed over before the condition is parsed (most checks, for most launches)."""
    startup_table.parsed_condition.cache_clear()
    untouched = startup.StartupCheck("m: f", "ValueError", "a", "page % 7 == 1 and _v0123456789", (("", ""),),
                                     {}, (("_v0123456789", "chunked > page"),))
    touched = startup.StartupCheck("m: g", "ValueError", "b", "tp % 3 == 1", (("", ""),), {})
    launch = _launch(True, {}, tp=4)
    assert startup.fails(untouched, launch) is False and startup.fails(touched, launch) is True
    assert startup_table.parsed_condition.cache_info().currsize == 1
    assert startup.fails(untouched, _launch(True, {}, tp=4, chunked=8, page=7)) is False  # 8 > 7, 7 % 7 == 0
    assert startup_table.parsed_condition.cache_info().currsize == 2


def test_the_screen_asks_the_checks_of_the_releases_the_engine_judges():
    """The screen's verdict (may_fail) reads the checks of the target releases, as the engine
    does: a launch only another release's check fails is passed over; none given, every one."""
    older = startup.StartupCheck("m: f", "ValueError", "a", "tp % 3 == 1", (("", "0.5.10"),), {})
    newer = startup.StartupCheck("m: g", "ValueError", "b", "tp % 5 == 1", (("0.5.10", ""),), {})
    table = startup.StartupTable((older, newer), ("0.5.9", "0.5.10"))
    launch = _launch(True, {}, tp=4)  # 4 % 3 == 1, 4 % 5 == 4: only the older release's check fails it
    assert startup.may_fail(table, launch, releases=("0.5.9",)) is True
    assert startup.may_fail(table, launch, releases=("0.5.10",)) is False
    assert startup.may_fail(table, launch) is True
    assert [m for _, m in startup.findings(table, launch, ("0.5.10",), "0.5.10")] == []


def test_a_table_s_rows_are_kept_and_an_edit_or_a_spoilt_copy_is_read_anew(tmp_path, monkeypatch):
    from sglang_lint.checks.server_args import startup

    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "startup.toml"
    row = ('[[check]]\nsite = "m: f"\nexception = "ValueError"\nmessage = "MESSAGE"\nfails_when = "_v0123456789 > 1"\n'
           'releases = [["", ""]]\ndefaults = "{\'tp\': 1}"\n[values]\n_v0123456789 = "tp * 2"\n')

    def read(message: str):
        path.write_text(row.replace("MESSAGE", message), encoding="utf-8")
        startup.load_startup.cache_clear()
        return startup.load_startup(path)

    made = read("first")
    kept = sorted((tmp_path / "cache" / "tables").glob("startup-*.marshal"))
    assert len(kept) == 1
    assert read("first") == made  # read back from the kept rows
    (check,) = made.checks
    assert (check.message, check.defaults, check.values) == ("first", {"tp": 1}, (("_v0123456789", "tp * 2"),))
    assert [c.message for c in read("second").checks] == ["second"]  # an edit is another checksum
    assert len(list((tmp_path / "cache" / "tables").glob("startup-*.marshal"))) == 2
    kept[0].write_bytes(b"\x00 spoilt")
    assert read("first") == made


@pytest.mark.parametrize("method, view", [
    ("def _resolved(self):\n    return resolved_view(self)\n", "resolved_view"),
    # the view's function imported in the method first, a docstring before it (0.5.16's ServerArgs._resolved)
    ('def _resolved(self):\n    """A view."""\n    from sglang.srt.arg_groups.overrides import resolved_view\n\n'
     "    return resolved_view(self)\n", "resolved_view"),
    ("def _resolved(self):\n    self.x = 1\n    return resolved_view(self)\n", None),  # it writes first
    ("def _resolved(self, other):\n    return resolved_view(other)\n", None),  # a view of something else
])
def test_a_method_that_only_returns_a_view_of_the_arguments_is_read_as_that_view(method, view):
    from sglang_lint.derive.startup.run import _returned_view

    assert _returned_view(ast.parse(method).body[0]) == view
