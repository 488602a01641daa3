"""The options ruff and flake8 users type without thinking: ``--exit-zero``, ``-q``,
``-o/--output-file``, ``--exclude``/``--extend-exclude``, ``--output-format`` in ruff's
spelling, and the walk that leaves out what git ignores (``--no-respect-gitignore`` turns it
off), each with its exit status, the files it writes and the paths it skips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import lint_in_process as main, run_lint as lint
from snippets import SGL001_AND_SGL004 as BAD

# SGL009 at 1:47 (the misspelt flag); a launch script git is told to ignore in the tests below.
LAUNCH = "python -m sglang.launch_server --model-path m --tp-sise 2\n"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def findings(result) -> list[str]:
    return [":".join(line.split(":")[:3]) + " " + line.split()[1] for line in result.stdout.splitlines()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(BAD)
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "try.py").write_text(BAD)
    (tmp_path / "serve.sh").write_text(LAUNCH)
    return tmp_path


def git_repo(folder: Path, ignore: str) -> None:
    subprocess.run(["git", "init", "--quiet", str(folder)], check=True)
    (folder / ".gitignore").write_text(ignore)


def test_exit_zero_reports_the_findings_and_exits_0(project: Path):
    result = main("--exit-zero", "src/app.py", cwd=project)
    assert (result.returncode, findings(result)) == (0, ["src/app.py:2:31 SGL001", "src/app.py:3:36 SGL004"])
    # a file that cannot be read is still a failure
    broken = main("--exit-zero", "src/app.py", "missing.py", cwd=project)
    assert broken.returncode == 2 and "missing.py: error: no such file or directory" in broken.stderr


def test_quiet_prints_the_findings_and_errors_only(project: Path):
    fifo = project / "src" / "pipe.py"
    os.mkfifo(fifo)
    loud = main("--fix", "src", cwd=project)
    assert "src/pipe.py: warning: skipped: not a regular file (a named pipe)" in loud.stderr
    assert "src/app.py:2:31: SGL001 fixed ('pre' -> 'pre_rope')\n" in loud.stderr
    assert "sglang-lint: fixed 1 finding in 1 file, 1 remaining\n" in loud.stderr
    (project / "src" / "app.py").write_text(BAD)
    quiet = main("-q", "--fix", "src", "missing.py", cwd=project)
    assert quiet.stderr == "missing.py: error: no such file or directory\n"
    assert (quiet.returncode, findings(quiet)) == (2, ["src/app.py:3:36 SGL004"])
    assert "'pre_rope'" in (project / "src" / "app.py").read_text()  # fixed all the same
    both = main("-q", "-v", "src", cwd=project)
    assert both.returncode == 2 and "argument -v/--verbose: not allowed with argument -q/--quiet" in both.stderr


def test_verbose_twice_says_how_far_each_file_went(project: Path):
    (project / "src" / "clean.py").write_text("import os\n")
    (project / "src" / "ok.py").write_text('from sglang import Engine\n\nEngine(model_path="m", tp_size=2)\n')
    fresh = main("-vv", "--cache-dir", "cache", "src", "serve.sh", cwd=project)
    once = main("-v", "--no-cache", "src", "serve.sh", cwd=project)
    assert findings(fresh) == findings(once) == ["src/app.py:2:31 SGL001", "src/app.py:3:36 SGL004",
                                                 "serve.sh:1:47 SGL009"]
    counts = once.stderr.splitlines()
    assert counts[1] == ("sglang-lint: 4 files: 1 parsed with LibCST, 1 calls no catalog name (text prefilter), "
                         "1 no call the engine could judge (call-site screen), 1 launch commands read")
    assert fresh.stderr.splitlines() == counts + [
        "sglang-lint: src/app.py: parsed with LibCST",
        "sglang-lint: src/clean.py: calls no catalog name (text prefilter)",
        "sglang-lint: src/ok.py: no call the engine could judge (call-site screen)",
        "sglang-lint: serve.sh: launch commands read",
    ]
    again = main("-vv", "--cache-dir", "cache", "src", "serve.sh", cwd=project).stderr.splitlines()
    assert again[-4:] == [f"sglang-lint: {name}: from the cache"
                          for name in ("src/app.py", "src/clean.py", "src/ok.py", "serve.sh")]


def test_output_file_gets_the_report_and_stdout_stays_empty(project: Path):
    result = lint("-o", "report.txt", "--statistics", "src/app.py", cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "")
    written = (project / "report.txt").read_text().splitlines()
    found = [line.split(" ", 2)[:2] for line in written[:2]]
    assert found == [["src/app.py:2:31:", "SGL001"], ["src/app.py:3:36:", "SGL004"]]
    assert [line.split()[:2] for line in written[2:]] == [["1", "SGL001"], ["1", "SGL004"]]
    as_json = lint("--output-file", "report.json", "--format", "json", "src/app.py", cwd=project)
    assert (as_json.returncode, as_json.stdout) == (1, "")
    assert [f["code"] for f in json.loads((project / "report.json").read_text())] == ["SGL001", "SGL004"]
    # a clean run writes an empty report (the file is the run's, not a leftover)
    (project / "ok.py").write_text("print('ok')\n")
    assert lint("-o", "report.txt", "ok.py", cwd=project).returncode == 0
    assert (project / "report.txt").read_text() == ""
    # --diff: the patch goes there, what it leaves to stderr
    patched = lint("--diff", "-o", "fix.patch", "src/app.py", cwd=project)
    assert patched.returncode == 1 and patched.stdout == ""
    assert (project / "fix.patch").read_text().startswith("--- a/src/app.py\n+++ b/src/app.py\n")


def test_an_output_file_that_cannot_be_written_is_a_usage_error(project: Path):
    result = main("-o", "nowhere/report.txt", "src/app.py", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "sglang-lint: error: --output-file nowhere/report.txt: No such file or directory\n"


def test_output_format_takes_ruff_s_spelling(project: Path):
    text = main("src/app.py", cwd=project).stdout
    assert main("--output-format", "concise", "src/app.py", cwd=project).stdout == text
    assert main("--output-format=text", "src/app.py", cwd=project).stdout == text
    as_json = main("--output-format", "json", "src/app.py", cwd=project)
    assert [f["code"] for f in json.loads(as_json.stdout)] == ["SGL001", "SGL004"]
    github = main("--output-format", "github", "src/app.py", cwd=project).stdout
    assert github.startswith("::error file=src/app.py,line=2,col=31,endLine=2,endColumn=36,title=SGL001::SGL001 ")
    wrong = main("--output-format", "full", "src/app.py", cwd=project)
    assert wrong.returncode == 2
    assert "'full' is not an output format (known: text, json, sarif, github, concise)" in wrong.stderr


def test_exclude_on_the_command_line_replaces_the_configuration_s(project: Path):
    (project / "pyproject.toml").write_text('[tool.sglang-lint]\nexclude = ["scratch/"]\n')
    assert {f.split(":")[0] for f in findings(main(cwd=project))} == {"./serve.sh", "./src/app.py"}
    replaced = main("--exclude", "src/,serve.sh", cwd=project)
    assert {f.split(":")[0] for f in findings(replaced)} == {"./scratch/try.py"}
    extended = main("--extend-exclude", "serve.sh", cwd=project)
    assert {f.split(":")[0] for f in findings(extended)} == {"./src/app.py"}
    # globs are relative to the working folder: from src/, `app.py` names src/app.py
    inside = main("--exclude", "app.py", "app.py", "../serve.sh", cwd=project / "src")
    assert [f.split(":")[0] for f in findings(inside)] == ["../serve.sh"]
    said = main("--verbose", "--extend-exclude", "serve.sh", cwd=project)
    assert "sglang-lint: 2 paths excluded (exclude, extend-exclude): ./scratch, ./serve.sh\n" in said.stderr


def test_extend_exclude_in_the_configuration(project: Path):
    (project / "pyproject.toml").write_text('[tool.sglang-lint]\nexclude = ["scratch/"]\nextend-exclude = ["src"]\n')
    assert findings(main(cwd=project)) == ["./serve.sh:1:47 SGL009"]
    # --exclude replaces exclude, not extend-exclude
    assert findings(main("--exclude", "serve.sh", cwd=project)) == ["./scratch/try.py:2:31 SGL001",
                                                                    "./scratch/try.py:3:36 SGL004"]


@needs_git
def test_what_git_ignores_is_not_walked_unless_asked(project: Path):
    git_repo(project, "scratch/\n*.sh\n")
    walked = main("--verbose", ".", cwd=project)
    assert {f.split(":")[0] for f in findings(walked)} == {"./src/app.py"}
    assert ("sglang-lint: 2 paths git ignores not walked (respect-gitignore; --no-respect-gitignore walks them): "
            "./scratch/, ./serve.sh\n") in walked.stderr
    everything = main("--verbose", "--no-respect-gitignore", ".", cwd=project)
    assert {f.split(":")[0] for f in findings(everything)} == {"./src/app.py", "./scratch/try.py", "./serve.sh"}
    assert "sglang-lint: what git ignores is walked too (respect-gitignore is off)\n" in everything.stderr
    (project / "pyproject.toml").write_text("[tool.sglang-lint]\nrespect-gitignore = false\n")
    assert findings(main(cwd=project)) == findings(everything)
    assert findings(main("--respect-gitignore", cwd=project)) == findings(walked)


@needs_git
def test_a_path_named_is_read_even_where_git_ignores_it(project: Path):
    git_repo(project, "scratch/\n*.sh\n")
    named = main("serve.sh", "scratch", cwd=project)
    assert findings(named) == ["serve.sh:1:47 SGL009", "scratch/try.py:2:31 SGL001", "scratch/try.py:3:36 SGL004"]
    # a folder inside an ignored one too (which git 2.39 fails to list from inside), and nothing said
    (project / "scratch" / "deep" / "er").mkdir(parents=True)
    (project / "scratch" / "deep" / "er" / "x.py").write_text(BAD)
    deep = main("--verbose", "scratch/deep", cwd=project)
    assert findings(deep) == ["scratch/deep/er/x.py:2:31 SGL001", "scratch/deep/er/x.py:3:36 SGL004"]
    assert "git" not in deep.stderr


@needs_git
def test_a_tracked_file_and_a_negated_pattern_are_walked_as_git_says(project: Path):
    git_repo(project, "*.sh\n!serve.sh\nscratch/\n")
    (project / "scratch" / "keep.py").write_text(BAD)
    subprocess.run(["git", "-C", str(project), "add", "--force", "scratch/keep.py"], check=True)
    found = {f.split(":")[0] for f in findings(main(cwd=project))}
    assert found == {"./serve.sh", "./src/app.py", "./scratch/keep.py"}


@needs_git
def test_a_nested_repository_has_its_own_gitignore(project: Path):
    git_repo(project, "")
    inner = project / "vendor" / "tool"
    inner.mkdir(parents=True)
    git_repo(inner, "gen/\n")
    (inner / "gen").mkdir()
    (inner / "gen" / "made.py").write_text(BAD)
    (inner / "used.py").write_text(BAD)
    found = {f.split(":")[0] for f in findings(main("vendor", cwd=project))}
    assert found == {"vendor/tool/used.py"}


def test_outside_a_work_tree_nothing_is_ignored_and_no_git_runs(project: Path, monkeypatch):
    (project / ".gitignore").write_text("scratch/\n")  # not a repository: git's rules do not apply
    monkeypatch.setenv("PATH", "")  # git could not be run anyway
    found = {f.split(":")[0] for f in findings(main("--verbose", cwd=project))}
    assert found == {"./serve.sh", "./src/app.py", "./scratch/try.py"}


@needs_git
def test_a_work_tree_git_cannot_answer_for_is_walked_whole_and_said(project: Path, monkeypatch):
    git_repo(project, "scratch/\n")
    monkeypatch.setenv("PATH", "")
    result = main("--verbose", cwd=project)
    assert {f.split(":")[0] for f in findings(result)} == {"./serve.sh", "./src/app.py", "./scratch/try.py"}
    assert "sglang-lint: .: .gitignore not read: git is not installed\n" in result.stderr


def test_help_lists_every_option_of_this_page():
    result = main("--help")
    for option in ("--exit-zero", "-q, --quiet", "-o FILE, --output-file FILE", "--exclude GLOBS",
                   "--extend-exclude GLOBS", "--format FORMAT, --output-format FORMAT", "--no-respect-gitignore"):
        assert option in result.stdout, option
