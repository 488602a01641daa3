"""The result cache invalidates exactly what it must (a changed file, rule file or tool
version), survives corruption, ignores itself in git, and -j gives the same results."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, fixture_files, run
from sglang_lint import cache as cache_module
from sglang_lint.model import FileResult
from sglang_lint.cache import ResultCache, file_key, ruleset_fingerprint
from sglang_lint.ruletable import load_rules
from sglang_lint.ruletable import RuleSet


def lint(*args, cache_dir: Path):
    return run("-m", "sglang_lint", "--verbose", "--cache-dir", str(cache_dir), *args)


def stages(result) -> str:
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("sglang-lint: ")]
    return line


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    for path in fixture_files():
        shutil.copyfile(path, folder / path.name)
    (folder / "clean.py").write_text("import os\nprint(os.getcwd())\n")
    return folder


def test_second_run_comes_from_the_cache_with_the_same_output(tree: Path, tmp_path: Path):
    cache_dir = tmp_path / "cache"
    first = lint(str(tree), cache_dir=cache_dir)
    second = lint(str(tree), cache_dir=cache_dir)
    count = len(fixture_files()) + 1
    assert "from the cache" not in stages(first)
    assert stages(second) == f"sglang-lint: {count} files: {count} from the cache"
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout) == (1, first.stdout)
    assert first.stdout.count(" SGL0") > 20
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_changed_file_is_linted_again_and_only_it(tree: Path, tmp_path: Path):
    cache_dir = tmp_path / "cache"
    lint(str(tree), cache_dir=cache_dir)
    changed = tree / "SGL001_unsupported_capture_mode.py"
    text = changed.read_text()
    changed.write_text(text.replace('mode="pre", enable=True)  # expect', 'mode="pre_rope", enable=True)  # was'))
    result = lint(str(tree), cache_dir=cache_dir)
    count = len(fixture_files()) + 1
    assert stages(result) == f"sglang-lint: {count} files: {count - 1} from the cache, 1 parsed with LibCST"
    fresh = run("-m", "sglang_lint", "--no-cache", str(tree))
    assert result.stdout == fresh.stdout


def test_the_same_bytes_elsewhere_hit_the_cache(tree: Path, tmp_path: Path):
    cache_dir = tmp_path / "cache"
    lint(str(tree), cache_dir=cache_dir)
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy)
    assert "from the cache" in stages(lint(str(copy), cache_dir=cache_dir))
    # ... unless the path gives another module name (relative imports depend on it).
    key = file_key(b"x = 1\n", ("a.b", False))
    assert key == file_key(b"x = 1\n", ("a.b", False)) != file_key(b"x = 1\n", ("a.c", False))


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
    table.write_text((ROOT / "rules" / "derived" / "server_args.toml").read_text())
    assert ruleset_fingerprint(RuleSet(list(load_rules([folder])))) == base
    rules = list(load_rules([folder]))
    assert ruleset_fingerprint(RuleSet(rules).select(["SGL001"], None)) != base
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    assert ruleset_fingerprint(RuleSet(rules)) != base


def test_a_new_fingerprint_never_reads_the_old_entries(tmp_path: Path):
    old = ResultCache(tmp_path, "a" * 32)
    old.put(b"k" * 16, FileResult.ok([], "parsed with LibCST"))
    old.save()
    assert ResultCache(tmp_path, "a" * 32).get(b"k" * 16) == FileResult.ok([], "parsed with LibCST")
    assert ResultCache(tmp_path, "b" * 32).get(b"k" * 16) is None


def test_a_corrupt_cache_is_ignored_and_rebuilt(tree: Path, tmp_path: Path):
    cache_dir = tmp_path / "cache"
    first = lint(str(tree), cache_dir=cache_dir)
    (cache_file,) = cache_dir.glob("*.marshal")
    cache_file.write_bytes(b"\x00garbage")
    again = lint(str(tree), cache_dir=cache_dir)
    assert again.stdout == first.stdout and "from the cache" not in stages(again)
    assert "from the cache" in stages(lint(str(tree), cache_dir=cache_dir))


def test_a_cache_folder_in_the_tree_ignores_itself(tree: Path):
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    lint(str(tree), cache_dir=tree / ".sglang_lint_cache")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout
    assert ".sglang_lint_cache" not in status and "clean.py" in status
    # and the walk never lints it
    assert ".sglang_lint_cache" not in run("-m", "sglang_lint", "--no-cache", str(tree)).stdout


def test_parallel_workers_give_the_same_results(tmp_path: Path):
    folder = tmp_path / "many"
    for copy in range(4):  # enough files for two workers
        for path in fixture_files() + sorted((FIXTURES / "fixes").glob("*.py")):
            (folder / f"c{copy}").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / f"c{copy}" / path.name)
    serial = run("-m", "sglang_lint", "--no-cache", "-j", "1", str(folder))
    parallel = run("-m", "sglang_lint", "--no-cache", "-j", "2", str(folder))
    assert serial.stdout == parallel.stdout and serial.returncode == parallel.returncode == 1
    assert serial.stdout.count("\n") > 100
