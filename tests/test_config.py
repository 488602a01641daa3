"""[tool.sglang-lint] in pyproject.toml: found by walking up, every key, the command line
overriding it, stdin taking the config of its path, and clear errors (exit 2)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, lint_in_process
from snippets import CAPTURE_IMPORT, CAPTURE_PRE, ENGINE_IMPORT

BAD = CAPTURE_IMPORT + ENGINE_IMPORT + CAPTURE_PRE + "sgl.Engine(model_path='m', tp_sizee=2)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for relative in ("src/app.py", "src/sub/deep.py", "tests/test_app.py", "build/gen.py", "gen_models.py"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BAD)
    return tmp_path


def configure(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.sglang-lint]\n" + textwrap.dedent(body))


def findings(result) -> list[str]:
    return sorted(" ".join(line.split()[:2]) for line in result.stdout.splitlines())


def lint(project: Path, *args: str, cwd: Path | None = None, stdin: str | None = None):
    return lint_in_process("--no-cache", *args, cwd=cwd or project, stdin=stdin)


def test_every_key(project: Path):
    configure(project, """
        select = ["SGL00"]
        ignore = ["SGL009"]
        exclude = ["build/", "gen_*.py"]

        [per-file-ignores]
        "tests/*.py" = ["SGL001"]
    """.replace("[per-file-ignores]", "[tool.sglang-lint.per-file-ignores]"))
    result = lint(project, ".")
    assert result.returncode == 1, result.stderr
    assert findings(result) == [
        "./src/app.py:3:31: SGL001",
        "./src/sub/deep.py:3:31: SGL001",
    ]


def test_found_by_walking_up_and_overridden_by_flags(project: Path):
    configure(project, 'select = ["SGL009"]\n')
    sub = project / "src" / "sub"
    assert findings(lint(project, "deep.py", cwd=sub)) == ["deep.py:4:28: SGL009"]
    # --select replaces the file's select; --extend-select adds to it; --isolated reads nothing.
    assert findings(lint(project, "--select", "SGL001", "deep.py", cwd=sub)) == ["deep.py:3:31: SGL001"]
    assert findings(lint(project, "--extend-select", "SGL001", "deep.py", cwd=sub)) == [
        "deep.py:3:31: SGL001", "deep.py:4:28: SGL009",
    ]
    assert len(findings(lint(project, "--isolated", "deep.py", cwd=sub))) == 2


def test_stdin_takes_the_config_and_ignores_of_its_path(project: Path):
    configure(project, """
        exclude = ["build/"]
        [tool.sglang-lint.per-file-ignores]
        "tests/*.py" = ["SGL001"]
    """)
    as_test = lint(project, "--stdin-filename", "tests/test_new.py", "-", stdin=BAD)
    assert findings(as_test) == ["tests/test_new.py:4:28: SGL009"]
    as_src = lint(project, "--stdin-filename", "src/new.py", "-", stdin=BAD)
    assert len(findings(as_src)) == 2
    excluded = lint(project, "--stdin-filename", "build/new.py", "-", stdin=BAD)
    assert (excluded.returncode, excluded.stdout) == (0, "")


def test_extra_rule_folder_and_sglang_version(project: Path):
    team = project / "lint_rules"
    team.mkdir()
    rule = (ROOT / "rules" / "SGL001-unsupported-capture-mode.toml").read_text()
    team_rule = rule.replace('code = "SGL001"', 'code = "SGL950"').replace(
        'name = "unsupported-capture-mode"', 'name = "team-capture-mode"'
    ).replace('values = ["pre_rope", "post_rope"]', 'values = ["post_rope"]')
    (team / "SGL950-team-capture-mode.toml").write_text(team_rule)
    configure(project, 'extra-rules = ["lint_rules"]\nselect = ["SGL950"]\n')
    assert findings(lint(project, "src/app.py")) == ["src/app.py:3:31: SGL950"]
    # A rule whose raise site is in later releases only is off for an older sglang.
    (team / "SGL950-team-capture-mode.toml").write_text(
        team_rule.replace('since = "0.5.13"', 'since = "0.5.23"')
    )
    configure(project, 'extra-rules = ["lint_rules"]\nselect = ["SGL950"]\nsglang-version = "0.5.20"\n')
    assert findings(lint(project, "src/app.py")) == []
    configure(project, 'extra-rules = ["lint_rules"]\nselect = ["SGL950"]\nsglang-version = "0.5.23"\n')
    assert findings(lint(project, "src/app.py")) == ["src/app.py:3:31: SGL950"]


@pytest.mark.parametrize(
    "body, key, problem",
    [
        ('selct = ["SGL001"]\n', "selct", "unknown key"),
        ('select = "SGL001"\n', "select", "must be a list"),
        ('ignore = ["E501"]\n', "ignore", "is not a code prefix"),
        ('exclude = [1]\n', "exclude", "must be a list of strings"),
        ('extend-exclude = "build/"\n', "extend-exclude", "must be a list of strings"),
        ('respect-gitignore = "no"\n', "respect-gitignore", "must be true or false"),
        ('extra-rules = ["nowhere"]\n', "extra-rules", "is not a folder"),
        ('sglang-version = "latest"\n', "sglang-version", "must be a version"),
        ('per-file-ignores = ["x"]\n', "per-file-ignores", "must be a table"),
    ],
)
def test_bad_configuration_names_file_and_key(project: Path, body, key, problem):
    configure(project, body)
    result = lint(project, "src/app.py")
    assert result.returncode == 2 and result.stdout == ""
    assert f"{project / 'pyproject.toml'}: [tool.sglang-lint].{key}: " in result.stderr
    assert problem in result.stderr


def test_explicit_config_file_and_broken_toml(project: Path, tmp_path: Path):
    other = tmp_path / "elsewhere.toml"
    other.write_text('[tool.sglang-lint]\nselect = ["SGL009"]\n')
    assert findings(lint(project, "--config", str(other), "src/app.py")) == ["src/app.py:4:28: SGL009"]
    other.write_text("[tool.sglang-lint\n")
    result = lint(project, "--config", str(other), "src/app.py")
    assert result.returncode == 2 and "is not valid TOML" in result.stderr
