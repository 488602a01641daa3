"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit (from PyPI) in a
temporary git repository: a staged bad file fails with the finding, a good file passes, a
commit with no file it reads passes, the fixing hook fixes, and shell scripts and Markdown are
read too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, installed_env
from snippets import CAPTURE_IMPORT

pytestmark = pytest.mark.packaging  # pre-commit builds the hook's environment with pip

BAD = CAPTURE_IMPORT + "set_capture_flag_on_blocks(t, 'PRE_ROPE', enable=True)\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """This repository as it is now, committed (pre-commit installs hooks from a commit)."""
    copy = tmp_path_factory.mktemp("hook-repo") / "sglang-lint"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".*cache"))
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "snapshot")
    return copy


def pre_commit(project: Path, checkout: Path, hook: str, home: Path) -> subprocess.CompletedProcess:
    config = f"repos:\n  - repo: {checkout}\n    rev: {head(checkout)}\n    hooks:\n      - id: {hook}\n"
    return run_config(project, config, home)


def run_config(project: Path, config: str, home: Path) -> subprocess.CompletedProcess:
    """``pre-commit run`` in the project with this configuration."""
    (project / ".pre-commit-config.yaml").write_text(config)
    env = dict(installed_env(), PRE_COMMIT_HOME=str(home), SGLANG_LINT_CACHE_DIR=str(home / "lint-cache"))
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never"], cwd=project,
        capture_output=True, text=True, env=env, timeout=900,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    return repo


def test_hooks(project: Path, checkout: Path, tmp_path_factory):
    home = tmp_path_factory.mktemp("pre-commit-home")  # shared: the hook env is built once
    # No file of a type it reads staged: the hook is skipped and the run passes.
    (project / "notes.txt").write_text("hello\n")
    git(project, "add", "notes.txt")
    result = pre_commit(project, checkout, "sglang-lint", home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no files to check" in result.stdout

    # A staged bad file: the hook fails and prints the finding.
    (project / "app.py").write_text(BAD)
    git(project, "add", "app.py")
    result = pre_commit(project, checkout, "sglang-lint", home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "app.py:2:31: SGL001" in result.stdout

    # The fixing hook rewrites it (pre-commit fails a hook that changes files) and the
    # checking hook then passes.
    result = pre_commit(project, checkout, "sglang-lint-fix", home)
    assert result.returncode == 1 and "files were modified by this hook" in result.stdout
    assert "'pre_rope'" in (project / "app.py").read_text()
    git(project, "add", "app.py")
    result = pre_commit(project, checkout, "sglang-lint", home)
    assert result.returncode == 0, result.stdout + result.stderr

    # A shell script and a README are read too (types: shell, markdown, yaml).
    (project / "serve.sh").write_text("#!/bin/bash\npython -m sglang.launch_server --max-model-len 8\n")
    (project / "README.md").write_text("```bash\nsglang serve --model-path m --enforce-eager\n```\n")
    git(project, "add", "serve.sh", "README.md")
    result = pre_commit(project, checkout, "sglang-lint", home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "serve.sh:2:32: SGL009" in result.stdout and "README.md:2:29: SGL009" in result.stdout


# The README's two snippets as written, but for the repository URL and the commit pinned,
# which are the reader's (where they cloned from, and the commit they choose); here they are a
# committed copy of this checkout and its commit.
URL = "<repository URL>"
COMMIT = "<commit>"


def readme_yaml_blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    blocks = [chunk.split("```")[0] for chunk in readme.split("```yaml\n")[1:]]
    return [block for block in blocks if block.startswith("repos:")]


def head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()


def test_the_readme_hook_snippet_runs_as_written(project: Path, checkout: Path, tmp_path_factory):
    (snippet, _flake8) = readme_yaml_blocks()
    (rev,) = (line.split()[1] for line in snippet.splitlines() if line.strip().startswith("rev:"))
    assert f"repo: {URL}" in snippet and rev == COMMIT
    config = snippet.replace(URL, str(checkout)).replace(COMMIT, head(checkout))
    assert_a_staged_bad_file_fails(project, config, tmp_path_factory)


def test_the_readme_flake8_dependency_installs_from_the_same_commit(project: Path, checkout: Path, tmp_path_factory):
    """flake8's own hook repository is on GitHub, out of a test's reach; a local hook with the
    same entry and the README's dependency line (as written, the URL and commit aside) is what
    it builds."""
    (_hook, snippet) = readme_yaml_blocks()
    (dependency,) = (line.split(":", 1)[1].strip() for line in snippet.splitlines()
                     if "additional_dependencies:" in line)
    assert dependency == f'["sglang-lint @ git+{URL}@{COMMIT}"]'
    dependency = dependency.replace(URL, checkout.as_uri()).replace(COMMIT, head(checkout))
    local_hook = (
        "repos:\n  - repo: local\n    hooks:\n      - id: flake8\n        name: flake8\n"
        "        entry: flake8 --select SGL\n        language: python\n        types: [python]\n"
        f"        additional_dependencies: [flake8, {dependency[1:-1]}]\n"
    )
    assert_a_staged_bad_file_fails(project, local_hook, tmp_path_factory)


def assert_a_staged_bad_file_fails(project: Path, config: str, tmp_path_factory) -> None:
    (project / "app.py").write_text(BAD)
    git(project, "add", "app.py")
    result = run_config(project, config, tmp_path_factory.mktemp("pre-commit-home"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "app.py:2:31: SGL001" in result.stdout
