"""Every fixture, through the engine, the command and a real flake8: exactly the annotated
findings (line, column, code), nothing on any other line, and the exact text users read.

The text is pinned in golden files beside the fixtures: ``tests/fixtures/SGL0xx_<rule>.out``
is what ``sglang-lint tests/fixtures/SGL0xx_<rule>.py`` prints (and flake8 too), and
``tests/fixtures/fixes/X.fixed.out`` / ``X.unsafe.fixed.out`` what ``sglang-lint --fix``
(``--unsafe-fixes``) prints for ``X.py``: the findings left (stdout), then the fixes made
(stderr). ``./scripts/test tests/test_fixtures.py --update-golden`` rewrites them; review
the change in the git diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import (
    FIX_FIXTURES, FIXTURES, ROOT, check_golden, expected_findings, findings_of, fix_pairs, fixture_files,
    lines_by_file, run_lint,
)
from sglang_lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules

UNSCREENED = RuleSet(default_rules(), screen=False)
FIXTURE_IDS = [path.name for path in fixture_files()]


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def golden_of(fixture: Path) -> Path:
    return fixture.with_suffix(".out")


def test_every_curated_rule_has_a_fixture_with_findings():
    # Derived rules are tested through their generated examples (test_catalog).
    curated = {rule.code: rule for rule in default_rules() if rule.derived_key is None}
    assert set(curated) == {path.name[:6] for path in fixture_files()}
    for path in fixture_files():
        code = path.name[:6]
        assert path.stem == f"{code}_{curated[code].name.replace('-', '_')}"
        assert {code for _, _, code in expected_findings(path)} == {code}


def test_every_golden_file_belongs_to_a_fixture():
    goldens = {golden_of(path) for path in fixture_files()}
    goldens |= {golden_of(expected) for _, expected, _ in fix_pairs()}
    assert set(FIXTURES.glob("*.out")) | set(FIX_FIXTURES.glob("*.out")) <= goldens


@pytest.fixture(scope="module")
def command_output() -> dict[str, list[str]]:
    """One run of the command over every fixture, from the repository's root."""
    result = run_lint("--no-cache", *map(relative, fixture_files()), cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    return lines_by_file(result.stdout)


@pytest.fixture(scope="module")
def flake8_output(flake8_on_fixtures) -> dict[str, list[str]]:
    assert flake8_on_fixtures.returncode == 1, flake8_on_fixtures.stderr
    return lines_by_file(flake8_on_fixtures.stdout)


@pytest.mark.parametrize("path", fixture_files(), ids=FIXTURE_IDS)
def test_engine_reports_exactly_the_annotations(path: Path):
    source = path.read_text(encoding="utf-8")
    diagnostics = lint(source, str(path))
    assert {(d.line, d.col + 1, d.code) for d in diagnostics} == expected_findings(path)
    # The prefilter and the call-site screen hide none of them.
    assert lint(source, str(path), UNSCREENED) == diagnostics


@pytest.mark.parametrize("path", fixture_files(), ids=FIXTURE_IDS)
def test_command_prints_exactly_the_annotations_as_the_golden_text(path: Path, command_output, update_golden):
    lines = command_output.get(relative(path), [])
    assert findings_of(lines) == expected_findings(path)
    check_golden(golden_of(path), "".join(line + "\n" for line in lines), update_golden)


@pytest.mark.parametrize("path", fixture_files(), ids=FIXTURE_IDS)
def test_flake8_prints_the_same_text(path: Path, flake8_output, command_output):
    lines = flake8_output.get(relative(path), [])
    assert findings_of(lines) == expected_findings(path)
    assert lines == command_output.get(relative(path), [])


FIX_PAIRS = fix_pairs()


@pytest.mark.parametrize(
    "source, expected, unsafe", FIX_PAIRS, ids=[expected.name for _, expected, _ in FIX_PAIRS]
)
def test_fix_output_is_the_golden_text(source: Path, expected: Path, unsafe: bool, fix_runs, update_golden):
    run = fix_runs[unsafe]
    mine = relative(source) + ":"
    left = [line for line in run.first.stdout.splitlines() if line.startswith(mine)]
    fixed = [line for line in run.first.stderr.splitlines() if line.startswith(mine)]
    assert fixed, "the pair must fix something"
    check_golden(golden_of(expected), "".join(line + "\n" for line in left + fixed), update_golden)


def test_messages_name_value_allowed_and_closest():
    path = FIXTURES / "SGL001_unsupported_capture_mode.py"
    source = path.read_text()
    lines = source.splitlines()
    messages = {d.line: d.message for d in lint(source, "x.py")}

    def at(text: str) -> str:
        (number,) = [n for n, line in enumerate(lines, start=1) if text in line]
        return messages[number]

    assert at('set_capture_flag_on_blocks(transformer, mode="pre", enable=True)') == (
        "set_capture_flag_on_blocks(mode='pre'): unsupported capture mode; "
        "expected one of 'pre_rope', 'post_rope' (did you mean 'pre_rope'? fixable with `sglang-lint --fix`)"
    )
    # No close value: no suggestion.
    assert at('mode="raw", enable=True)  # expect').endswith("expected one of 'pre_rope', 'post_rope'")
    # By name: which binding, and on which line.
    constant_line = lines.index('CAPTURE_MODE = "pre"') + 1
    assert f"mode=CAPTURE_MODE) with CAPTURE_MODE = 'pre' (line {constant_line})" in at("mode=CAPTURE_MODE,")
    branch_line = lines.index('        mode = "post-rope"') + 1
    assert f"with mode = 'post-rope' (line {branch_line})" in at("transformer, mode, enable=True)  # expect")
    # Through a wrapper: the message says which function passes the value on.
    assert at('capture_with(tf, mode="raw")').endswith(
        "(capture_with() passes mode on to set_capture_flag_on_blocks())"
    )
    assert "with mode defaulting to 'pre'" in at('def capture_with(transformer, mode="pre")')
