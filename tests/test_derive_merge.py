"""`catalog derive --sglang` with a release newer than a merged catalog's newest merges it into
the catalog (derive/releases/merge.py): on three stand-in releases of the test tree, 9.9.7, 9.9.8 and
9.9.9, the catalog of 9.9.7-9.9.8 with 9.9.9 merged into it is, file by file, the catalog the
full derive of 9.9.7-9.9.9 writes over it; and on the shipped catalog, what its files record of
its releases reads back as the catalog it is."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, lint_in_process
from sglang_lint.core.rulefile import read_toml
from sglang_lint.derive.server_args.fields import SERVER_ARGS_TABLE
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.sites.writing import DERIVED_DIR, catalog_history
from sglang_lint.derive.api.table import merge_api
from sglang_lint.derive.releases.merge import catalog_facts, tree_facts, write_merged
from sglang_lint.derive.releases.history import gone_rules, site_history, site_signature
from sglang_lint.derive.api.sampling import merge_sampling
from sglang_lint.derive.startup.table import merge_startup
from sglang_lint.derive.sites.writing import _read_lock, _with_range, older_checks_of
from test_derive import TREE, _snapshot
from test_serve_commands import TREE as COMMAND_FILES

OLDEST, OLDER, NEWEST = "9.9.7", "9.9.8", "9.9.9"

LEGACY = '\n\ndef legacy_only(level):\n    if level not in (1, 2):\n        raise ValueError("level")\n'
ANCIENT = '\n\ndef ancient(depth):\n    if depth not in ("shallow", "deep"):\n        raise ValueError("depth")\n'
DEPRECATING = '''

def _handle_deprecated_args(cfg):
    renamed = {"lru": "lpm"}
    if cfg.schedule_policy in renamed:
        logger.warning(f"schedule_policy {cfg.schedule_policy} is deprecated")
        cfg.schedule_policy = renamed[cfg.schedule_policy]
'''


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def stand_in(folder: Path, version: str) -> Path:
    """The test tree as release ``version`` has it. 9.9.9 is the tree itself with the `sglang`
    command. Older: allowed_tuple's set grew twice (9.9.8, 9.9.9); legacy_only's raise site
    is in 9.9.7-9.9.8, ancient's in 9.9.7 alone, truthy's from 9.9.8; canary_data and its flag
    from 9.9.8; kv_cache_dtype's 'bf16' from 9.9.8, 'fp8_e5m2' in 9.9.8 alone; the alias --tp
    and the hand-registered --legacy-manual until 9.9.9; deprecated flags and a deprecated value
    from 9.9.8 (--gone-soon in 9.9.8 alone); the `sglang` command from 9.9.8, generate's
    --num-seeds in 9.9.9 alone."""
    root = folder / version
    shutil.copytree(TREE, root)
    (root / "sglang" / "_version.py").write_text(f'__version__ = "{version}"\n', encoding="utf-8")
    srt, capture = root / "sglang" / "srt", root / "sglang" / "modes" / "capture.py"
    server_args, choices = srt / "server_args.py", srt / "arg_groups" / "choices.py"
    fields = srt / "arg_groups" / "fields" / "exec_.py"
    newest = version == NEWEST
    if version != OLDEST:
        commands = dict(COMMAND_FILES)
        del commands["sglang/_version.py"]
        for name, text in commands.items():
            if newest and name.endswith("entry.py"):
                text = text.replace('add("--prompt", "-p")', 'add("--prompt", "-p")\n    add("--num-seeds")')
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        gone_soon = '' if newest else '\n        parser.add_argument("--gone-soon", action=DeprecatedAction)'
        _edit(server_args, '        parser.add_argument("--config", type=str)\n',
              '        parser.add_argument("--config", type=str)\n'
              '        parser.add_argument("--old-graphs-flag", action=DeprecatedStoreTrueAction, '
              f'new_flag="--new-graphs"){gone_soon}\n')
        server_args.write_text(server_args.read_text(encoding="utf-8") + DEPRECATING, encoding="utf-8")
    if newest:
        return root
    _edit(fields, '"--tensor-parallel-size"]', '"--tensor-parallel-size", "--tp"]')
    _edit(server_args, '        parser.add_argument("--config", type=str)\n',
          '        parser.add_argument("--config", type=str)\n        parser.add_argument("--legacy-manual")\n')
    capture.write_text(capture.read_text(encoding="utf-8") + LEGACY, encoding="utf-8")
    if version == OLDER:
        _edit(capture, '("pre_rope", "post_rope")', '("pre_rope", "mid_rope")')
        _edit(choices, '"bf16"]', '"bf16", "fp8_e5m2"]')
        return root
    _edit(capture, '("pre_rope", "post_rope")', '("pre_rope",)')
    capture.write_text(capture.read_text(encoding="utf-8") + ANCIENT, encoding="utf-8")
    _edit(capture, '        raise ValueError("name must be set")\n', "        pass\n")
    _edit(choices, ', "bf16"]', "]")
    _edit(fields, '    canary_data: str = "none"\n', "")
    canary = '        parser.add_argument("--canary-data", choices=[m.name.lower() for m in _canary_modes()])\n'
    _edit(server_args, canary, "")
    return root


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    folder = tmp_path_factory.mktemp("releases")
    return {version: stand_in(folder, version) for version in (OLDEST, OLDER, NEWEST)}


def full_derive(trees: dict, rules: Path, releases: list[str]) -> None:
    """What `catalog derive --releases` writes for ``releases`` (oldest first): each older
    release's facts from its tree without fails-when rules (as releases.release_rules derives
    them), the newest's whole derivation."""
    *older, newest = releases
    for release in releases:  # the public API's and the sampling parameters' tables (read by the rules)
        merge_api(rules, release, trees[release], alone=release == releases[0])
        merge_sampling(rules, release, trees[release], alone=release == releases[0])
    facts = {r: tree_facts(trees[r], derive_sites(trees[r], paths=False), rules=True) for r in older}
    derivation = derive_sites(trees[newest])
    write_merged(derivation, rules, {**facts, newest: tree_facts(trees[newest], derivation)})
    for release in releases:  # the start-up table, each release's rules from its tree
        merge_startup(rules, release, trees[release], alone=release == releases[0])


@pytest.fixture(scope="module")
def catalogs(trees, tmp_path_factory):
    """The catalog of 9.9.7-9.9.8 (`before`); the full derive of 9.9.7-9.9.9 over a copy of it
    (`full`); 9.9.9 merged by the command into another copy (`merged`, and its output)."""
    folder = tmp_path_factory.mktemp("catalogs")
    before = folder / "before"
    (before / DERIVED_DIR).mkdir(parents=True)
    full_derive(trees, before, [OLDEST, OLDER])
    full, merged = folder / "full", folder / "merged"
    shutil.copytree(before, full)
    shutil.copytree(before, merged)
    full_derive(trees, full, [OLDEST, OLDER, NEWEST])
    done = lint_in_process("catalog", "derive", "--sglang", str(trees[NEWEST]), "--rules", str(merged))
    return SimpleNamespace(before=before, full=full, merged=merged, done=done)


def test_a_newer_release_merged_into_the_catalog_is_the_full_derive_of_every_release(catalogs):
    """Rule for rule, table for table: each rule's first release and older checks, the rules of
    raise sites only older releases have, the server-argument and subcommand tables, the index,
    the re-exports, the launchers, the codes. (The codes a release's new raise sites take are the
    next free ones of the catalog it is merged into: the full derive runs over the same catalog,
    as `catalog derive --releases` runs over the shipped rules/.)"""
    done = catalogs.done
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith("sglang 9.9.9 merged into the catalog of sglang 9.9.7 to 9.9.8: 3 releases "
                                  "(9.9.7 to 9.9.9); rules from 9.9.9\nsglang 9.9.9 at ")
    full, merged = _snapshot(catalogs.full), _snapshot(catalogs.merged)
    assert sorted(full) == sorted(merged)
    assert [name for name in full if full[name] != merged[name]] == []
    assert merged != _snapshot(catalogs.before)


def _rule(rules: Path, function: str) -> dict:
    rules = [read_toml(p) for p in (rules / DERIVED_DIR).glob("SGL*.toml")]
    (found,) = [r for r in rules if r["raise_site"]["function"] == function and r["check"][0]["kind"] != "fails-when"]
    return found


def test_the_merge_records_the_new_release_everywhere_the_full_derive_does(catalogs):
    """What the equality above covers: every kind of range ends or starts at the merged release."""
    merged = catalogs.merged
    allowed = _rule(merged, "allowed_tuple")  # its set grew again: a third check
    assert [(c.get("since"), c.get("until"), c["values"]) for c in allowed["check"]] == [
        ("9.9.9", None, ["pre_rope", "post_rope"]), ("9.9.8", "9.9.9", ["pre_rope", "mid_rope"]),
        (None, "9.9.8", ["pre_rope"])]
    legacy, ancient = _rule(merged, "legacy_only")["raise_site"], _rule(merged, "ancient")["raise_site"]
    assert (legacy.get("since"), legacy["until"], ancient.get("since"), ancient["until"]) == (None, "9.9.9", None,
                                                                                              "9.9.8")
    assert _rule(merged, "truthy")["raise_site"]["since"] == "9.9.8"
    table = read_toml(merged / DERIVED_DIR / SERVER_ARGS_TABLE)
    assert table["releases"] == [OLDEST, OLDER, NEWEST] and table["sglang_version"] == NEWEST
    assert table["manual_flag_ranges"]["--legacy-manual"] == ["", "9.9.9"]
    assert table["fields"]["tp_size"]["flag_ranges"] == {"--tp": ["", "9.9.9"]}
    assert table["fields"]["kv_cache_dtype"]["choice_ranges"] == {"bf16": ["9.9.8", ""], "fp8_e5m2": ["9.9.8", "9.9.9"]}
    assert table["fields"]["canary_data"]["since"] == "9.9.8"
    assert table["deprecated_flags"] == {
        "--gone-soon": {"action": "DeprecatedAction", "since": "9.9.8", "until": "9.9.9"},
        "--old-graphs-flag": {"action": "DeprecatedStoreTrueAction", "new": "--new-graphs", "since": "9.9.8"}}
    assert table["deprecated_values"] == {"schedule_policy": {"lru": {"new": "lpm", "exact": True, "since": "9.9.8"}}}
    serve = read_toml(merged / DERIVED_DIR / "serve.toml")
    assert serve["serve"]["range"] == ["9.9.8", ""]
    assert serve["parsers"]["generate"]["flag_ranges"] == {"--num-seeds": ["9.9.9", ""]}


def test_the_merged_catalog_s_newest_tree_changes_nothing_and_an_older_one_writes_nothing(
        catalogs, trees, tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(catalogs.merged, rules)
    before = _snapshot(rules)
    again = lint_in_process("catalog", "derive", "--sglang", str(trees[NEWEST]), "--rules", str(rules))
    assert again.returncode == 0 and " merged into " not in again.stdout and _snapshot(rules) == before
    older = lint_in_process("catalog", "derive", "--sglang", str(trees[OLDER]), "--rules", str(rules))
    assert (older.returncode, older.stdout) == (0, "sglang 9.9.8 is one of the 3 releases the catalog merges "
                                                   "(9.9.7 to 9.9.9), not its newest: nothing to write\n")
    assert _snapshot(rules) == before


def _refused(tree: Path, rules: Path) -> str:
    before = _snapshot(rules)
    done = lint_in_process("catalog", "derive", "--sglang", str(tree), "--rules", str(rules))
    assert (done.returncode, done.stdout) == (2, "") and _snapshot(rules) == before
    return done.stderr


@pytest.mark.parametrize("version, why", [
    ("9.9.9+local.2", "'9.9.9+local.2' is not an sglang release like 0.5.23 or 0.5.10.post1: the catalog merges "
                      "sglang 9.9.7 to 9.9.8, and only a release can be merged into it"),
    ("9.9.8rc1", "the catalog merges sglang 9.9.7 to 9.9.8; sglang 9.9.8rc1 is older than 9.9.8 and not one of "
                 "them: a release is merged after the newest only (`sglang-lint catalog derive --releases "
                 "9.9.7..9.9.8` derives every release of pip's index again, 9.9.8rc1 with them)"),
])
def test_a_tree_that_is_no_release_after_the_newest_is_refused(catalogs, trees, tmp_path, version, why):
    tree = tmp_path / "tree"
    shutil.copytree(trees[NEWEST], tree)
    (tree / "sglang" / "_version.py").write_text(f'__version__ = "{version}"\n', encoding="utf-8")
    rules = tmp_path / "rules"
    shutil.copytree(catalogs.before, rules)
    assert _refused(tree, rules) == f"sglang-lint: error: {why}\n"


def test_a_tree_of_no_known_release_is_refused_before_it_is_derived(catalogs, trees, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(trees[NEWEST], tree)
    (tree / "sglang" / "_version.py").unlink()
    rules = tmp_path / "rules"
    shutil.copytree(catalogs.before, rules)
    assert _refused(tree, rules).startswith("sglang-lint: error: the sglang release of this tree is unknown")


def test_a_release_between_the_catalog_s_is_refused(trees, tmp_path):
    rules = tmp_path / "rules"
    (rules / DERIVED_DIR).mkdir(parents=True)
    full_derive(trees, rules, [OLDEST, NEWEST])
    assert _refused(trees[OLDER], rules) == (
        "sglang-lint: error: the catalog merges sglang 9.9.7 to 9.9.9; sglang 9.9.8 is older than 9.9.9 and not one "
        "of them: a release is merged after the newest only (`sglang-lint catalog derive --releases 9.9.7..9.9.9` "
        "derives every release of pip's index again, 9.9.8 with them)\n")


def test_a_table_that_does_not_read_back_as_its_releases_is_refused(catalogs, trees, tmp_path):
    """A table edited by hand (or by another deriver) is not the merge of the releases it lists:
    a merge over it would not be either."""
    rules = tmp_path / "rules"
    shutil.copytree(catalogs.before, rules)
    table = rules / DERIVED_DIR / SERVER_ARGS_TABLE
    _edit(table, '"fp8_e5m2" = ["9.9.8", ""]', '"fp8_e5m2" = ["9.9.8", "9.9.8"]')  # a range of no release
    assert _refused(trees[NEWEST], rules) == (
        f"sglang-lint: error: {table} is not what the merge of the releases it records writes: run "
        "`sglang-lint catalog derive --releases 9.9.7..9.9.8` to rebuild it\n")


def test_the_shipped_catalog_reads_back_as_the_catalog_it_is():
    """Each release of the shipped catalog, read back from its files (catalog_facts; the tables
    are checked as it reads them): the rules of raise sites only older releases have come out as
    their files, each rule of the newest release with its first release and older checks."""
    rules = ROOT / "rules"
    facts = catalog_facts(rules)
    *older, newest = facts
    assert (older[0], newest) == ("0.5.1", "0.5.23") and len(facts) == 42
    current = facts[newest].rules
    derivation = SimpleNamespace(version=newest, rules=[SimpleNamespace(key=key) for key in sorted(current)])
    gone = gone_rules(derivation, {release: facts[release].rules for release in older})
    lock = _read_lock(rules / DERIVED_DIR / "codes.lock")
    assert len(gone) > 100
    for key, (entry, since, until) in gone.items():
        path = rules / DERIVED_DIR / f"{lock[key]}-{entry['name']}.toml"
        assert path.read_text(encoding="utf-8") == _with_range(entry["text"], lock[key], since, until), key
    history = {release: facts[release].rules for release in older}
    since, older_checks = site_history(derivation, {**history, newest: current})
    assert since == {key: first for key, first in catalog_history(rules).since.items() if key in current}
    assert older_checks == older_checks_of(rules) != {}


def test_a_rule_s_signature_reads_back_as_its_release_s_own(trees, tmp_path):
    """Whether the new release checks what the catalog's newest did is told by their signatures:
    the one read back from a rule file is the derivation's."""
    rules = tmp_path / "rules"
    (rules / DERIVED_DIR).mkdir(parents=True)
    full_derive(trees, rules, [OLDEST, OLDER])
    read_back = catalog_facts(rules)[OLDER].rules
    own = {site.key: site_signature(site) for site in derive_sites(trees[OLDER], paths=False).rules}
    assert {key: entry["signature"] for key, entry in read_back.items()} == {
        key: signature for key, signature in own.items() if key in read_back}
    assert len(read_back) > 30


def test_a_rule_the_new_release_drops_keeps_the_examples_of_its_file(trees, tmp_path):
    """The one fact of the rule files the merge cannot read back: a dropped rule's examples as
    the older release's own rules (no fails-when rules) make them. The full derive writes
    those (Clip(kind='frame'), which Clip's fails-when check rejects without a Frame); the
    merge keeps the file's (Clip(kind='text')): one line of one file, the check the same."""
    dropped = tmp_path / "9.9.10"
    shutil.copytree(trees[NEWEST], dropped)
    (dropped / "sglang" / "_version.py").write_text('__version__ = "9.9.10"\n', encoding="utf-8")
    guard = ('        if self.kind not in ("frame", "text"):\n'
             '            raise ValueError("kind must be frame or text")\n')
    _edit(dropped / "sglang" / "modes" / "objects.py", guard, "")
    releases = {**trees, "9.9.10": dropped}
    before, full, merged = tmp_path / "before", tmp_path / "full", tmp_path / "merged"
    (before / DERIVED_DIR).mkdir(parents=True)
    full_derive(releases, before, [OLDER, NEWEST])
    shutil.copytree(before, full)
    shutil.copytree(before, merged)
    full_derive(releases, full, [OLDER, NEWEST, "9.9.10"])
    done = lint_in_process("catalog", "derive", "--sglang", str(dropped), "--rules", str(merged))
    assert done.returncode == 0, done.stderr
    full_files, merged_files = _snapshot(full), _snapshot(merged)
    assert sorted(full_files) == sorted(merged_files)
    (name,) = [name for name in full_files if full_files[name] != merged_files[name]]
    assert 'until = "9.9.10"' in merged_files[name].decode()
    full_lines, merged_lines = full_files[name].decode().split("\n"), merged_files[name].decode().split("\n")
    assert len(full_lines) == len(merged_lines)
    assert [(a, b) for a, b in zip(full_lines, merged_lines) if a != b] == [
        ('good = "from sglang.modes.objects import Clip\\n\\nClip(kind=\'frame\')"',
         'good = "from sglang.modes.objects import Clip\\n\\nClip(kind=\'text\')"')]


def test_release_names_the_tree_itself(tmp_path):
    """`--release X` fetches X's wheel (through pip, as --releases does): no tree beside it."""
    for extra in (["--sglang", str(TREE)], ["--wheel", "sglang-9.9.9-py3-none-any.whl"]):
        done = lint_in_process("catalog", "derive", "--release", "9.9.9", *extra, "--rules", str(tmp_path))
        assert (done.returncode, done.stderr) == (
            2, "sglang-lint: error: --release fetches its own tree: not with --sglang or --wheel\n")
    both = lint_in_process("catalog", "derive", "--release", "9.9.9", "--releases", "9.9.8..9.9.9")
    assert both.returncode == 2 and "--releases goes with `catalog derive` alone" in both.stderr
    assert list(tmp_path.iterdir()) == []
