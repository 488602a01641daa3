"""Severity: a finding where sglang stops (it raises, argparse refuses the launch) is an error;
one where sglang warns and goes on (a deprecated flag or value it still takes, SGL011) is a
warning, in the command's JSON, SARIF and GitHub outputs and in the language server. flake8
has one level: the code is the same there. Golden outputs beside the fixtures
(``tests/fixtures/severity/<format>.out``, the command over that folder at
sglang 0.5.18)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import FIXTURES, ROOT, check_golden, expected_findings, lint_in_process, run_flake8
from sglang_lint.core.model import SEVERITIES
from sglang_lint.engine.ruletable import default_rules

FOLDER = FIXTURES / "severity"
RELEASE = "0.5.18"


def command(*args: str):
    return lint_in_process("--no-cache", "--sglang-version", RELEASE, *args, "tests/fixtures/severity", cwd=ROOT)


@pytest.mark.parametrize("fmt", ["github", "json"])
def test_the_golden_outputs(fmt, update_golden):
    result = command("--format", fmt)
    assert (result.returncode, result.stderr) == (1, "")
    check_golden(FOLDER / f"{fmt}.out", result.stdout, update_golden)


def test_json_gives_each_finding_its_severity():
    found = json.loads(command("--format", "json").stdout)
    assert [(f["path"].rpartition("/")[2], f["line"], f["code"], f["severity"]) for f in found] == [
        ("deprecated_flags.sh", 5, "SGL011", "warning"),  # ignored: sglang warns and goes on
        ("deprecated_flags.sh", 6, "SGL011", "error"),  # sglang stops the launch on it
        ("deprecated_flags.sh", 7, "SGL011", "error"),  # a value given to a flag that takes none
        ("deprecated_flags.sh", 8, "SGL011", "warning"),
        ("deprecated_flags.sh", 8, "SGL007", "error"),
        ("deprecated_values.py", 5, "SGL011", "warning"),
        ("deprecated_values.py", 5, "SGL009", "error"),
    ]


def test_sarif_levels_per_result_and_per_rule():
    log = json.loads(command("--format", "sarif").stdout)
    (run_,) = log["runs"]
    levels = ["warning", "error", "error", "warning", "error", "warning", "error"]
    assert [r["level"] for r in run_["results"]] == levels
    defaults = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in run_["tool"]["driver"]["rules"]}
    assert defaults == {"SGL007": "error", "SGL009": "error", "SGL011": "warning"}


def test_text_and_flake8_keep_one_level_and_the_same_codes():
    path = FOLDER / "deprecated_values.py"
    flake8 = run_flake8("--select", "SGL", "--sglang-version", RELEASE, str(path.relative_to(ROOT)), cwd=ROOT)
    found = {(int(line.split(":")[1]), int(line.split(":")[2]), line.split()[1]) for line in flake8.stdout.splitlines()}
    assert found == expected_findings(path)
    text = command().stdout.splitlines()
    assert [line.split()[1] for line in text if "deprecated_values.py" in line] == ["SGL011", "SGL009"]


def test_every_rule_has_a_severity_and_the_readme_says_which_are_warnings():
    rules = [rule for rule in default_rules() if rule.derived_key is None]
    assert {rule.severity for rule in rules} <= set(SEVERITIES)
    warnings = sorted(rule.code for rule in rules if rule.severity == "warning")
    assert warnings == ["SGL011"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in rules:
        row = next(line for line in readme.splitlines() if line.startswith(f"| {rule.code} |"))
        assert re.search(rf"\| {rule.severity}\b", row), f"README's row of {rule.code} must say {rule.severity}"
