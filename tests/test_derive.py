"""`catalog derive` and `catalog verify`: on a small stand-in tree (every guard shape it
must turn into a rule or skip), then on sglang 0.5.23 itself (byte-for-byte regeneration,
no drift; the drift planted in a copy is test_derive_drift.py's)."""

from __future__ import annotations

import dataclasses
import filecmp
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, lint_in_process
from sglang_lint import lint
from sglang_lint.checks.server_args.table import load_table
from sglang_lint.core.rulefile import read_toml
from sglang_lint.engine.ruletable import RuleSet, load_rules
from sglang_lint.derive.sites.drift import verify
from sglang_lint.derive.server_args.fields import SERVER_ARGS_TABLE
from sglang_lint.derive.sites.raise_sites import derive_sites, derive_to_verify
from sglang_lint.derive.sites.writing import DERIVED_DIR, LOCK_FILE, catalog_history, write_catalog, write_over_history
from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.derive.releases.history import (
    Run,
    gone_rules,
    release_server_args,
    release_sites,
    rules_of,
    site_history,
    site_runs,
    site_signature,
)
from sglang_lint.derive.sites.drift import rule_constraint
from sglang_lint.derive.sites.writing import older_checks_of

TREE = Path(__file__).resolve().parent / "derive_tree"


@pytest.fixture(scope="module")
def derivation():
    return derive_sites(TREE, index_raises=True)


def by_function(derivation):
    return {site.function: site for site in derivation.sites}


@pytest.mark.parametrize(
    "function, constraint",
    [
        ("allowed_tuple", "mode in ('pre_rope', 'post_rope')"),
        ("allowed_constant", "backend in ('auto', 'torch', 'triton')"),
        ("allowed_dict_keys", "kind in ('fast', 'slow')"),
        ("not_equal", "layout in ('nhd')"),
        ("chain", "rule in ('chunk', 'recurrent', 'fused')"),
        ("matched", "kind in ('a', 'b')"),
        ("needs_layers", "layer_ids is not None"),
        ("not_supported", "scale is None"),
        ("truthy", "name is truthy"),
        ("forbidden", "mode not in ('legacy')"),
        ("Block.__init__", "backend in ('auto', 'torch')"),
        ("Block.set_capture_mode", "capture in ('on', 'off')"),
        ("ArchConfig.__post_init__", "mode in ('pre', 'post')"),
        # numbers compared with a literal bound, and asserts (the test that must hold)
        ("positive_pages", "page_size > 0"),
        ("bits_in_range", "bits >= 2 and bits <= 8"),
        ("bound_on_the_left", "count > 0"),
        ("asserted_choice", "mode in ('fast', 'exact')"),
        ("asserted_present", "layers is not None"),
        ("asserted_range", "ratio > 0 and ratio <= 1"),
        # type checks whose verdict on a literal is certain, and a flag that must stay off
        ("needs_tensor", "isinstance(x, (torch.Tensor))"),
        ("asserted_type", "isinstance(value, (int))"),
        ("frames_list", "isinstance(frames, (collections.abc.Sequence)) and not isinstance(frames, (str, bytes))"),
    ],
)
def test_guards_that_become_rules(derivation, function, constraint):
    site = by_function(derivation)[function]
    assert site.skipped is None
    assert site.constraint.describe(site.parameter) == constraint


@pytest.mark.parametrize(
    "function, reason",
    [
        ("early_return_first", "the guard does not run on every call"),
        ("nested_under_an_expression", "the guard does not run on every call"),
        ("reassigned_first", "the parameter is rebound before the guard"),
        ("anded_with_an_expression", "the guard is and-ed with another condition"),
        ("registry", "the allowed set is a name bound at run time or more than once (registry lookup)"),
        ("_check", "a check helper: its callers call it in order to raise"),
        ("Block.update", "a method name too common to match without knowing the receiver"),
        ("Other.set_shared", "a method name that several sglang classes define"),
        ("by_identity", "compares by identity"),
        ("own_class", "a type check against a class a literal may belong to"),
    ],
)
def test_guards_that_are_skipped_with_their_reason(derivation, function, reason):
    assert by_function(derivation)[function].skipped == reason


def test_targets_positions_and_pass_through(derivation):
    sites = by_function(derivation)
    block = sites["Block.__init__"].target
    assert (block.kind, block.name, block.argument, block.position) == (
        "class", "sglang.modes.capture.Block", "backend", 1
    )
    method = sites["Block.set_capture_mode"].target
    assert (method.kind, method.name, method.position) == ("method", "set_capture_mode", 0)
    config = sites["ArchConfig.__post_init__"].target
    assert (config.kind, config.fields, config.position) == ("class", True, None)
    scale = sites["not_supported"].target
    assert (scale.argument, scale.position) == ("scale", None)  # keyword-only
    # Pass-throughs: by keyword, by position, through self.x, and super().__init__ to the base.
    through = {(t.name, t.argument, t.position) for t in sites["allowed_tuple"].passthrough}
    assert through == {
        ("sglang.modes.capture.wrapper", "capture_mode", 1),
        ("sglang.modes.capture.positional_wrapper", "how", 1),
        ("sglang.modes.capture.HeldCapture", "how", 0),
    }
    (child,) = sites["Block.__init__"].passthrough
    assert (child.name, child.argument, child.position) == ("sglang.modes.capture.ChildBlock", "kind", 1)


@pytest.fixture()
def written(tmp_path, derivation):
    rules = tmp_path / "rules"
    rules.mkdir()
    count, skipped = write_catalog(derivation, rules)
    return rules, count, skipped


def test_written_rules_load_run_and_flag_their_examples(written):
    rules_dir, count, _ = written
    rules = load_rules([rules_dir])
    assert len(rules) == count == 80  # 42 of them fails-when rules (test_fails_when.py)
    ruleset = RuleSet(rules)
    for rule in rules:
        assert rule.derived_key and rule.code.startswith("SGL1")
        assert {d.code for d in lint(rule.docs.bad, "user.py", ruleset)} == {rule.code}
        assert lint(rule.docs.good, "user.py", ruleset) == []
    # A user's call through sglang's own pass-through wrapper is checked too.
    source = "from sglang.modes.capture import wrapper\nwrapper(t, capture_mode='pre')\n"
    assert [d.line for d in lint(source, "user.py", ruleset)] == [2]


def test_a_target_is_found_under_every_name_its_package_exports_it_by(written):
    rules_dir, _, _ = written
    exports = (rules_dir / DERIVED_DIR / "exports.toml").read_text()
    assert '"sglang.modes.capture.allowed_tuple" = ["sglang.modes.allowed_tuple"]' in exports
    assert '"sglang.modes.capture.ArchConfig" = ["sglang.modes.ArchConfig"]' in exports  # LazyImport
    assert '"sglang.modes.capture.Block" = ["sglang.modes.CaptureBlock"]' in exports  # import ... as
    # a module __getattr__ reading a table of submodules (an entry whose module is not in the tree: none)
    assert '"sglang.modes.paths.plan_layers" = ["sglang.modes.plan_layers"]' in exports
    assert "not_a_module" not in exports
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "import sglang.modes\n"
        "from sglang.modes import CaptureBlock, allowed_tuple, positive_pages\n"
        "allowed_tuple(t, mode='pre')\n"
        "CaptureBlock(None, backend='cuda')\n"
        "positive_pages(0)\n"
        "sglang.modes.allowed_tuple(t, 'post')\n"
        "allowed_tuple(t, mode='pre_rope')\n"
        "try:\n"
        "    from sglang.modes import plan_layers as _plan\n"
        "except ImportError:\n"
        "    _plan = None\n"
        "_plan(4, 2)\n"  # the import where it is bound, or a call that fails anyway
    )
    assert [(d.line, d.code) for d in lint(source, "user.py", ruleset)] == [
        (3, rule_code(rules_dir, "allowed_tuple")), (4, rule_code(rules_dir, "Block.__init__")),
        (5, rule_code(rules_dir, "positive_pages")), (6, rule_code(rules_dir, "allowed_tuple")),
        (12, rule_code(rules_dir, "plan_layers")),
    ]


def test_a_call_that_leaves_out_an_argument_whose_default_fails_is_reported(written, derivation):
    sites = by_function(derivation)
    assert sites["needs_template"].target.omitted and sites["workers"].target.omitted
    assert not sites["not_supported"].target.omitted  # scale=None is what it must be
    assert not sites["allowed_constant"].target.omitted  # backend="auto" is allowed
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "from sglang.modes.numbers import needs_template, workers\n"
        "needs_template('chat')\n"
        "needs_template('chat', '{{ x }}')\n"
        "needs_template(*names)\n"
        "needs_template('chat', **options)\n"
        "workers()\n"
        "workers(4)\n"
        "make = functools.partial(workers)\n"
    )
    assert [(d.line, d.col, d.code, d.message) for d in lint(source, "user.py", ruleset)] == [
        (2, 0, rule_code(rules_dir, "needs_template"),
         "needs_template(...): omitting `template` fails: ValueError: a chat template is required"),
        (6, 0, rule_code(rules_dir, "workers"),
         "workers(...): omitting `count` fails: ValueError: count must be positive"),
    ]


def test_a_guard_that_runs_when_other_arguments_pass_a_test_is_a_conditional_rule(written, derivation):
    sites = by_function(derivation)
    for function, condition in (("anded", "strict is truthy"), ("nested_guard", "flag is truthy")):
        site = sites[function]
        assert site.skipped is None and site.constraint.describe(site.parameter) == "mode in ('x', 'y')"
        assert [c.describe() for c, *_ in site.conditions] == [condition]
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "from sglang.modes.capture import anded, nested_guard\n"
        "anded('z', True)\n"
        "anded('z', strict=1)\n"
        "anded('z', False)\n"
        "anded('z', strict)\n"
        "anded('x', True)\n"
        "nested_guard('z', flag=True)\n"
        "nested_guard(mode='z', flag=None)\n"
        "nested_guard('z', **options)\n"
    )
    anded, nested = rule_code(rules_dir, "anded"), rule_code(rules_dir, "nested_guard")
    assert [(d.line, d.code) for d in lint(source, "user.py", ruleset)] == [
        (2, anded), (3, anded), (7, nested),
    ]


def test_calls_of_a_derived_pass_through_are_judged(written):
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "from sglang.modes.capture import ChildBlock, HeldCapture, positional_wrapper\n"
        "positional_wrapper(t, 'sideways')\n"
        "HeldCapture(how='sideways')\n"
        "ChildBlock(8, 'cuda')\n"
        "positional_wrapper(t, 'pre_rope')\n"
        "ChildBlock(8, kind='torch')\n"
    )
    tuple_code, block_code = rule_code(rules_dir, "allowed_tuple"), rule_code(rules_dir, "Block.__init__")
    (written_rule,) = [r for r in load_rules([rules_dir]) if r.code == tuple_code]
    vias = {t.name: t.via for t in written_rule.checks[0].targets}  # each pass-through says how
    assert vias["sglang.modes.capture.positional_wrapper"] == (
        "sglang.modes.capture.positional_wrapper() passes how on to sglang.modes.capture.allowed_tuple()")
    assert vias["sglang.modes.capture.allowed_tuple"] is None
    assert [(d.line, d.code) for d in lint(source, "user.py", ruleset)] == [
        (2, tuple_code), (3, tuple_code), (4, block_code),
    ]


def test_guards_in_a_helper_called_on_every_call_are_the_caller_s(written, derivation):
    found = {(s.function, s.parameter): s for s in derivation.sites if s.skipped is None}
    own = [x for x in derivation.sites if x.function == "_validate_layout" and x.caller is None]
    assert [x.skipped for x in own] == ["a check helper: its callers call it in order to raise"]
    via_init = [s for s in derivation.sites if s.function == "_validate_layout" and s.target
                and s.target.name == "sglang.modes.capture.Cache"]
    assert [(s.target.argument, s.target.position) for s in via_init] == [("layout", 1)]
    policy = found[("Cache._validate_policy", "policy")]
    assert (policy.target.name, policy.target.argument, policy.constraint.values) == (
        "sglang.modes.capture.Cache", "policy", ("lru", "fifo"))
    chunk = found[("SchedulerConfig._check_chunk", "chunk")]
    assert chunk.target.fields and chunk.constraint.describe("chunk") == "chunk > 0"
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "from sglang.modes.capture import Cache, SchedulerConfig\n"
        "Cache(8, 'nhd', policy='random')\n"
        "Cache(8, 'bshd')\n"
        "SchedulerConfig(chunk=0)\n"
        "Cache(8, 'hnd', 'fifo')\n"
    )
    assert [d.line for d in lint(source, "user.py", ruleset)] == [2, 3, 4]


def test_type_checks_and_flags_that_must_be_off(written, derivation):
    sites = by_function(derivation)
    both = sites["prefix_or_suffix"]
    assert (both.parameter, both.constraint.kind, [c.describe() for c, *_ in both.conditions]) == (
        "suffix", "falsy", ["prefix is truthy"])
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = (
        "from sglang.modes.numbers import frames_list, needs_tensor, prefix_or_suffix\n"
        "needs_tensor(48)\n"
        "needs_tensor(t)\n"
        "frames_list('0,4,8')\n"
        "frames_list(7)\n"
        "prefix_or_suffix(77, suffix=16)\n"
        "prefix_or_suffix(77)\n"
    )
    found = [(d.line, d.message) for d in lint(source, "user.py", ruleset)]
    assert found == [
        (2, "needs_tensor(x=48): TypeError: x must be a tensor (48 is a int; sglang wants an instance of "
            "torch.Tensor)"),
        (4, "frames_list(frames='0,4,8'): ValueError: frames must be a sequence ('0,4,8' is a str; sglang wants "
            "an instance of collections.abc.Sequence, not str or bytes)"),
        (5, "frames_list(frames=7): ValueError: frames must be a sequence (7 is a int; sglang wants an instance of "
            "collections.abc.Sequence, not str or bytes)"),
        (6, "prefix_or_suffix(suffix=16): ValueError: only one of prefix and suffix (16 is true; it must be false, "
            "None or empty)"),
    ]


def test_an_int_is_judged_against_a_float_bound(written):
    # (0).__gt__(0.0) is NotImplemented, not False: the comparison must be the operator's.
    rules_dir, _, _ = written
    ruleset = RuleSet(load_rules([rules_dir]))
    source = "from sglang.modes.numbers import positive_scale\npositive_scale(0)\npositive_scale(1)\n"
    assert [(d.line, d.code) for d in lint(source, "user.py", ruleset)] == [(2, rule_code(rules_dir, "positive_scale"))]


def rule_code(rules_dir, function: str) -> str:
    (code,) = [r.code for r in load_rules([rules_dir]) if r.raise_site.function == function]
    return code


def test_codes_stay_with_their_site_across_re_derivations(tmp_path, written, derivation):
    rules_dir, _, _ = written
    lock = (rules_dir / DERIVED_DIR / LOCK_FILE).read_text()
    before = {r.derived_key: r.code for r in load_rules([rules_dir])}
    # The tree gains a guard and loses one: old sites keep their codes, the lost code is
    # not given again, the new site gets the next free one.
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    source = tree / "sglang" / "modes" / "capture.py"
    text = source.read_text()
    text = text.replace('    if mode == "legacy":\n        raise ValueError("legacy mode was removed")\n', "    pass\n")
    text += '\n\ndef added(level):\n    if level not in (1, 2):\n        raise ValueError("level")\n'
    source.write_text(text)
    write_catalog(derive_sites(tree), rules_dir)
    after = {r.derived_key: r.code for r in load_rules([rules_dir])}
    removed = "sglang.modes.capture:forbidden:mode:forbidden-values"
    assert removed in before and removed not in after
    for key, code in after.items():
        if key in before:
            assert before[key] == code
    assert after["sglang.modes.capture:added:level:allowed-values"] == f"SGL{100 + len(before):03d}"
    assert before[removed] in (rules_dir / DERIVED_DIR / LOCK_FILE).read_text()  # retired, never reused
    assert lock != (rules_dir / DERIVED_DIR / LOCK_FILE).read_text()


def test_runs_of_releases_cut_where_the_check_changes():
    history = {
        "0.5.1": {"k": {"signature": "a"}},
        "0.5.2": {"k": {"signature": "b"}},
        "0.5.3": {"k": {"signature": "b"}},
        "0.5.4": {},
        "0.5.5": {"k": {"signature": "c"}},
        "0.5.6": {"k": {"signature": "c"}},
    }
    assert site_runs("k", history, "0.5.6") == [Run("0.5.5", "", "0.5.6")]  # unbroken back to 0.5.5 only
    assert site_runs("k", history, "0.5.3") == [Run("0.5.2", "0.5.4", "0.5.3"), Run("", "0.5.2", "0.5.1")]


def test_a_merged_catalog_keeps_each_release_s_check(tmp_path, derivation):
    """Three releases of the test tree: in the two older ones `allowed_tuple` took one mode
    less and `legacy_only` still raised; the catalog written from them holds both."""
    old_tree = tmp_path / "old"
    shutil.copytree(TREE, old_tree)
    capture = old_tree / "sglang" / "modes" / "capture.py"
    text = capture.read_text().replace('if mode not in ("pre_rope", "post_rope"):', 'if mode not in ("pre_rope",):')
    legacy = '\n\ndef legacy_only(level):\n    if level not in (1, 2):\n        raise ValueError("level")\n'
    capture.write_text(text + legacy)
    old = rules_of(derive_sites(old_tree), "0.5.2")
    older = {"0.5.1": old, "0.5.2": old}
    newest = {site.key: {"signature": site_signature(site)} for site in derivation.rules}
    since, older_checks = site_history(derivation, {**older, derivation.version: newest})
    key = "sglang.modes.capture:allowed_tuple:mode:allowed-values"
    assert since == {}  # every site of the newest was in the oldest
    assert list(older_checks) == [key] and older_checks[key][0] == "9.9.9"
    gone = gone_rules(derivation, older)
    assert list(gone) == ["sglang.modes.capture:legacy_only:level:allowed-values"]
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    write_catalog(derivation, rules_dir, since=since, gone=gone, older_checks=older_checks)
    assert older_checks_of(rules_dir) == older_checks  # what a re-write without the releases reads back
    ruleset = RuleSet(load_rules([rules_dir]))
    source = ("from sglang.modes.capture import allowed_tuple, legacy_only\n"
              "allowed_tuple(t, mode='post_rope')\nlegacy_only(3)\n")
    assert [(d.line, d.message) for d in lint(source, "x.py", ruleset.for_releases(["0.5.2"]))] == [
        (2, "allowed_tuple(mode='post_rope'): ValueError: unsupported mode: post_rope; expected one of 'pre_rope'"
            " (did you mean 'pre_rope'? fixable with `sglang-lint --fix --unsafe-fixes`)"),
        (3, "legacy_only(level=3): ValueError: level; expected one of 1, 2"),
    ]
    assert [d.line for d in lint(source, "x.py", ruleset)] == []  # the newest: both are fine


def test_verify_reports_exactly_the_drift(tmp_path, written, derivation):
    rules_dir, _, _ = written
    rules = list(load_rules([rules_dir]))
    assert not verify(rules, derivation).any
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    source = tree / "sglang" / "modes" / "capture.py"
    text = source.read_text()
    text = text.replace('("pre_rope", "post_rope")', '("pre_rope", "post_rope", "mid_rope")')
    text = text.replace('        raise ValueError("name must be set")\n', "        pass\n")
    source.write_text(text)
    drift = verify(rules, derive_sites(tree, index_raises=True))
    # `catalog verify` reads no fails-when rule and no launcher: it derives none, and finds the same
    lean = derive_to_verify(tree)
    assert lean.paths == [] and lean.commands is None and verify(rules, lean) == drift
    code = {r.raise_site.function: r.code for r in rules}
    assert drift.missing == [
        f"{code['truthy']} sglang.modes.capture.truthy: no raise of 'name must be set' there any more"
    ]
    assert drift.changed == [
        f"{code['allowed_tuple']} sglang.modes.capture.allowed_tuple: was mode in ('pre_rope', 'post_rope'), "
        "now mode in ('pre_rope', 'post_rope', 'mid_rope')"
    ]
    assert drift.new == []


def test_an_older_release_s_rules_need_no_fails_when_paths():
    """releases.release_rules derives older releases without their fails-when rules (paths=False):
    their one-parameter rules come out the same."""
    full, lean = derive_sites(TREE), derive_sites(TREE, paths=False)
    assert full.paths and not lean.paths
    assert rules_of(lean, "9.9.9") == rules_of(full, "9.9.9") != {}


def _merged_catalog(tmp_path, releases: list[str]) -> Path:
    """A rule folder whose derived catalog says it merges ``releases`` (the stand-in tree's own
    derivation, its table given that history)."""
    rules = tmp_path / "rules"
    rules.mkdir()
    assert lint_in_process("catalog", "derive", "--sglang", str(TREE), "--rules", str(rules)).returncode == 0
    table = rules / DERIVED_DIR / SERVER_ARGS_TABLE
    listed = ", ".join(f'"{r}"' for r in releases)
    table.write_text(f"releases = [{listed}]\n" + table.read_text(encoding="utf-8"), encoding="utf-8")
    return rules


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_tree_the_catalog_already_merges_changes_nothing(tmp_path):
    rules = _merged_catalog(tmp_path, ["9.9.8", "9.9.9"])
    before = _snapshot(rules)
    # its newest release: every file written again, as it was
    newest = lint_in_process("catalog", "derive", "--sglang", str(TREE), "--rules", str(rules))
    assert newest.returncode == 0, newest.stderr
    assert "80 rules written" in newest.stdout and _snapshot(rules) == before
    # an older one: nothing to write
    (tmp_path / "older").mkdir()
    rules_older = _merged_catalog(tmp_path / "older", ["9.9.9", "9.9.10"])
    before = _snapshot(rules_older)
    older = lint_in_process("catalog", "derive", "--sglang", str(TREE), "--rules", str(rules_older))
    assert (older.returncode, older.stderr) == (0, "")
    assert older.stdout == ("sglang 9.9.9 is one of the 2 releases the catalog merges (9.9.9 to 9.9.10), "
                            "not its newest: nothing to write\n")
    assert _snapshot(rules_older) == before


def test_a_newer_tree_never_rewrites_a_merged_catalog_as_one_release(tmp_path):
    """A newer release is merged into the catalog (test_derive_merge.py), from what the catalog
    records of its releases; this one's table is one release's with a list of releases put on
    top, not what the merge of those releases writes: refused, nothing written."""
    rules = _merged_catalog(tmp_path, ["9.9.7", "9.9.8"])
    before = _snapshot(rules)
    newer = lint_in_process("catalog", "derive", "--sglang", str(TREE), "--rules", str(rules))
    assert newer.returncode == 2 and newer.stdout == ""
    assert newer.stderr == (f"sglang-lint: error: {rules / DERIVED_DIR / SERVER_ARGS_TABLE} is not what the merge "
                            "of the releases it records writes: run `sglang-lint catalog derive --releases "
                            "9.9.7..9.9.8` to rebuild it\n")
    assert _snapshot(rules) == before


def test_catalog_commands(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    derived = lint_in_process("catalog", "derive", "--sglang", str(TREE), "--rules", str(rules))
    assert derived.returncode == 0, derived.stderr
    assert "80 rules written" in derived.stdout and "skipped:" in derived.stdout
    verified = lint_in_process("catalog", "verify", "--sglang", str(TREE), "--rules", str(rules))
    assert (verified.returncode, verified.stdout.strip()) == (0, "sglang 9.9.9: 0 missing, 0 changed, 0 new")
    missing = lint_in_process("catalog", "verify", "--sglang", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no sglang package here" in missing.stderr


# --- sglang 0.5.23 itself -------------------------------------------------------------------


@pytest.mark.corpus
def test_derive_regenerates_the_shipped_catalog_byte_for_byte(tmp_path, sglang_derivation):
    """The rule files are what the writer makes of 0.5.23 and the release each starts in (the
    releases are merged by `catalog derive --releases`, a developer's command; the table's
    merge is checked against releases of their own below)."""
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    # what `catalog derive --sglang` does with the newest release's tree over a merged catalog
    history = catalog_history(rules)
    assert history.releases[0] == "0.5.1" and history.releases[-1] == sglang_derivation.version
    count, skipped = write_over_history(sglang_derivation, rules, history)
    assert count >= 300
    shipped, regenerated = ROOT / "rules" / DERIVED_DIR, rules / DERIVED_DIR
    assert sorted(os.listdir(shipped)) == sorted(os.listdir(regenerated))
    match, mismatch, errors = filecmp.cmpfiles(shipped, regenerated, os.listdir(shipped), shallow=False)
    assert (mismatch, errors) == ([], [])


@pytest.mark.corpus
def test_the_shipped_table_is_0_5_23_s_own_for_0_5_23(sglang_derivation):
    table = load_table(ROOT / "rules" / DERIVED_DIR / SERVER_ARGS_TABLE)
    assert table.version == "0.5.23" == sglang_derivation.version
    assert table.manual_flags == frozenset(sglang_derivation.manual_flags)
    own = {f.name: f for f in sglang_derivation.server_fields}
    assert set(table.fields) == set(own)
    for name, field in own.items():
        got = table.fields[name]
        assert (got.type, got.optional, got.choices, got.flags) == (
            field.type, field.optional, field.choices, field.flags), name


# A release the merge holds, checked against its own tree (fetched through pip, as 0.5.23 is).
OTHER_RELEASE = "0.5.10.post1"


@pytest.mark.corpus
def test_the_merged_catalog_holds_another_release_as_its_own_tree_has_it(sglang_derivation):
    if OTHER_RELEASE not in read_toml(ROOT / "rules" / DERIVED_DIR / SERVER_ARGS_TABLE).get("releases", ()):
        pytest.fail(f"the shipped table was not merged over {OTHER_RELEASE}: run catalog derive --releases")
    fetch_tree(OTHER_RELEASE)
    fields, manual = release_server_args(OTHER_RELEASE)
    table = load_table(ROOT / "rules" / DERIVED_DIR / SERVER_ARGS_TABLE).for_releases([OTHER_RELEASE])
    # Everything the release has is there (no false alarm); an item that left and came back
    # counts as there in between too, so a few more may be (never many).
    assert {f.name for f in fields} <= set(table.fields)
    assert frozenset(manual) <= table.manual_flags
    extra = (set(table.fields) - {f.name for f in fields}) | (table.manual_flags - frozenset(manual))
    assert len(extra) < 10, sorted(extra)
    for field in fields:
        got = table.fields[field.name]
        assert set(field.choices) <= set(got.choices) and set(field.flags) <= set(got.flags), field.name
    # A rule is on for that release only where the release's own site checks the same thing
    # (and stays so in every release since: an unbroken run up to the newest).
    sites = release_sites(OTHER_RELEASE)
    ruleset = RuleSet(load_rules([ROOT / "rules"]))
    in_force = ruleset.for_releases([OTHER_RELEASE]).rules
    on = {r.derived_key: r for r in in_force if r.derived_key and not r.raise_site.until}
    newest = {site.key: site_signature(site) for site in sglang_derivation.rules}
    same = {key for key, signature in newest.items() if sites.get(key) == signature}
    assert set(on) <= set(sites) and len(on) > 100, sorted(set(on) - set(sites))[:5]
    # with the check of that release: the newest's where it is the same, its own where not
    changed = 0
    for key, rule in on.items():
        (check,) = rule.checks
        if key in same:
            assert check.since is None or version_key(check.since) <= version_key(OTHER_RELEASE), key
        else:
            changed += 1
            constraint = rule_constraint(dataclasses.replace(rule, checks=(check,)))
            assert sites[key].startswith(constraint.describe(rule.raise_site.parameter) + " @"), (key, sites[key])
    assert changed, "no rule of this release checks something else than the newest"
    # and the rules of raise sites only older releases have: those of this release's sites
    older = {r.derived_key for r in in_force if r.derived_key and r.raise_site.until}
    assert older and older <= set(sites), sorted(older - set(sites))[:5]


@pytest.mark.corpus
def test_no_drift_against_0_5_23(sglang_derivation):
    """(The planted drift is checked in test_derive_drift.py: its own derivation of a copy of the
    tree, in a file of its own so that another worker runs it while this one derives 0.5.23.)"""
    clean = verify(list(load_rules([ROOT / "rules"])), sglang_derivation)
    assert (clean.missing, clean.changed, clean.new) == ([], [], [])


def test_server_argument_table(derivation, written):
    fields = {f.name: f for f in derivation.server_fields}
    assert sorted(fields) == [
        "_policy_explicitly_set", "attention_backend", "bucket_bounds", "canary_data", "graph_backend",
        "graph_sizes", "internal_only", "kv_cache_dtype", "reasoning_parser", "sampling_backend", "schedule_policy",
        "stat_loggers", "target_modules", "tp_size",
    ]
    assert fields["attention_backend"].choices == ("triton", "flashinfer") and fields["attention_backend"].extensible
    assert fields["attention_backend"].optional
    assert fields["kv_cache_dtype"].choices == ("auto", "fp8_e4m3", "bf16") and not fields["kv_cache_dtype"].extensible
    assert fields["schedule_policy"].choices == ("fcfs", "lpm") and fields["schedule_policy"].default == "fcfs"
    assert fields["tp_size"].flags == ("--tp-size", "--tensor-parallel-size") and fields["tp_size"].type == "int"
    # --old-graphs stores True into the field (a plain store_true action): that field's flag
    assert fields["internal_only"].flags == ("--old-graphs",) and fields["internal_only"].type == "bool"
    # choices however they are declared
    assert fields["graph_backend"].choices == ("full", "breakable") and not fields["graph_backend"].extensible
    assert fields["target_modules"].choices == ("q_proj", "k_proj", "all")
    # list flags take the words after them (argparse's nargs): given, a List[X] field's "+",
    # or add_argument's; with what each word is converted to
    assert (fields["target_modules"].nargs, fields["target_modules"].item) == ("*", None)
    assert (fields["graph_sizes"].nargs, fields["graph_sizes"].item) == ("+", "int")
    assert (fields["bucket_bounds"].nargs, fields["bucket_bounds"].item) == ("+", "float")
    assert (fields["tp_size"].nargs, fields["canary_data"].nargs) == (None, None)
    assert fields["sampling_backend"].choices == ("flashinfer", "pytorch", "oracle")
    assert fields["sampling_backend"].flags == ("--sampling-backend",)
    assert fields["reasoning_parser"].choices == ("auto", "qwen3", "deepseek-r1")
    assert fields["reasoning_parser"].extensible  # one return reads a registry plugins fill
    assert fields["canary_data"].choices == ("none", "partial", "all") and fields["canary_data"].type == "str"
    assert (fields["stat_loggers"].type, fields["stat_loggers"].flags) == ("other", ())
    assert fields["_policy_explicitly_set"].flags == ()
    assert derivation.manual_flags == [
        "--bucket-bounds", "--canary-data", "--config", "--old-graphs", "--reasoning-parser", "--sampling-backend",
    ]
    rules_dir, _, _ = written
    from sglang_lint.checks.server_args.table import load_table

    table = load_table(rules_dir / DERIVED_DIR / "server_args.toml")
    assert set(table.fields) == set(fields) and table.version == "9.9.9"
    assert (table.fields["graph_sizes"].nargs, table.fields["graph_sizes"].item) == ("+", "int")


def test_verify_reports_server_argument_drift(tmp_path, written):
    from sglang_lint.checks.server_args.table import load_table
    from sglang_lint.derive.sites.drift import _table_drift

    rules_dir, _, _ = written
    table = load_table(rules_dir / DERIVED_DIR / "server_args.toml")
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    choices = tree / "sglang" / "srt" / "arg_groups" / "choices.py"
    choices.write_text(choices.read_text().replace('"bf16"]', '"bf16", "fp8_e5m2"]'))
    fields = tree / "sglang" / "srt" / "arg_groups" / "fields" / "exec_.py"
    fields.write_text(fields.read_text().replace("    internal_only:", "    renamed_only:"))
    drift = _table_drift(table, derive_sites(tree).server_fields)
    assert drift == [
        "server argument internal_only: gone from the tree",
        "server argument kv_cache_dtype: type, choices, flags or plugin hook changed",
        "server argument renamed_only: new in the tree",
    ]


# The release a tree is read as. A wheel unpacked without its dist-info folder (what the
# corpus script keeps) must still name its release: sglang/version.py's fallback literal
# "0.0.0.dev0" is never one.
SGLANG_VERSION_PY = (
    "try:\n    from sglang._version import __version__\nexcept ImportError:\n"
    '    __version__ = "0.0.0.dev0"\n'
)


def _tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "files, wheel, expected",
    [
        # installed layout: the dist-info folder wins over everything else
        ({"sglang-0.5.6.dist-info/METADATA": "Name: sglang\n", "sglang/_version.py": "__version__ = '9.9'\n"},
         None, "0.5.6"),
        # the wheel's own file, as sglang's build writes it (a chained assignment)
        ({"sglang/_version.py": "__version__ = version = '0.5.23'\n", "sglang/version.py": SGLANG_VERSION_PY},
         None, "0.5.23"),
        ({"sglang/_version.py": "__version__: str = '0.5.10.post1'\n"}, None, "0.5.10.post1"),
        # neither: the wheel's file name, if the caller knows it
        ({"sglang/version.py": SGLANG_VERSION_PY}, "sglang-0.5.15.post1-py3-none-any.whl", "0.5.15.post1"),
        # nothing says: unknown, never the fallback literal
        ({"sglang/version.py": SGLANG_VERSION_PY}, None, "unknown"),
        ({"sglang/version.py": SGLANG_VERSION_PY}, "not-a-wheel.tar.gz", "unknown"),
        ({"sglang/_version.py": "__version__ = compute()\n"}, None, "unknown"),
    ],
)
def test_sglang_version_of_a_tree(tmp_path, files, wheel, expected):
    from sglang_lint.derive.source.tree import sglang_version

    assert sglang_version(_tree(tmp_path, files), wheel) == expected


def test_derive_refuses_to_write_a_catalog_of_an_unknown_release(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    (tree / "sglang" / "_version.py").unlink()
    (tree / "sglang" / "version.py").write_text(SGLANG_VERSION_PY)
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    with pytest.raises(ValueError, match="release of this tree is unknown"):
        write_catalog(derive_sites(tree), rules_dir)
    assert list(rules_dir.iterdir()) == []
    # the command says so and writes nothing; with the wheel's name it derives
    command = ["catalog", "derive", "--sglang", str(tree), "--rules", str(rules_dir)]
    refused = lint_in_process(*command)
    assert refused.returncode == 2 and "release of this tree is unknown" in refused.stderr
    assert list(rules_dir.iterdir()) == []
    named = lint_in_process(*command, "--wheel", "sglang-9.9.8-py3-none-any.whl")
    assert named.returncode == 0, named.stderr
    assert 'sglang_version = "9.9.8"' in (rules_dir / DERIVED_DIR / "server_args.toml").read_text()


def _fields_by_an_independent_reading(root: Path) -> set[str]:
    """What ServerArgs is assembled from, read another way than derive does: the classes
    that server_args.py lists in ``_INPUT_NAMESPACES``, found through its own imports, and
    every annotated attribute of each (ClassVar aside), as msgspec makes them fields."""
    import ast

    server_args = ast.parse((root / "sglang" / "srt" / "server_args.py").read_text())
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in server_args.body if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    listed = next(
        node.value for node in server_args.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_INPUT_NAMESPACES"
    )
    names = set()
    for element in listed.elts:
        module, cls_name = imported[element.id]
        tree = ast.parse((root / Path(*module.split("."))).with_suffix(".py").read_text())
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
        for statement in cls.body:
            if isinstance(statement, ast.AnnAssign) and "ClassVar" not in ast.unparse(statement.annotation):
                names.add(statement.target.id)
    return names


@pytest.mark.corpus
def test_every_field_serverargs_accepts_is_in_the_table(sglang_tree, sglang_derivation):
    expected = _fields_by_an_independent_reading(sglang_tree)
    derived = {f.name for f in sglang_derivation.server_fields}
    assert len(expected) == 546  # sglang 0.5.23
    assert derived == expected
    shipped = (ROOT / "rules" / DERIVED_DIR / "server_args.toml").read_text()
    for name in ("stat_loggers", "custom_sigquit_handler", "reasoning_parser", "tool_call_parser",
                 "kv_canary_real_data"):
        assert f"[fields.{name}]" in shipped
