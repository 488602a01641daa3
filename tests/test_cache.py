"""The result cache invalidates exactly what it must (a changed file, rule file or tool
version), survives corruption, ignores itself in git, and -j gives the same results.

The cache the tests start from is written by the command as a process; the runs that read
it back call the command in this process (``lint_in_process``: a new ResultCache, read from
the folder, each time)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, fix_fixture_files, fixture_files, lint_in_process, run_lint
from snippets import CAPTURE_IMPORT
from sglang_lint.catalog import rules as catalog
from sglang_lint.core.model import FileResult
from sglang_lint.engine import ruletable
from sglang_lint.engine.ruletable import RuleSet, load_rules
from sglang_lint.frontends import cache as cache_module
from sglang_lint.frontends.cache import ResultCache, file_key, ruleset_fingerprint
from sglang_lint.frontends.indexes import rule_index
from sglang_lint.launch.paths import is_launch_file
from sglang_lint.screen.prefilter import index_screen
from sglang_lint.text.pynames import module_name_for

FILES = len(fixture_files()) + 1  # the fixtures and a clean file


def lint(*args, cwd: Path, cache_dir: Path, command=lint_in_process):
    return command("--verbose", "--cache-dir", str(cache_dir), *args, cwd=cwd)


def stages(result) -> str:
    (line,) = [line for line in result.stderr.splitlines()
               if line.startswith("sglang-lint: ") and " judged against " not in line]
    return line


@dataclass
class Primed:
    """``base/project`` (the fixtures and a clean file) linted once into ``base/cache``."""

    base: Path
    first: subprocess.CompletedProcess

    def copy(self, to: Path) -> tuple[Path, Path]:
        """The project and its cache, copied under ``to`` (same relative paths, so the same
        output); (project, cache)."""
        shutil.copytree(self.base / "project", to / "project")
        shutil.copytree(self.base / "cache", to / "cache")
        return to / "project", to / "cache"


@pytest.fixture(scope="module")
def primed(tmp_path_factory) -> Primed:
    base = tmp_path_factory.mktemp("cached")
    folder = base / "project"
    folder.mkdir()
    for path in fixture_files():
        shutil.copyfile(path, folder / path.name)
    (folder / "clean.py").write_text("import os\nprint(os.getcwd())\n")
    return Primed(base, lint("project", cwd=base, cache_dir=base / "cache", command=run_lint))


def test_second_run_comes_from_the_cache_with_the_same_output(primed: Primed, tmp_path: Path):
    first = primed.first
    _, cache_dir = primed.copy(tmp_path)
    second = lint("project", cwd=tmp_path, cache_dir=cache_dir)
    assert "from the cache" not in stages(first)
    assert stages(second) == f"sglang-lint: {FILES} files: {FILES} from the cache"
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout) == (1, first.stdout)
    assert first.stdout.count(" SGL0") > 20
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_changed_file_is_linted_again_and_only_it(primed: Primed, tmp_path: Path):
    project, cache_dir = primed.copy(tmp_path)
    changed = project / "SGL001_unsupported_capture_mode.py"
    lines = changed.read_text().splitlines(keepends=True)
    (number,) = [n for n, line in enumerate(lines, 1) if 'mode="pre", enable=True)  # expect' in line]
    lines[number - 1] = lines[number - 1].replace('mode="pre"', 'mode="pre_rope"').replace("# expect", "# was")
    changed.write_text("".join(lines))
    result = lint("project", cwd=tmp_path, cache_dir=cache_dir)
    assert stages(result) == f"sglang-lint: {FILES} files: {FILES - 1} from the cache, 1 parsed with LibCST"
    # What a fresh run gives: the first output without the finding that was fixed by hand.
    gone = f"{Path('project') / changed.name}:{number}:"
    assert sum(line.startswith(gone) for line in primed.first.stdout.splitlines()) == 1
    assert result.stdout == "".join(
        line + "\n" for line in primed.first.stdout.splitlines() if not line.startswith(gone)
    )


def test_the_same_bytes_elsewhere_hit_the_cache(primed: Primed, tmp_path: Path):
    copy = tmp_path / "copy"
    shutil.copytree(primed.base / "project", copy)
    shutil.copytree(primed.base / "cache", tmp_path / "cache")
    assert "from the cache" in stages(lint(str(copy), cwd=tmp_path, cache_dir=tmp_path / "cache"))
    # ... unless the path gives another module name (relative imports depend on it).
    key = file_key(b"x = 1\n", ("a.b", False))
    assert key == file_key(b"x = 1\n", ("a.b", False)) != file_key(b"x = 1\n", ("a.c", False))


def test_a_run_the_cache_answers_reads_no_rule(primed: Primed, tmp_path: Path, monkeypatch):
    """Every file known: the rules are never read (the cache is keyed by the rule folders and
    the selection, not by the rules); only the project pass reads the few rules that name
    sglang's launch entry points, since the fixtures are files of no sglang package."""
    _, cache_dir = primed.copy(tmp_path)
    ruletable.default_rules.cache_clear()
    ruletable.default_ruleset.cache_clear()
    ruletable._BY_CODE.clear()
    read = []
    parse_rule = catalog.parse_rule
    monkeypatch.setattr(catalog, "parse_rule", lambda data, path, kinds: read.append(path.name) or parse_rule(
        data, path, kinds))
    load_rules = ruletable.load_rules  # the whole catalog, parsed or kept parsed (its own tests: test_index)
    monkeypatch.setattr(ruletable, "load_rules", lambda *args: read.append("catalog") or load_rules(*args))
    second = lint("project", cwd=tmp_path, cache_dir=cache_dir)
    assert stages(second) == f"sglang-lint: {FILES} files: {FILES} from the cache"
    assert second.stdout == primed.first.stdout
    launch = set(rule_index().launch_codes)
    assert len(launch) == 8 and sorted({name.partition("-")[0] for name in read}) == sorted(launch)
    # With --ignore the same holds, and the selection keys a cache of its own.
    read.clear()
    assert "from the cache" not in stages(lint("--ignore", "SGL011", "project", cwd=tmp_path, cache_dir=cache_dir))
    # the first run of this selection reads the rules its files trigger, never the catalog
    triggered = set()
    for path in (tmp_path / "project").iterdir():
        data = path.read_bytes()
        triggered |= launch if is_launch_file(path.name, data[:256]) else index_screen(rule_index()).codes_for(
            data, module_name_for(f"project/{path.name}")[0])
    assert "catalog" not in read and len(triggered) > 20
    # (the launch rules the project pass read above are kept read in this process)
    assert {name.partition("-")[0] for name in read} == (triggered - {"SGL011"}) - launch
    read.clear()
    ruletable.default_rules.cache_clear()
    ruletable.default_ruleset.cache_clear()
    ruletable._BY_CODE.clear()
    ignoring = lint("--ignore", "SGL011", "project", cwd=tmp_path, cache_dir=cache_dir)
    assert stages(ignoring) == f"sglang-lint: {FILES} files: {FILES} from the cache"
    assert {name.partition("-")[0] for name in read} == launch


def test_an_extra_rule_edited_after_a_cached_run_takes_effect(tmp_path: Path):
    """The cache of a configuration with extra rules is keyed by their files: an edit reads
    them again, and a malformed one is reported (file and field) before anything is linted."""
    project = tmp_path / "project"
    team = project / "lint_rules"
    team.mkdir(parents=True)
    rule = (ROOT / "rules" / "SGL001-unsupported-capture-mode.toml").read_text()
    team_rule = rule.replace('code = "SGL001"', 'code = "SGL950"').replace(
        'name = "unsupported-capture-mode"', 'name = "team-capture-mode"')
    path = team / "SGL950-team-capture-mode.toml"
    path.write_text(team_rule)
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.sglang-lint]\nextra-rules = [\"lint_rules\"]\nselect = [\"SGL950\"]\n")
    call = 'set_capture_flag_on_blocks(blocks, mode="post_rope", enable=True)\n'
    (project / "app.py").write_text(CAPTURE_IMPORT + call)
    cache_dir = tmp_path / "cache"
    assert lint(".", cwd=project, cache_dir=cache_dir).stdout == ""
    assert stages(lint(".", cwd=project, cache_dir=cache_dir)) == "sglang-lint: 1 file: 1 from the cache"
    path.write_text(team_rule.replace('values = ["pre_rope", "post_rope"]', 'values = ["pre_rope"]'))
    edited = lint(".", cwd=project, cache_dir=cache_dir)
    assert [line.split()[:2] for line in edited.stdout.splitlines()] == [["./app.py:2:41:", "SGL950"]]
    assert "from the cache" not in stages(edited)
    path.write_text(team_rule.replace('values = ["pre_rope", "post_rope"]', 'values = "pre_rope"'))
    broken = lint(".", cwd=project, cache_dir=cache_dir)
    assert broken.returncode == 2 and broken.stdout == ""
    assert "bad rule file" in broken.stderr and "SGL950-team-capture-mode.toml" in broken.stderr
    assert "values" in broken.stderr


def _rules_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", folder)
    return folder


def test_a_changed_rule_file_or_version_or_selection_changes_the_fingerprint(tmp_path: Path, monkeypatch):
    folder = _rules_copy(tmp_path)
    base = ruleset_fingerprint(RuleSet(list(load_rules([folder]))))
    assert ruleset_fingerprint(RuleSet(list(load_rules([folder])))) == base  # stable
    rule = folder / "SGL003-unsupported-gdn-backend.toml"
    rule.write_text(rule.read_text().replace('values = ["auto", "torch", "triton"]', 'values = ["auto", "torch"]'))
    assert ruleset_fingerprint(RuleSet(list(load_rules([folder])))) != base
    table = folder / "derived" / "server_args.toml"
    rule.write_text((ROOT / "rules" / rule.name).read_text())
    table.write_text(table.read_text() + "\n# a changed data table\n")
    assert ruleset_fingerprint(RuleSet(list(load_rules([folder])))) != base
    changed = ruleset_fingerprint(RuleSet(list(load_rules([folder]))))
    # Keyed as the compiled index keys the rule files (path, size, modification time): a file
    # touched but not changed only costs a new cache, never a stale one.
    os.utime(table, ns=(1, 1))
    assert ruleset_fingerprint(RuleSet(list(load_rules([folder])))) not in (base, changed)
    rules = list(load_rules([folder]))
    assert ruleset_fingerprint(RuleSet(rules).select(["SGL001"], None)) != base
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    assert ruleset_fingerprint(RuleSet(rules)) != base
    # An edited module of sglang-lint (a checkout installed for editing keeps its version).
    monkeypatch.setattr(cache_module, "code_stamp", lambda: "engine.py 1 1")
    edited = ruleset_fingerprint(RuleSet(rules))
    monkeypatch.setattr(cache_module, "code_stamp", lambda: "engine.py 1 2")
    assert ruleset_fingerprint(RuleSet(rules)) != edited


def test_a_rules_crash_is_never_cached():
    from sglang_lint.core.model import CRASH_CODE, Diagnostic

    finding = Diagnostic(2, 30, "SGL001", "m")
    assert FileResult.ok([finding], "parsed with LibCST").cacheable
    crashed = Diagnostic(1, 0, CRASH_CODE, "rule SGL004 crashed on this file (RecursionError); other rules still ran")
    assert not FileResult.ok([crashed, finding], "parsed with LibCST").cacheable


def test_a_new_fingerprint_never_reads_the_old_entries(tmp_path: Path):
    old = ResultCache(tmp_path, "a" * 32)
    old.put(b"k" * 16, FileResult.ok([], "parsed with LibCST"))
    old.save()
    assert ResultCache(tmp_path, "a" * 32).get(b"k" * 16) == FileResult.ok([], "parsed with LibCST")
    assert ResultCache(tmp_path, "b" * 32).get(b"k" * 16) is None


def test_only_the_newest_caches_of_other_rule_sets_are_kept(tmp_path: Path):
    others = [tmp_path / f"{number:x}.marshal" for number in range(cache_module.KEEP_FILES + 2)]
    for age, path in enumerate(others):  # the first the newest
        path.write_bytes(b"{}")
        os.utime(path, ns=(10**18 - age * 10**9, 10**18 - age * 10**9))
    (tmp_path / "notes.txt").write_text("not a cache file")
    cache = ResultCache(tmp_path, "f" * 32)
    cache.put(b"k" * 16, FileResult.ok([], "parsed with LibCST"))
    cache.save()
    kept = sorted(path.name for path in tmp_path.iterdir())
    assert kept == sorted([cache.path.name, *(path.name for path in others[:cache_module.KEEP_FILES]), "notes.txt",
                           ".gitignore"])


def test_a_corrupt_cache_is_ignored_and_rebuilt(primed: Primed, tmp_path: Path):
    _, cache_dir = primed.copy(tmp_path)
    (cache_file,) = cache_dir.glob("*.marshal")
    cache_file.write_bytes(b"\x00garbage")
    again = lint("project", cwd=tmp_path, cache_dir=cache_dir)
    assert again.stdout == primed.first.stdout and "from the cache" not in stages(again)
    assert "from the cache" in stages(lint("project", cwd=tmp_path, cache_dir=cache_dir))


def test_a_cache_folder_in_the_tree_ignores_itself(primed: Primed, tmp_path: Path):
    tree = tmp_path / "project"
    shutil.copytree(primed.base / "project", tree)
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    lint(str(tree), cwd=tmp_path, cache_dir=tree / ".sglang_lint_cache")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout
    assert ".sglang_lint_cache" not in status and "clean.py" in status
    # and the walk never lints it
    assert ".sglang_lint_cache" not in lint_in_process("--no-cache", str(tree)).stdout


def test_parallel_workers_give_the_same_results(tmp_path: Path):
    folder = tmp_path / "many"
    for copy in range(2):  # enough files for two workers (16 each)
        for path in fixture_files() + fix_fixture_files():
            (folder / f"c{copy}").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / f"c{copy}" / path.name)
    assert len(list(folder.rglob("*.py"))) >= 2 * 16
    serial = run_lint("--no-cache", "-j", "1", str(folder))
    parallel = run_lint("--no-cache", "-j", "2", str(folder))
    assert serial.stdout == parallel.stdout and serial.returncode == parallel.returncode == 1
    assert serial.stdout.count("\n") > 100


BAD_LAUNCH = "import sglang as sgl\n\nsgl.Engine(model_path='m', enable_dp_attention=True, tp_size=4, dp_size=3)\n"


def test_a_file_changed_between_its_two_readings_is_linted_as_it_is_then_and_not_kept(tmp_path: Path, monkeypatch):
    """A run reads a file once for its cache key and again where it lints it (a tree's text is
    never held at once): a file written in between is linted as the second reading finds it,
    and its result is kept under neither text (the next run lints it again)."""
    from sglang_lint.engine.ruletable import default_ruleset
    from sglang_lint.frontends import runner

    path = tmp_path / "launch.py"
    path.write_text(BAD_LAUNCH.replace("dp_size=3", "dp_size=2"))  # 4 is divisible by 2
    readings = []
    read = runner._read

    def read_then_edit(name):
        readings.append(name)
        if len(readings) == 2:
            path.write_text(BAD_LAUNCH)  # (an editor saving the file while it is linted)
        return read(name)

    monkeypatch.setattr(runner, "_read", read_then_edit)
    cache = ResultCache(tmp_path / "cache", "c" * 32)
    (result,) = runner.lint_jobs([runner.Job(str(path), "launch.py")], default_ruleset(), cache, 1)
    assert len(readings) == 2
    assert [d.code for d in result.diagnostics] == ["SGL012"]
    assert cache.entries == {}
    path.unlink()
    (gone,) = runner.lint_jobs([runner.Job(str(path), "launch.py")], default_ruleset(), cache, 1)
    assert gone.status == FileResult.UNREADABLE
