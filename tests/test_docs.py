"""Rule docs: ``explain`` prints one rule the way ruff's pages read; docs/rules.md is the
generated listing of every rule and must be up to date; the pages speak of the project as it
is, not of how it got there."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT, lint_in_process
from sglang_lint.engine.ruletable import default_rules
from sglang_lint.frontends.docs import catalog_markdown


def test_docs_rules_md_is_up_to_date():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == catalog_markdown(default_rules()), "run: sglang-lint catalog docs --output docs/rules.md"
    for rule in default_rules():
        assert f"## {rule.code} `{rule.name}`" in committed


# An account of past work: which session or issue did what, a figure's earlier values.
HISTORY = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|"
    r"twentieth|last|previous|next) session\b"
    r"|\bissues? #?\d+|\(was [\d.]+ ?x|\bwas [\d.]+ ?x, then\b|\bsince the \w+ pass\b",
    re.IGNORECASE,
)
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
               if p.name != "rules.md")  # rules.md quotes sglang's own messages


@pytest.mark.parametrize("page", PAGES)
def test_a_page_speaks_of_the_project_as_it_is(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    found = [f"{page}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in HISTORY.finditer(text)]
    assert found == []


def test_the_history_pattern_finds_an_account_of_past_work():
    for line in ("Since the second pass of issue 17 it reads", "the fourteenth session's fix",
                 "1.06 x (was 3.9 x, then 1.07 x)", "as measured in the last session"):
        assert HISTORY.search(line), line
    assert not HISTORY.search("the language server's session of a document; the request's session")


def test_explain_prints_every_part_of_a_rule():
    result = lint_in_process("explain", "SGL001")
    assert result.returncode == 0
    text = result.stdout
    for part in ("What it checks", "The sglang raise site", "Why is this bad", "Example", "Use instead:", "Fix safety"):
        assert part in text
    assert "set_capture_flag_on_blocks(transformer, mode=\"pre\", enable=True)" in text  # the bad example
    assert "unsupported capture mode: {mode}" in text  # the raise site's message
    assert "Safe/unsafe fix" in text
    by_name = lint_in_process("explain", "unsupported-capture-mode")
    assert by_name.stdout == text
    assert "## SGL004" in lint_in_process("explain", "--markdown", "sgl004").stdout
    assert "No automatic fix." in lint_in_process("explain", "SGL004").stdout


def test_explain_an_unknown_code():
    result = lint_in_process("explain", "SGL999")
    assert result.returncode == 2 and "no rule 'SGL999'" in result.stderr
