"""The compiled rule index (catalog/index.py): rebuilt when a rule file, a data table, an extra rule
folder or the tool's version changes; a corrupt index is rebuilt, never trusted; and what it
skips, the full prefilter skips too (behaviour is the same with it and without it)."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, fixture_files
from sglang_lint.catalog import index as index_module
from sglang_lint.catalog import rule_data as rule_data_module
from sglang_lint.catalog.index import fingerprint
from sglang_lint.engine.lint import analyse, lint
from sglang_lint.engine.ruletable import RuleSet, default_rules, rules_of
from sglang_lint.frontends.indexes import new_run, rule_index
from sglang_lint.frontends.runner import triggered
from sglang_lint.launch.paths import is_launch_file
from sglang_lint.screen.prefilter import index_screen
from sglang_lint.text.pynames import module_name_for
from snippets import CAPTURE_IMPORT

RULES = ROOT / "rules"
SGL001 = next(RULES.glob("SGL001-*.toml"))
SGLANG_TREE = Path(os.environ.get("SGLANG_LINT_CACHE", Path.home() / ".cache" / "sglang-lint")) / "sglang-0.5.23"


def a_new_run() -> None:
    """What a new run of the command finds: no index read yet, in the process or the run."""
    index_module._LOADED.clear()
    new_run()


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    a_new_run()
    yield tmp_path / "cache" / "tables"
    a_new_run()


@pytest.fixture
def rules_copy(tmp_path):
    folder = tmp_path / "rules"
    shutil.copytree(RULES, folder)
    return folder


def index_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("index-*.marshal"))


def test_the_index_holds_the_catalog_codes_and_is_kept(private_cache):
    index = rule_index()
    assert index.codes == tuple(rule.code for rule in default_rules())
    assert len(index_files(private_cache)) == 1
    a_new_run()
    assert rule_index().codes == index.codes  # read back from the file
    assert len(index_files(private_cache)) == 1


def test_editing_a_rule_file_takes_effect_on_the_next_run(private_cache, rules_copy):
    source = "from mypkg import brand_new_callee\nbrand_new_callee(mode='x')\n"
    assert not rule_index([rules_copy]).mentions(source)
    rule = rules_copy / SGL001.name
    text = rule.read_text()
    assert 'function = "sglang.multimodal_gen' in text
    rule.write_text(text.replace("[[check.target]]\n", "[[check.target]]\nfunction = \"mypkg.brand_new_callee\"\n"
                                 "argument = \"mode\"\n\n[[check.target]]\n", 1))
    new_run()
    edited = rule_index([rules_copy])
    assert edited.mentions(source) and len(index_files(private_cache)) == 2


def test_a_data_table_or_the_tool_version_changes_the_key(rules_copy, monkeypatch):
    before = fingerprint([rules_copy])
    table = rules_copy / "derived" / "launchers.toml"
    table.write_text(table.read_text() + "\n")
    after_table = fingerprint([rules_copy])
    assert after_table != before
    monkeypatch.setattr(index_module, "__version__", "99.0")
    assert fingerprint([rules_copy]) != after_table


def test_an_extra_rule_folder_is_part_of_the_index(private_cache, tmp_path):
    extra = tmp_path / "team-rules"
    extra.mkdir()
    text = SGL001.read_text().replace('code = "SGL001"', 'code = "SGL951"').replace(
        "set_capture_flag_on_blocks", "team_capture_helper")
    (extra / "SGL951-team.toml").write_text(text)
    index = rule_index([RULES, extra])
    assert "SGL951" in index.codes and "SGL951" not in rule_index().codes
    assert index.mentions("team_capture_helper(t, mode='x')")


@pytest.fixture(scope="module")
def built_tables(tmp_path_factory):
    """A cache's tables as a first run leaves them (the index, and the rule data of a sample of
    the rules, which read back as the rule files' rules): made once, copied by each damage."""
    built = tmp_path_factory.mktemp("built") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SGLANG_LINT_CACHE", str(built))
        a_new_run()
        codes = _sample_codes(rule_index())
        expected = _fresh_rules(codes)
        assert expected == _expected(codes)
        a_new_run()
    return built / "tables", codes, expected


@pytest.mark.parametrize("garbage", [b"", b"not marshal at all", b"\xe9\x00\x00\x00", "other shape", "names edited",
                                     "details edited"])
def test_a_corrupt_index_is_built_again_never_trusted(private_cache, built_tables, garbage):
    import marshal

    shutil.copytree(built_tables[0], private_cache)
    good = rule_index()  # (read back from the index a first run built)
    (path,) = index_files(private_cache)
    if garbage == "other shape":
        garbage = marshal.dumps((index_module.FORMAT, ("SGL001",), ("x",), (("y", "call", (), None),)))
    elif isinstance(garbage, str):  # a part changed, its checksum not: a file cut or edited
        fmt, names_digest, names, details_digest, details = marshal.loads(path.read_bytes())
        if garbage == "names edited":
            names = names.replace(b"set_capture_flag_on_blocks", b"set_capture_flag_on_blockz")
        else:
            details = details.replace(b"SGL001", b"SGL999")
        garbage = marshal.dumps((fmt, names_digest, names, details_digest, details))
    path.write_bytes(garbage)
    a_new_run()
    again = rule_index()
    assert again.codes == good.codes and again.names == good.names
    bad = CAPTURE_IMPORT + "set_capture_flag_on_blocks(blocks, mode='x')\n"
    assert index_screen(again).codes_for(bad) == {"SGL001"}
    assert path.read_bytes() != garbage  # written again


def test_only_the_names_are_unpacked_until_a_file_mentions_one(private_cache):
    rule_index()
    a_new_run()
    index = rule_index()  # read back from the file
    assert not index.mentions("import os\nos.getcwd()\n")
    assert callable(index._details)  # the codes and triggers not unpacked
    assert "SGL001" in index.codes and not callable(index._details)


def test_old_index_files_are_pruned(private_cache):
    private_cache.mkdir(parents=True)
    for number in range(index_module.KEEP_INDEXES + 5):
        stale = private_cache / f"index-stale{number}.marshal"
        stale.write_bytes(b"old")
        os.utime(stale, ns=(number * 10**9, number * 10**9))
    rule_index()
    left = {path.name for path in index_files(private_cache)}
    assert len(left) == index_module.KEEP_INDEXES + 1  # the newest stale ones and the new index
    assert "index-stale0.marshal" not in left and f"index-stale{index_module.KEEP_INDEXES + 4}.marshal" in left


def test_an_installed_catalog_is_stamped_by_its_folders(rules_copy, monkeypatch):
    """Inside a wheel's package the catalog changes only as pip installs it: its folders'
    stamps key the index (a few stats, however many rules); pip adding, removing or replacing
    files changes them. Elsewhere (a checkout, extra-rules) every file is stamped."""
    monkeypatch.setattr(index_module, "shipped_rules_folder", lambda: os.path.realpath(rules_copy))
    lines = []
    index_module._folders(str(rules_copy), lines)
    assert len(lines) == 2  # rules/ and rules/derived/: no file stamped
    before = fingerprint([rules_copy])
    rule = rules_copy / SGL001.name
    rule.write_text(rule.read_text())  # rewritten in place: pip never does this
    os.utime(rules_copy, ns=(os.stat(rules_copy).st_atime_ns, os.stat(rules_copy).st_mtime_ns))
    assert fingerprint([rules_copy]) == before
    (rules_copy / "derived" / "SGL9999-new.toml").write_text("")  # a file added (an upgrade)
    added = fingerprint([rules_copy])
    assert added != before
    shutil.rmtree(rules_copy)  # a reinstall: the same files written anew, as pip writes them
    for source in RULES.rglob("*.toml"):
        target = rules_copy / source.relative_to(RULES)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    assert fingerprint([rules_copy]) not in (before, added)
    monkeypatch.setattr(index_module, "shipped_rules_folder", lambda: None)
    assert fingerprint([rules_copy]) not in (before, added)  # a checkout: stamped file by file


def _sources():
    files = list(fixture_files()) + sorted((ROOT / "tests" / "fixtures" / "launch").glob("*.py"))
    if (SGLANG_TREE / "sglang").is_dir():
        tree = sorted((SGLANG_TREE / "sglang").rglob("*.py"))
        files += random.Random(19).sample(tree, min(400, len(tree)))
    return files


def test_what_the_index_skips_the_full_prefilter_skips_too():
    index, full = rule_index(), RuleSet(default_rules())
    passed = 0
    for path in _sources():
        data = path.read_bytes()
        module = module_name_for(str(path))[0]
        if not index_screen(index).may_match(data, module):
            assert not full.may_match_any_release(data, module), path
        else:
            passed += 1
    assert passed >= len(fixture_files())  # every fixture passes it (each has findings)


def test_the_rules_a_file_needs_find_what_the_whole_catalog_finds():
    """A run over a few files reads only the rules whose triggers they hold (codes_for, then
    rules_of): on every fixture and the sample of sglang's tree, the same findings as with
    every rule loaded."""
    full = RuleSet(default_rules())
    for path in _sources():
        data = path.read_bytes()
        codes = index_screen(rule_index()).codes_for(data, module_name_for(str(path))[0])
        expected = lint(data, str(path), full)
        assert lint(data, str(path), RuleSet(rules_of(codes, rule_index()))) == expected, path
        assert {d.code for d in expected} <= codes | {"SGL900"}


def test_a_run_reads_just_the_rules_its_files_trigger_and_finds_the_same():
    """The command's runner (frontends/runner.py ``triggered``) reads the rules the files it
    lints trigger: a Python file's codes_for, a launch file's (shell, Markdown, YAML, a
    script by its shebang) the launch rules. Counted; and the findings of every file the
    same as with every rule of the catalog loaded."""
    launch_files = [p for p in sorted((ROOT / "tests" / "fixtures" / "launch").rglob("*"))
                    if p.is_file() and not p.name.endswith((".out", ".py"))]
    paths = [*_sources(), *launch_files, *sorted((ROOT / "examples" / "serving-project").iterdir())]
    items = [(str(path), path.read_bytes()) for path in paths]
    screen, index = index_screen(rule_index()), rule_index()
    expected = set(index.launch_codes)  # (the fixtures hold launch files)
    for display, data in items:
        if not is_launch_file(display, data[:256]):
            expected |= screen.codes_for(data, module_name_for(display)[0])
    unread = RuleSet(default_rules, identity=((str(RULES),), "all"))  # the whole catalog, not read yet
    narrowed = triggered(unread, items)
    assert "catalog" not in unread.__dict__
    assert sorted(rule.code for rule in narrowed.catalog) == sorted(expected)
    assert 30 < len(expected) < len(index.codes) // 2
    full = RuleSet(default_rules())
    for display, data in items:
        assert analyse(data, display, narrowed) == analyse(data, display, full), display
    assert triggered(full, items) is full  # a set read already stays as it is
    script = ROOT / "tests" / "fixtures" / "launch" / "bin" / "serve"  # a launch file by its shebang alone
    alone = triggered(RuleSet(default_rules, identity=((str(RULES),), "all")), [(str(script), script.read_bytes())])
    assert sorted(rule.code for rule in alone.catalog) == sorted(index.launch_codes)


def test_codes_for_names_the_rules_a_file_triggers():
    source = CAPTURE_IMPORT + "set_capture_flag_on_blocks(t, 'pre')\n"
    assert index_screen(rule_index()).codes_for(source) == {"SGL001"}
    assert index_screen(rule_index()).codes_for("import os\n") == frozenset()
    assert [rule.code for rule in rules_of(["SGL001"], rule_index())] == ["SGL001"]
    assert rules_of(["SGL001"], rule_index())[0] == next(rule for rule in default_rules() if rule.code == "SGL001")


def test_the_index_lists_the_releases_the_rules_know():
    from sglang_lint.catalog.target import known_releases

    assert rule_index().releases == known_releases(default_rules())


def _front(args, cwd):
    from conftest import run

    code = ("import sys\nfrom sglang_lint.frontends.front import main\nrc = main(sys.argv[1:])\n"
            "print('LIBCST' if 'libcst' in sys.modules else 'LIGHT', rc)\n")
    return run("-c", code, *args, cwd=cwd)


def test_the_command_answers_a_clean_file_without_loading_libcst(tmp_path):
    (tmp_path / "clean.py").write_text("import os\nprint(os.getcwd())\n")
    (tmp_path / "bad.py").write_text(
        "import sglang as sgl\nsgl.Engine(model_path='m', attention_backnd='triton')\n")
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    clean = _front(["clean.py"], tmp_path)
    assert clean.stdout.splitlines() == ["LIGHT 0"], clean.stderr
    bad = _front(["clean.py", "bad.py"], tmp_path)
    assert bad.stdout.splitlines()[-1] == "LIBCST 1" and "bad.py:2:28: SGL009" in bad.stdout
    # any option, or a file not in UTF-8: the full command, which loads LibCST only to parse a file
    assert _front(["--isolated", "clean.py"], tmp_path).stdout.splitlines() == ["LIGHT 0"]
    assert _front(["latin.py"], tmp_path).stdout.splitlines() == ["LIGHT 0"]


GOOD_ENGINE = "import sglang as sgl\nsgl.Engine(model_path='m', tp_size=2, attention_backend='triton')\n"


def test_a_file_the_screens_rule_out_is_answered_without_loading_libcst(tmp_path):
    """A file that calls catalog names, but only as the screens can tell pass (most files of
    sglang's own tree): neither the command nor the flake8 plugin imports LibCST for it."""
    from conftest import run

    (tmp_path / "good.py").write_text(GOOD_ENGINE)
    (tmp_path / "bad.py").write_text(GOOD_ENGINE.replace("attention_backend", "attention_backnd"))
    for args in (["good.py"], ["--no-cache", "good.py"], ["--format", "json", "good.py"]):
        result = _front(args, tmp_path)
        assert result.stdout.splitlines()[-1].startswith("LIGHT 0"), (args, result.stderr)
    assert _front(["good.py", "bad.py"], tmp_path).stdout.splitlines()[-1] == "LIBCST 1"
    flake8 = ("import sys\nfrom flake8.main import cli\ntry:\n    code = cli.main(sys.argv[1:])\n"
              "except SystemExit as exc:\n    code = exc.code\n"
              "print('LIBCST' if 'libcst' in sys.modules else 'LIGHT', code)\n")
    good = run("-c", flake8, "--isolated", "-j", "1", "--select", "SGL", "good.py", cwd=tmp_path)
    assert good.stdout.splitlines() == ["LIGHT 0"], good.stderr
    bad = run("-c", flake8, "--isolated", "-j", "1", "--select", "SGL", "bad.py", cwd=tmp_path)
    assert bad.stdout.splitlines()[-1] == "LIBCST 1" and "bad.py:2:" in bad.stdout


def test_the_quick_answer_reads_the_configuration_s_extra_rules(tmp_path):
    rules = tmp_path / "team_rules"
    rules.mkdir()
    text = SGL001.read_text().replace('code = "SGL001"', 'code = "SGL951"').replace(
        "sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.sana_wm.streaming_refiner."
        "set_capture_flag_on_blocks", "team.capture.team_capture_helper")
    (rules / "SGL951-team.toml").write_text(text)
    (tmp_path / "pyproject.toml").write_text('[tool.sglang-lint]\nextra-rules = ["team_rules"]\n')
    (tmp_path / "app.py").write_text("from team.capture import team_capture_helper\n"
                                     "team_capture_helper(t, mode='PRE_ROPE', enable=True)\n")
    result = _front(["app.py"], tmp_path)
    assert result.stdout.splitlines()[-1] == "LIBCST 1" and "app.py:2:" in result.stdout  # not answered quickly


# -- the parsed rules kept in the cache (ruletable.load_rules) -------------------------------


@pytest.fixture
def curated_copy(tmp_path):
    """The curated rules alone (and the data tables they read): a small folder to read."""
    folder = tmp_path / "curated"
    shutil.copytree(RULES, folder, ignore=lambda where, names: [n for n in names if n.startswith("SGL")
                                                                and Path(where) != RULES] + ["codes.lock"])
    return folder


def test_parsed_rules_are_kept_and_read_back_without_parsing(private_cache, curated_copy, monkeypatch):
    from sglang_lint.catalog import rules as catalog
    from sglang_lint.engine import ruletable

    first = ruletable.load_rules([curated_copy])
    assert len(list(private_cache.glob("parsed-*.pickle"))) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("parsed the rule files again")

    monkeypatch.setattr(catalog, "load_rules", refuse)
    again = ruletable.load_rules([curated_copy])
    assert [r.code for r in again] == [r.code for r in first] and again == first


@pytest.mark.parametrize("change", ["edit a rule", "corrupt the kept file"])
def test_kept_rules_are_parsed_again_when_their_files_change_or_are_damaged(private_cache, curated_copy, change):
    from sglang_lint.engine import ruletable

    ruletable.load_rules([curated_copy])
    (kept,) = private_cache.glob("parsed-*.pickle")
    if change == "edit a rule":
        rule = next(curated_copy.glob("SGL001-*.toml"))
        rule.write_text(rule.read_text().replace('title = "', 'title = "Edited: ', 1))
    else:
        kept.write_bytes(kept.read_bytes()[:100])
    rules = ruletable.load_rules([curated_copy])
    title = next(r.title for r in rules if r.code == "SGL001")
    assert title.startswith("Edited: ") is (change == "edit a rule")


def test_a_few_rule_files_are_read_without_a_kept_set_and_kept_sets_are_pruned(private_cache, tmp_path):
    from sglang_lint.core.rulefile import KEEP_FROM, KEEP_SETS, read_tomls

    paths = sorted((RULES / "derived").glob("SGL*.toml"))
    read_tomls(paths[:3])
    assert list(private_cache.glob("rules-*.marshal")) == []  # a few: parsed one by one
    for start in range(KEEP_SETS + 3):  # as many edited folders: only the newest few are kept
        read_tomls(paths[start:start + KEEP_FROM])
    assert len(list(private_cache.glob("rules-*.marshal"))) == KEEP_SETS + 1  # (and the one just written)


def test_kept_rules_hold_the_same_singletons_as_parsed_ones():
    # checks compare with ``is`` (a parameter's default ``is NOT_LITERAL``): a kept rule read back
    # must hold those very objects, not copies (a copy once made every default a literal)
    import dataclasses
    import pickle

    from sglang_lint.analysis.bindings import OPAQUE
    from sglang_lint.checks.fails_when.values import UNKNOWN as UNKNOWN_VALUE
    from sglang_lint.text.pynames import NOT_LITERAL, UNKNOWN

    singletons = {type(one): one for one in (NOT_LITERAL, UNKNOWN, UNKNOWN_VALUE, OPAQUE)}
    pending, seen, found = [pickle.loads(pickle.dumps(default_rules()))], set(), set()
    while pending:
        item = pending.pop()
        if id(item) in seen or isinstance(item, (str, bytes, int, float, type(None))):
            continue
        seen.add(id(item))
        assert type(item) is not object, "an object() sentinel cannot survive a kept rule set"
        if type(item) in singletons:
            assert item is singletons[type(item)]
            found.add(type(item))
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, (tuple, list, set, frozenset)):
            pending += list(item)
        elif dataclasses.is_dataclass(item):
            pending += [getattr(item, f.name) for f in dataclasses.fields(item)]
    assert NOT_LITERAL.__class__ in found  # (the walk reaches the parameters' defaults)


# The rule data kept beside the index (index.RuleData): each rule file's table, read one rule
# at a time by rules_of instead of parsing the rule's TOML file.

def _sample_codes(index) -> list[str]:
    return [code for number, code in enumerate(index.codes) if number % 40 == 0 or code < "SGL100"]


def _plain(value, seen=None):
    """A rule as plain data to compare (a parsed ``when`` expression is an ``ast`` node, equal
    only to itself). ``seen``: what each object already read is, by identity (the rules share
    their big tables, and every object stays alive while one rule is read)."""
    import ast
    import dataclasses

    if seen is None:
        seen = {}
    if isinstance(value, (str, int, float, bool, type(None), bytes)):
        return value
    found = seen.get(id(value))
    if found is not None:
        return found[1]
    if isinstance(value, ast.AST):
        plain = ast.dump(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain = (type(value).__name__,) + tuple(_plain(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    elif isinstance(value, (tuple, list)):
        plain = tuple(_plain(item, seen) for item in value)
    elif isinstance(value, (set, frozenset)):
        plain = frozenset(_plain(item, seen) for item in value)
    elif isinstance(value, dict):
        plain = tuple(sorted((repr(key), _plain(item, seen)) for key, item in value.items()))
    else:
        plain = value
    seen[id(value)] = (value, plain)  # (the value kept: its id is not reused while seen lives)
    return plain


def _fresh_rules(codes, dirs=None) -> dict:
    from sglang_lint.engine import ruletable

    ruletable._BY_CODE.clear()
    return {rule.code: _plain(rule) for rule in rules_of(codes, rule_index(dirs), dirs)}


def _expected(codes) -> dict:
    return {rule.code: _plain(rule) for rule in default_rules() if rule.code in codes}


def _data_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("ruledata-*.bin"))


def test_rules_read_from_the_kept_rule_data_are_the_rule_files_rules(private_cache, monkeypatch):
    from sglang_lint.core import rulefile

    index = rule_index()
    codes = _sample_codes(index)
    expected = _expected(codes)
    assert _fresh_rules(codes) == expected  # (writes the rule data)
    (kept,) = _data_files(private_cache)
    assert kept.name == f"ruledata-{index.key}.bin"
    a_new_run()

    parse = rulefile._parse

    def no_rule_file(path, raw):  # (a data table some rules name, launchers.toml, is read as before)
        assert not Path(path).name.startswith("SGL"), f"{path} parsed"
        return parse(path, raw)

    monkeypatch.setattr(rulefile, "_parse", no_rule_file)
    monkeypatch.setattr(rulefile, "_READ", {})
    assert _fresh_rules(codes) == expected  # every table from the kept data: no TOML parsed


def test_without_the_rule_data_the_rule_files_are_read(private_cache, monkeypatch):
    codes = _sample_codes(rule_index())
    monkeypatch.setattr(rule_data_module.RuleData, "tables", lambda self, codes: [None] * len(codes))
    assert _fresh_rules(codes) == _expected(codes)


@pytest.mark.parametrize("damage", ["missing", "empty", "cut short", "a table changed", "another key"])
def test_damaged_rule_data_is_written_again_never_trusted(private_cache, built_tables, damage):
    import marshal

    tables, codes, expected = built_tables
    shutil.copytree(tables, private_cache)
    (kept,) = _data_files(private_cache)
    good = kept.read_bytes()
    size = int.from_bytes(good[:8], "little")
    if damage == "missing":
        kept.unlink()
    elif damage == "empty":
        kept.write_bytes(b"")
    elif damage == "cut short":
        kept.write_bytes(good[: len(good) // 2])
    elif damage == "a table changed":  # SGL001's title, its checksum as it was
        offset, length, _ = marshal.loads(good[8: 8 + size])[2]["SGL001"]
        start = 8 + size + offset
        table = good[start: start + length]
        changed = table.replace(b"SANA-WM", b"SANA-XX")
        assert changed != table
        kept.write_bytes(good[:start] + changed + good[start + length:])
    else:
        fmt, _, spans = marshal.loads(good[8: 8 + size])
        header = marshal.dumps((fmt, "another-key", spans))
        kept.write_bytes(len(header).to_bytes(8, "little") + header + good[8 + size:])
    a_new_run()
    assert _fresh_rules(codes) == expected
    assert kept.read_bytes() == good  # written again, as it was


def test_an_edited_rule_file_is_read_anew_through_the_rule_data(private_cache, rules_copy):
    index = rule_index([rules_copy])
    assert _fresh_rules(["SGL001"], [rules_copy])["SGL001"][3].startswith("SANA-WM")  # (its title)
    rule = rules_copy / SGL001.name
    rule.write_text(rule.read_text().replace('title = "SANA-WM', 'title = "Edited SANA-WM', 1))
    new_run()
    edited = rule_index([rules_copy])
    assert edited.key != index.key
    assert _fresh_rules(["SGL001"], [rules_copy])["SGL001"][3].startswith("Edited SANA-WM")
    assert len(_data_files(private_cache)) == 2


def test_the_identifiers_kept_are_the_texts_own():
    """identifiers_of keeps the last text's identifiers (the plugin asks three times per file):
    a text of the same length, or the same text again after another, gets its own."""
    from sglang_lint.text.words import identifiers_of

    assert identifiers_of(b"a.bc(x)") == {b"a", b"bc", b"x"}
    assert identifiers_of(b"a.bd(x)") == {b"a", b"bd", b"x"}  # same length, other text
    assert identifiers_of(bytes(bytearray(b"a.bd(x)"))) == {b"a", b"bd", b"x"}  # an equal copy
    assert identifiers_of(b"") == frozenset()
    assert identifiers_of(b"a.bc(x)") == {b"a", b"bc", b"x"}
