"""The README's first screen as a newcomer runs it: its two commands and its install lines, as
written, on a fresh copy of this checkout with an empty home (nothing cached, no venv), the
install lines with the oldest pip the README supports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.packaging

README = (ROOT / "README.md").read_text(encoding="utf-8")
GOLDEN = (ROOT / "tests" / "fixtures" / "examples" / "serving-project.out").read_text(encoding="utf-8")
# what a fresh copy holds of this checkout as it is (a change not committed yet is what is tested)
COPIED = ("examples", "scripts", "README.md", "pyproject.toml", "src", "rules", "docs", "tests")


def console_block(section: str) -> list[str]:
    """The commands of the first ``console`` block after the heading ``section``, comments off."""
    text = README.split(f"\n## {section}\n", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    return [re.sub(r"\s+#\s.*$", "", line).strip() for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict]:
    """A clone of this checkout named as the README's install lines name it, with this
    checkout's files over it, and the environment of a user whose home is empty."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the commands are run on a clone of one")
    base = tmp_path_factory.mktemp("newcomer")
    clone = base / "sglang-lint"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for path in COPIED:
        source, target = ROOT / path, clone / path
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        else:
            shutil.copy2(source, target)
    home = base / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SGLANG_LINT_VENV")}
    env["HOME"] = str(home)
    return clone, env


def run(command: list[str], cwd: Path, env: dict, timeout: int = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_first_screen_holds_two_commands():
    assert console_block("Try it: the two commands") == ["./scripts/lint-example", "./scripts/test"]


def test_the_first_command_sets_itself_up_once_and_prints_the_example_s_findings(fresh):
    clone, env = fresh
    first = run(["./scripts/lint-example"], clone, env)
    assert first.returncode == 1, first.stderr
    assert first.stdout == GOLDEN
    assert "setting up .venv (once)" in first.stderr
    again = run(["./scripts/lint-example"], clone, env)
    assert (again.returncode, again.stdout, again.stderr) == (1, GOLDEN, "")
    # options go to the linter, on the example project; a path replaces it
    as_json = run(["./scripts/lint-example", "--format", "json"], clone, env)
    assert len(json.loads(as_json.stdout)) == len(GOLDEN.splitlines())
    quiet = run(["./scripts/lint-example", "-q", "--exit-zero"], clone, env)
    assert (quiet.returncode, quiet.stdout) == (0, GOLDEN)
    one = run(["./scripts/lint-example", "examples/serving-project/launch.sh"], clone, env)
    assert one.stdout.splitlines() == [line for line in GOLDEN.splitlines() if "/launch.sh:" in line]


def test_the_second_command_sets_up_the_test_tools_and_runs_pytest(fresh):
    clone, env = fresh
    # the whole suite is this run's own; the command as written, given one test of it
    chosen = "tests/test_readme_commands.py::test_the_first_screen_holds_two_commands"
    result = run(["./scripts/test", chosen, "-p", "no:cacheprovider"], clone, env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert re.search(r"\b1 passed\b", result.stdout)
    assert "setting up .venv (once): pip install -e '.[test]'" in result.stderr


def test_the_install_lines_run_as_written_with_the_oldest_pip(fresh, tmp_path: Path):
    clone, env = fresh
    (oldest,) = re.findall(r"pip (\d+\.\d+) or newer", README)
    lines = console_block("Install")
    assert [line.split()[:2] for line in lines] == [["pip", "install"]] * 3
    users = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(users)
    bin_dir = users / "bin"
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", f"pip=={oldest}.*"],
                   check=True, env=env, capture_output=True)
    version = run([str(bin_dir / "pip"), "--version"], tmp_path, env).stdout
    assert version.startswith(f"pip {oldest}."), version
    commit = run(["git", "rev-parse", "HEAD"], clone, env).stdout.strip()
    env = {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}
    for line in lines:
        run([str(bin_dir / "pip"), "uninstall", "--yes", "sglang-lint"], tmp_path, env)
        command = line.replace("<repository URL>", clone.as_uri()).replace("<commit>", commit)
        installed = run(["bash", "-c", command], clone.parent, env)
        assert installed.returncode == 0, f"{line}\n{installed.stdout[-2000:]}{installed.stderr[-2000:]}"
        linted = run([str(bin_dir / "sglang-lint"), "--no-cache", "examples/serving-project"], clone, env)
        assert (linted.returncode, linted.stdout) == (1, GOLDEN), line
    plugins = run([str(bin_dir / "flake8"), "--version"], tmp_path, env).stdout
    assert "sglang-lint" in plugins
    assert run([str(bin_dir / "python"), "-c", "import pygls"], tmp_path, env).returncode == 0  # [server]
