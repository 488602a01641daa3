"""The README's first screen and its first command: the example project (examples/) gives
exactly its golden findings; the README's example lines are among them; its first 60 lines hold
the install, both commands and that example; it stays under 400 lines; and the first command,
run on a fresh clone with an empty HOME, sets up its environment and prints those findings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, check_golden, run_lint

EXAMPLE = "examples/serving-project"
GOLDEN = ROOT / "tests" / "fixtures" / "examples" / "serving-project.out"
README = (ROOT / "README.md").read_text(encoding="utf-8")
FINDING = re.compile(r"^\S+:\d+:\d+: SGL\d{3,4} ", re.M)


def test_the_example_project_gives_its_golden_findings(update_golden):
    result = run_lint("--no-cache", EXAMPLE, cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    check_golden(GOLDEN, result.stdout, update_golden)
    # a mistake of each kind a serving user makes, in each kind of file
    codes = {line.split()[1] for line in result.stdout.splitlines()}
    assert codes == {"SGL006", "SGL007", "SGL008", "SGL009", "SGL014"}
    files = {line.split(":")[0].rsplit("/", 1)[1] for line in result.stdout.splitlines()}
    assert files == {"launch.sh", "serve.py", "README.md", "docker-compose.yml"}


def test_the_example_s_correct_lines_give_nothing():
    # serve.py's good() and the launch lines without a mistake: no finding on their lines
    findings = {tuple(line.split(":")[:2]) for line in GOLDEN.read_text(encoding="utf-8").splitlines()}
    serve = (ROOT / EXAMPLE / "serve.py").read_text(encoding="utf-8").splitlines()
    good = next(i for i, line in enumerate(serve, 1) if line.startswith("def good("))
    assert not {(f, n) for f, n in findings if f.endswith("serve.py") and int(n) >= good}


def test_the_readme_s_example_lines_are_what_the_first_command_prints():
    printed = set(GOLDEN.read_text(encoding="utf-8").splitlines())
    shown = [line for line in README.split("## Install")[0].splitlines() if FINDING.match(line)]
    assert len(shown) >= 5
    assert [line for line in shown if line not in printed] == []
    assert [line for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line in shown] == shown  # in order
    count = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")[len(printed)]
    assert f"the first command prints {count} findings" in " ".join(README.split())


def test_the_readme_s_first_screen_holds_the_install_both_commands_and_an_example():
    first = "\n".join(README.splitlines()[:60])
    assert "./scripts/lint-example" in first and "./scripts/test" in first
    assert "pip install ./sglang-lint" in first
    assert FINDING.search(first)
    assert len(README.splitlines()) < 400


@pytest.mark.packaging
def test_the_first_command_on_a_fresh_clone_with_an_empty_home(tmp_path: Path):
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the command is run on a clone of one")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for path in ("examples", "scripts", "README.md", "pyproject.toml", "src", "rules", "docs"):
        # this checkout's files as they are (a change not committed yet is what is tested)
        source, target = ROOT / path, clone / path
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SGLANG_LINT_VENV")}
    env["HOME"] = str(home)
    result = subprocess.run(["./scripts/lint-example"], cwd=clone, env=env, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 1, result.stderr
    assert result.stdout == GOLDEN.read_text(encoding="utf-8")
    assert "setting up .venv (once)" in result.stderr
    again = subprocess.run(["./scripts/lint-example"], cwd=clone, env=env, capture_output=True, text=True)
    assert (again.returncode, again.stdout, again.stderr) == (1, result.stdout, "")  # set up once
