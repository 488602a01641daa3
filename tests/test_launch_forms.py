"""Launch commands and engine keywords however real code builds them (tests/fixtures/launch/):
keyword dicts and argv lists built in steps, helpers that put their parameter into a launch,
shell command strings. Each fixture's ``# expect: CODE@COL`` annotations are exactly what the
engine, the command and flake8 report, and the call-site screen hides none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, expected_findings, findings_of, lines_by_file, run_flake8, run_lint
from sglang_lint.engine import lint
from sglang_lint.ruletable import RuleSet, default_rules

LAUNCH = ROOT / "tests" / "fixtures" / "launch"
PYTHON_FIXTURES = sorted(LAUNCH.glob("*.py"))
UNSCREENED = RuleSet(default_rules(), screen=False)


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.fixture(scope="module")
def command_output() -> dict[str, list[str]]:
    result = run_lint("--no-cache", *map(relative, PYTHON_FIXTURES), cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    return lines_by_file(result.stdout)


@pytest.fixture(scope="module")
def flake8_output() -> dict[str, list[str]]:
    result = run_flake8("--select", "SGL", *map(relative, PYTHON_FIXTURES), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    return lines_by_file(result.stdout)


def test_every_form_has_a_fixture():
    assert {p.stem for p in PYTHON_FIXTURES} >= {"keyword_dicts", "argv_lists", "helpers", "shell_strings"}


@pytest.mark.parametrize("path", PYTHON_FIXTURES, ids=lambda p: p.stem)
def test_engine_reports_exactly_the_annotations(path: Path):
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(path)
    assert expected, "a fixture shows at least one bad form"
    diagnostics = lint(source, str(path))
    assert {(d.line, d.col + 1, d.code) for d in diagnostics} == expected
    assert lint(source, str(path), UNSCREENED) == diagnostics


@pytest.mark.parametrize("path", PYTHON_FIXTURES, ids=lambda p: p.stem)
def test_command_and_flake8_report_the_same(path: Path, command_output, flake8_output):
    lines = command_output.get(relative(path), [])
    assert findings_of(lines) == expected_findings(path)
    assert flake8_output.get(relative(path), []) == lines
