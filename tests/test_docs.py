"""Rule docs: ``explain`` prints one rule the way ruff's pages read; docs/rules.md is the
generated listing of every rule and must be up to date."""

from __future__ import annotations

from conftest import ROOT, lint_in_process
from sglang_lint.engine.ruletable import default_rules
from sglang_lint.frontends.docs import catalog_markdown


def test_docs_rules_md_is_up_to_date():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == catalog_markdown(default_rules()), "run: sglang-lint catalog docs --output docs/rules.md"
    for rule in default_rules():
        assert f"## {rule.code} `{rule.name}`" in committed


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
