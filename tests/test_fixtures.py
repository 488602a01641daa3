"""Every fixture, through the engine and through a real flake8: exactly the annotated
findings (line, column, code), and nothing on any other line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES, expected_findings, fixture_files, run
from sglang_lint import lint
from sglang_lint.ruletable import default_rules

FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>SGL\d{3}) ")


def test_every_curated_rule_has_a_fixture_with_findings():
    # Derived rules are tested through their generated examples (test_catalog).
    codes = {rule.code for rule in default_rules() if rule.derived_key is None}
    covered = {path.name[:6] for path in fixture_files()}
    assert codes == covered
    for path in fixture_files():
        assert {code for _, _, code in expected_findings(path)} == {path.name[:6]}


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_engine_reports_exactly_the_annotations(path: Path):
    source = path.read_text(encoding="utf-8")
    got = {(d.line, d.col + 1, d.code) for d in lint(source, str(path))}
    assert got == expected_findings(path)


@pytest.fixture(scope="module")
def flake8_findings() -> dict[str, set[tuple[int, int, str]]]:
    result = run("-m", "flake8", "--isolated", "--select", "SGL", *map(str, fixture_files()))
    assert result.returncode == 1, result.stderr
    found: dict[str, set[tuple[int, int, str]]] = {}
    for line in result.stdout.splitlines():
        match = FLAKE8_LINE.match(line)
        assert match, line
        found.setdefault(Path(match["path"]).name, set()).add(
            (int(match["line"]), int(match["col"]), match["code"])
        )
    return found


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_flake8_reports_exactly_the_annotations(path: Path, flake8_findings):
    assert flake8_findings.get(path.name, set()) == expected_findings(path)


def test_cli_reports_exactly_the_annotations():
    result = run("-m", "sglang_lint", *map(str, fixture_files()))
    assert result.returncode == 1, result.stderr
    got = set()
    for line in result.stdout.splitlines():
        match = FLAKE8_LINE.match(line)
        assert match, line
        got.add((Path(match["path"]).name, int(match["line"]), int(match["col"]), match["code"]))
    expected = {(p.name, *finding) for p in fixture_files() for finding in expected_findings(p)}
    assert got == expected


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
