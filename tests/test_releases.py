"""Release ranges: the server-argument tables of several releases merged into one, read back
for a target release (or a range of them), and the messages that say when a name came or
went; the order of release names."""

from __future__ import annotations

import dataclasses

from pathlib import Path

import pytest

from sglang_lint import lint
from sglang_lint.catalog.rules import version_key
from sglang_lint.checks.server_args.table import load_table
from sglang_lint.derive.source.wheels import releases_in
from sglang_lint.derive.source.presence import presence
from sglang_lint.derive.releases.history import merge_server_args, merged_server_args_text
from sglang_lint.derive.server_args.fields import ServerField
from sglang_lint.engine.ruletable import RuleSet, default_rules, load_rules

ROOT = Path(__file__).resolve().parent.parent


def test_release_order():
    names = ["0.5.15.post1", "0.5.15", "0.5.16", "0.5.2", "0.5.10", "0.5.1.post3", "0.5.1", "0.5.23rc1", "0.5.23"]
    assert sorted(names, key=version_key) == [
        "0.5.1", "0.5.1.post3", "0.5.2", "0.5.10", "0.5.15", "0.5.15.post1", "0.5.16", "0.5.23rc1", "0.5.23",
    ]


def test_releases_in_a_spec():
    known = ["0.5.1", "0.5.2", "0.5.10", "0.5.10.post1", "0.5.11", "0.5.23"]
    assert releases_in("0.5.2..0.5.10.post1", known) == ["0.5.2", "0.5.10", "0.5.10.post1"]
    assert releases_in("0.5.23,0.5.1", known) == ["0.5.1", "0.5.23"]
    with pytest.raises(ValueError, match="no sglang release 0.5.9"):
        releases_in("0.5.9", known)


def test_presence():
    releases = ["a", "b", "c", "d"]
    assert presence([True, True, True, True], releases) == ("", "")
    assert presence([False, True, True, True], releases) == ("b", "")
    assert presence([True, True, False, False], releases) == ("", "c")
    assert presence([False, True, False, True], releases) == ("b", "")  # back again: there in between


def _field(name, choices=(), flags=None, type_="str"):
    flags = ["--" + name.replace("_", "-")] if flags is None else flags
    return ServerField(name, type_, False, tuple(choices), False, tuple(flags))


HISTORY = {
    "0.5.2": ([_field("tp_size", type_="int"), _field("old_strategy", ["a", "b"]),
               _field("backend", ["fa", "triton"])], ["--enable-x"]),
    "0.5.10": ([_field("tp_size", type_="int"), _field("old_strategy", ["a", "b"]),
                _field("backend", ["fa", "triton", "fa3"])], ["--enable-x"]),
    "0.5.20": ([_field("tp_size", type_="int"), _field("new_strategy", ["a", "b"]),
                _field("backend", ["triton", "fa3"], flags=["--backend", "--attn-backend"])], []),
}


@pytest.fixture
def table_file(tmp_path):
    path = tmp_path / "server_args.toml"
    path.write_text(merged_server_args_text(HISTORY), encoding="utf-8")
    load_table.cache_clear()
    return path


def test_the_merge_records_each_item_with_its_releases():
    merged, manual, releases = merge_server_args(HISTORY)
    by_name = {m.field.name: m for m in merged}
    assert releases == ["0.5.2", "0.5.10", "0.5.20"]
    assert by_name["old_strategy"].range == ("", "0.5.20")
    assert by_name["new_strategy"].range == ("0.5.20", "")
    assert by_name["tp_size"].range == ("", "")
    assert by_name["backend"].field.choices == ("triton", "fa3", "fa")  # the newest's order first
    assert by_name["backend"].choice_ranges == {"fa": ("", "0.5.20"), "fa3": ("0.5.10", "")}
    assert by_name["backend"].flag_ranges == {"--attn-backend": ("0.5.20", "")}
    assert manual == {"--enable-x": ("", "0.5.20")}


def test_the_table_of_each_release(table_file):
    newest = load_table(table_file)
    assert newest.version == "0.5.20"
    assert set(newest.fields) == {"tp_size", "new_strategy", "backend"}
    assert newest.fields["backend"].choices == ("triton", "fa3")
    assert "--enable-x" not in newest.known_flags and "--attn-backend" in newest.known_flags
    old = newest.for_releases(["0.5.2"])
    assert set(old.fields) == {"tp_size", "old_strategy", "backend"}
    assert old.fields["backend"].choices == ("triton", "fa")  # listed in the newest order
    assert "--enable-x" in old.known_flags and "--attn-backend" not in old.known_flags
    # A range: what any of its releases accepts.
    both = newest.for_releases(["0.5.2", "0.5.10"])
    assert both.version == "0.5.2..0.5.10"
    assert both.fields["backend"].choices == ("triton", "fa3", "fa")
    assert newest.field_change("old_strategy") == " (removed in sglang 0.5.20)"
    assert old.field_change("new_strategy") == " (added in sglang 0.5.20)"
    assert old.choice_change("backend", "fa3") == " (added in sglang 0.5.10)"
    assert newest.flag_change("--enable-x") == " (removed in sglang 0.5.20)"
    assert both.field_change("new_strategy") == " (added in sglang 0.5.20)"


def test_a_release_whose_choices_are_filled_at_run_time_judges_none_of_them(tmp_path):
    # 0.5.10 builds the list at run time (a plugin extends it): the deriver reads no choices
    # there, so the merged table must not judge 0.5.10 by the other releases' lists.
    history = {release: ([_field("backend", choices)], []) for release, choices in
               (("0.5.2", ["fa"]), ("0.5.10", []), ("0.5.15", []), ("0.5.20", ["fa", "intel_xpu"]))}
    merged, _, _ = merge_server_args(history)
    assert merged[0].open_choices == [("0.5.10", "0.5.20")]
    path = tmp_path / "server_args.toml"
    path.write_text(merged_server_args_text(history), encoding="utf-8")
    load_table.cache_clear()
    newest = load_table(path)
    assert newest.fields["backend"].choices == ("fa", "intel_xpu")
    assert newest.for_releases(["0.5.15"]).fields["backend"].choices == ()
    assert newest.for_releases(["0.5.2"]).fields["backend"].choices == ("fa",)
    assert newest.for_releases(["0.5.2", "0.5.10"]).fields["backend"].choices == ()


def test_a_plugin_hook_holds_in_the_releases_that_have_it(tmp_path):
    # 0.5.10 and 0.5.15 ship a hook that lets a plugin add to the list; 0.5.2 and 0.5.20 do not:
    # a value outside the list is a plain bad choice there, and "or one a plugin registers" here.
    def backend(hooked):
        return dataclasses.replace(_field("backend", ["fa", "triton"]), extensible=hooked)

    history = {release: ([backend(hooked)], []) for release, hooked in
               (("0.5.2", False), ("0.5.10", True), ("0.5.15", True), ("0.5.20", False))}
    merged, _, _ = merge_server_args(history)
    assert merged[0].extensible_runs == [("0.5.10", "0.5.20")]
    path = tmp_path / "server_args.toml"
    path.write_text(merged_server_args_text(history), encoding="utf-8")
    assert 'extensible_runs = [["0.5.10", "0.5.20"]]' in path.read_text(encoding="utf-8")
    load_table.cache_clear()
    newest = load_table(path)
    marks = {release: newest.for_releases([release]).fields["backend"].extensible for release in history}
    assert marks == {"0.5.2": False, "0.5.10": True, "0.5.15": True, "0.5.20": False}
    # a range: open to plugins where one of its releases is (a finding must hold on each)
    assert newest.for_releases(["0.5.2", "0.5.10"]).fields["backend"].extensible is True
    # every release hooked, or none: one mark, no runs
    for hooked in (True, False):
        same = {release: ([backend(hooked)], []) for release in history}
        assert merge_server_args(same)[0][0].extensible_runs == []
        assert "extensible_runs" not in merged_server_args_text(same)


def test_the_shipped_table_reads_back_as_its_newest_release():
    table = load_table(ROOT / "rules" / "derived" / "server_args.toml")
    assert table.version == table.releases[-1] if table.releases else table.version
    assert len(table.fields) > 500 and "tp_size" in table.fields


@pytest.fixture
def rules_dir(tmp_path, table_file):
    folder = tmp_path / "rules"
    (folder / "derived").mkdir(parents=True)
    for rule in default_rules():
        if rule.code in ("SGL006", "SGL008", "SGL009"):
            (folder / rule.path.name).write_text(rule.path.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "derived" / "server_args.toml").write_text(table_file.read_text(encoding="utf-8"), encoding="utf-8")
    copy_launchers(folder)
    return folder


def copy_launchers(folder):
    """The launch entry-point table the server-argument rules name (targets_table), the tables
    of the `sglang` command's subcommands and of the modules run with `python -m` it names, and
    that of other engines' flags (SGL009's)."""
    for name in ("derived/launchers.toml", "derived/serve.toml", "derived/scripts.toml", "foreign_flags.toml"):
        shipped = ROOT / "rules" / name
        (folder / name).write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")


SOURCE = (
    "import sglang as sgl\n"
    "sgl.Engine(old_strategy='a', backend='fa')\n"
    "subprocess.Popen(['python', '-m', 'sglang.launch_server', '--enable-x', '--attn-backend', 'fa3'])\n"
    "import subprocess\n"
)


def _findings(ruleset):
    return [(d.line, d.col, d.code, d.message) for d in lint(SOURCE, "x.py", ruleset)]


def test_a_call_is_judged_against_the_target_release(rules_dir):
    ruleset = RuleSet(load_rules([rules_dir]))
    assert _findings(ruleset.for_releases(["0.5.2"])) == [
        (3, 72, "SGL009", "launch flag --attn-backend: sglang 0.5.2 has no such server argument"
                          " (added in sglang 0.5.20)"),
    ]
    assert _findings(ruleset) == [
        (2, 11, "SGL009", "Engine(old_strategy=...): sglang 0.5.20 has no server argument 'old_strategy'"
                          " (removed in sglang 0.5.20)"),
        (2, 37, "SGL006", "Engine(backend='fa'): not a choice of sglang 0.5.20's backend (removed in sglang 0.5.20);"
                          " expected one of 'triton', 'fa3' (did you mean 'fa3'? fixable with `sglang-lint --fix`)"),
        (3, 58, "SGL009", "launch flag --enable-x: sglang 0.5.20 has no such server argument"
                          " (removed in sglang 0.5.20)"),
    ]
    # A range: a finding only where every release of it fails (backend='fa', --enable-x are fine in both).
    assert _findings(ruleset.for_releases(["0.5.2", "0.5.10"])) == [
        (3, 72, "SGL009", "launch flag --attn-backend: sglang 0.5.2..0.5.10 has no such server argument"
                          " (added in sglang 0.5.20)"),
    ]


# --- the shipped catalog, merged over every release from 0.5.1 ---------------------------------

LAUNCH = "import subprocess\n\nsubprocess.Popen(['python', '-m', 'sglang.launch_server', {flags}])\n"


def _shipped(release: str, flags: str):
    ruleset = RuleSet(default_rules()).for_releases([release])
    found = lint(LAUNCH.format(flags=flags), "x.py", ruleset)
    return [(d.code, d.message, d.fix and (d.fix.new, d.fix.safe)) for d in found]


def test_a_deprecated_flag_in_a_release_that_still_takes_it_is_sgl011_with_a_safe_fix():
    assert _shipped("0.5.19", "'--mamba-scheduler-strategy', 'auto'") == [
        ("SGL011", "launch flag --mamba-scheduler-strategy: deprecated since sglang 0.5.14, removed in sglang 0.5.20;"
                   " use --mamba-radix-cache-strategy (fixable with `sglang-lint --fix`)",
         ("'--mamba-radix-cache-strategy'", True)),
    ]


def test_the_same_flag_once_removed_is_sgl009_naming_the_replacement():
    assert _shipped("0.5.23", "'--mamba-scheduler-strategy', 'auto'") == [
        ("SGL009", "launch flag --mamba-scheduler-strategy: sglang 0.5.23 has no such server argument (removed in"
                   " sglang 0.5.20); sglang named --mamba-radix-cache-strategy as its replacement (fixable with"
                   " `sglang-lint --fix`)", ("'--mamba-radix-cache-strategy'", True)),
    ]


def test_a_flag_of_a_newer_release_is_unknown_to_an_older_one():
    assert _shipped("0.5.23", "'--attention-backend', 'dsv4'") == []
    # 0.5.1's list is local to the parser (no plugin adds to it): a plain bad choice, SGL006;
    # from 0.5.2 a plugin may extend the list, so the same value is SGL007 there
    assert [code for code, *_ in _shipped("0.5.1", "'--attention-backend', 'dsv4'")] == ["SGL006"]
    assert [code for code, *_ in _shipped("0.5.11", "'--attention-backend', 'dsv4'")] == ["SGL007"]
    assert _shipped("0.5.15.post1", "'--attention-backend', 'dsv4'") == []  # dsv4 came in 0.5.12
    assert _shipped("0.5.2", "'--cuda-graph-backend-decode', 'full'") == [
        ("SGL009", "launch flag --cuda-graph-backend-decode: sglang 0.5.2 has no such server argument (added in"
                   " sglang 0.5.14)", None),
    ]


def _forbid_parsing(monkeypatch):
    """From here on, parsing TOML fails the test (what follows must come from the cache);
    returns the real parser."""
    from sglang_lint.core import rulefile

    real = rulefile.tomllib.loads

    def no_parse(text):
        raise AssertionError("parsed again")

    monkeypatch.setattr(rulefile.tomllib, "loads", no_parse)
    return real


def test_a_big_table_is_parsed_once_and_read_back_from_the_cache(tmp_path, monkeypatch):
    from sglang_lint.core import rulefile

    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    table = tmp_path / "big.toml"
    table.write_text("".join(f"key{n} = {n}\n" for n in range(4000)), encoding="utf-8")
    assert table.stat().st_size >= rulefile.PARSED_CACHE_MIN_BYTES
    first = rulefile.read_toml(table)
    assert len(list((tmp_path / "cache" / "tables").glob("*.marshal"))) == 1
    _forbid_parsing(monkeypatch)
    assert rulefile.read_toml(table) == first == {f"key{n}": n for n in range(4000)}
    # A changed file is another key: parsed again (and here the parser is gone, so it says so).
    table.write_text(table.read_text(encoding="utf-8") + "more = 1\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="parsed again"):
        rulefile.read_toml(table)


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path, monkeypatch):
    from sglang_lint.core import rulefile

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("SGLANG_LINT_CACHE", str(blocker))
    table = tmp_path / "big.toml"
    table.write_text("".join(f"key{n} = {n}\n" for n in range(4000)), encoding="utf-8")
    assert rulefile.read_toml(table)["key3999"] == 3999


def test_a_replacement_is_named_only_once_the_flag_is_gone():
    # 0.5.6 predates the flag (added in 0.5.7): no word of a replacement it does not have either.
    assert _shipped("0.5.6", "'--mamba-scheduler-strategy', 'auto'") == [
        ("SGL009", "launch flag --mamba-scheduler-strategy: sglang 0.5.6 has no such server argument (added in"
                   " sglang 0.5.7)", None),
    ]


def test_a_rule_folder_is_parsed_once_and_an_edit_takes_effect_on_the_next_load(tmp_path, monkeypatch):
    from sglang_lint.core import rulefile

    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "rules"
    folder.mkdir()
    for rule in default_rules()[:3]:
        (folder / rule.path.name).write_text(rule.path.read_text(encoding="utf-8"), encoding="utf-8")
    first = [r.title for r in load_rules([folder])]
    real = _forbid_parsing(monkeypatch)
    assert [r.title for r in load_rules([folder])] == first  # from the cache: nothing parsed
    monkeypatch.setattr(rulefile.tomllib, "loads", real)
    edited = sorted(folder.glob("SGL*.toml"))[0]
    edited.write_text(edited.read_text(encoding="utf-8").replace(f'title = "{first[0]}"', 'title = "Edited"', 1),
                      encoding="utf-8")
    assert [r.title for r in load_rules([folder])] == ["Edited", *first[1:]]


# --- a raise site whose check changed between releases: one [[check]] per run of releases ----

RANGED_RULE = """
code = "SGL101"
name = "make-cache"
title = "make_cache: kind must be one the release knows"
catalog_id = "0123456789abcdef"

[raise_site]
module = "sglang.x"
function = "make_cache"
exception = "ValueError"
message = "bad kind"
sglang_version = "0.5.20"
since = "0.5.2"

[[check]]
kind = "allowed-values"
since = "0.5.10"
summary = "bad kind"
values = ["file", "shm"]

[[check.target]]
function = "sglang.x.make_cache"
argument = "kind"
position = 1

[[check]]
kind = "allowed-values"
since = "0.5.2"
until = "0.5.10"
summary = "bad kind"
values = ["file", "nixl"]

[[check.target]]
function = "sglang.x.make_cache"
argument = "kind"
position = 0

[docs]
why = "because"
bad = "make_cache(kind='x')"
good = "make_cache(kind='file')"
"""

CALLS = "from sglang.x import make_cache\nmake_cache(kind='shm')\nmake_cache(kind='nixl')\nmake_cache('file', 'zzz')\n"


@pytest.mark.parametrize("releases, expected", [
    # The newest: its own set, its own position.
    ((), [(3, 16, "expected one of 'file', 'shm'"), (4, 19, "expected one of 'file', 'shm'")]),
    (("0.5.10",), [(3, 16, "expected one of 'file', 'shm'"), (4, 19, "expected one of 'file', 'shm'")]),
    # An older release: what it checked then ('zzz' is at position 1, which it did not check).
    (("0.5.6",), [(2, 16, "expected one of 'file', 'nixl'")]),
    # A range over both: a value is wrong only where no release takes it; the argument moved,
    # so only its keyword form is judged.
    (("0.5.6", "0.5.10"), []),
    # Before the raise site: nothing.
    (("0.5.1",), []),
])
def test_a_raise_site_checks_what_each_release_has(tmp_path, releases, expected):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "SGL101-make-cache.toml").write_text(RANGED_RULE, encoding="utf-8")
    ruleset = RuleSet(load_rules([folder])).for_releases(releases)
    found = lint(CALLS, "x.py", ruleset)
    assert [(d.line, d.col, d.message.rsplit("; ", 1)[-1].split(" (did")[0]) for d in found] == expected


def test_a_range_over_a_changed_allowed_set_judges_against_the_union(tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "SGL101-make-cache.toml").write_text(RANGED_RULE, encoding="utf-8")
    ruleset = RuleSet(load_rules([folder])).for_releases(["0.5.6", "0.5.10"])
    found = lint("from sglang.x import make_cache\nmake_cache(kind='s3')\n", "x.py", ruleset)
    assert [(d.line, d.col, d.message) for d in found] == [
        (2, 16, "make_cache(kind='s3'): bad kind; expected one of 'file', 'shm', 'nixl'"),
    ]


def test_the_shipped_catalog_holds_each_release_s_allowed_set():
    source = "from sglang.srt.configs.device_config import DeviceConfig\nDeviceConfig(device='mps')\n"

    def codes(release):
        return [d.code for d in lint(source, "x.py", RuleSet(default_rules()).for_releases([release]))]

    assert codes("0.5.9") == ["SGL476"]  # 'mps' came in 0.5.10
    assert codes("0.5.10") == codes("0.5.12.post1") == []
    assert codes("0.5.13") == []  # the raise site is gone


# --- values sglang deprecated: mapped to a replacement for some releases, then dropped --------

DEPRECATING = '''
def _handle_deprecated_args(server_args, cfg):
    deprecated_parsers = {"qwen25": "qwen"}
    if cfg.tool_call_parser in deprecated_parsers:
        logger.warning(f"The tool_call_parser {cfg.tool_call_parser} is deprecated.")
        cfg.tool_call_parser = deprecated_parsers[cfg.tool_call_parser]
    aliases = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
    for attr in ("attention_backend", "decode_attention_backend"):
        old = getattr(server_args, attr, None)
        if old in aliases:
            logger.warning("--%s=%s is deprecated", attr, old)
            setattr(server_args, attr, aliases[old])
    if "tokenspeed_mla" in (cfg.attention_backend,):
        cfg.kv_cache_dtype = "fp8_e4m3"
    names = {"a": "b"}
    if cfg.load_format in names:  # a mapping, but no word of deprecation: not one
        cfg.load_format = names[cfg.load_format]
'''


def test_deprecated_values_are_read_from_the_mapping_sglang_warns_with():
    import ast

    from sglang_lint.derive.server_args.deprecations import deprecated_values

    assert deprecated_values([ast.parse(DEPRECATING)]) == {
        "tool_call_parser": {"qwen25": ("qwen", True)},
        # tokenspeed_mla does more than the mapping (it sets the KV cache dtype): not exact
        "attention_backend": {"compressed": ("dsv4", True), "tokenspeed_mla": ("cutedsl_mla", False)},
        "decode_attention_backend": {"compressed": ("dsv4", True), "tokenspeed_mla": ("cutedsl_mla", False)},
    }


@pytest.fixture
def deprecating_rules(tmp_path):
    """HISTORY, with 'fa' deprecated in 0.5.10 (mapped to 'fa3') and removed in 0.5.20."""
    from sglang_lint.derive.releases.history import merge_deprecated_values

    values = {"0.5.2": {}, "0.5.10": {"backend": {"fa": ("fa3", True)}}, "0.5.20": {}}
    assert merge_deprecated_values(values) == {"backend": {"fa": ("fa3", True, "0.5.10", "0.5.20")}}
    folder = tmp_path / "rules"
    (folder / "derived").mkdir(parents=True)
    for rule in default_rules():
        if rule.code in ("SGL006", "SGL011"):
            (folder / rule.path.name).write_text(rule.path.read_text(encoding="utf-8"), encoding="utf-8")
    table = merged_server_args_text(HISTORY, None, values)
    (folder / "derived" / "server_args.toml").write_text(table, encoding="utf-8")
    copy_launchers(folder)
    load_table.cache_clear()
    return RuleSet(load_rules([folder]))


VALUES = (
    "import subprocess\nimport sglang as sgl\n"
    "sgl.Engine(backend='fa')\n"
    "subprocess.run(['python', '-m', 'sglang.launch_server', '--backend=fa'])\n"
)


def _value_findings(ruleset):
    found = lint(VALUES, "x.py", ruleset)
    return [(d.line, d.col, d.code, d.message, d.fix and (d.fix.new, d.fix.safe)) for d in found]


def test_a_deprecated_value_is_sgl011_then_once_removed_sgl006_naming_the_replacement(deprecating_rules):
    assert _value_findings(deprecating_rules.for_releases(["0.5.2"])) == []  # not yet deprecated
    assert _value_findings(deprecating_rules.for_releases(["0.5.10"])) == [
        (3, 19, "SGL011", "Engine(backend='fa'): deprecated since sglang 0.5.10, removed in sglang 0.5.20; use 'fa3'"
                          " (fixable with `sglang-lint --fix`)", ("'fa3'", True)),
        (4, 56, "SGL011", "launch flag --backend 'fa': deprecated since sglang 0.5.10, removed in sglang 0.5.20;"
                          " use 'fa3' (fixable with `sglang-lint --fix`)", ("'--backend=fa3'", True)),
    ]
    assert _value_findings(deprecating_rules) == [
        (3, 19, "SGL006", "Engine(backend='fa'): not a choice of sglang 0.5.20's backend (removed in sglang 0.5.20);"
                          " expected one of 'triton', 'fa3'; sglang named 'fa3' as its replacement (fixable with"
                          " `sglang-lint --fix`)",
         ("'fa3'", True)),
        (4, 56, "SGL006", "launch flag --backend 'fa': not a choice of sglang 0.5.20's backend (removed in sglang"
                          " 0.5.20); expected one of 'triton', 'fa3'; sglang named 'fa3' as its replacement (fixable"
                          " with `sglang-lint --fix`)", ("'--backend=fa3'", True)),
    ]


def test_the_shipped_table_holds_sglang_s_deprecated_values():
    source = "import sglang as sgl\nsgl.Engine(tool_call_parser='qwen25', attention_backend='tokenspeed_mla')\n"

    def found(release):
        ruleset = RuleSet(default_rules()).for_releases([release])
        return [(d.code, d.message, d.fix and d.fix.new) for d in lint(source, "x.py", ruleset)]

    assert found("0.5.23") == [
        ("SGL011", "Engine(tool_call_parser='qwen25'): deprecated since sglang 0.5.3.post1; use 'qwen' (fixable with"
                   " `sglang-lint --fix`)", "'qwen'"),
        ("SGL011", "Engine(attention_backend='tokenspeed_mla'): deprecated since sglang 0.5.23; use 'cutedsl_mla'"
                   " (sglang changes other settings along with it: no automatic fix)", None),
    ]
    # 0.5.1: tokenspeed_mla not a choice yet, of a list no plugin extends (its tool-call parsers
    # were filled at run time)
    assert [code for code, *_ in found("0.5.1")] == ["SGL006"]
    # 0.5.2: the attention backends are a list a plugin extends (read as shipped); qwen25 not deprecated yet
    assert [code for code, *_ in found("0.5.2")] == ["SGL007"]
