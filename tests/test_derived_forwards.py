"""Raise sites a call reaches past another raise or through another callable, derived from the
stand-in tree (tests/derive_tree/sglang/modes/forwards.py) and judged on the fixture
tests/fixtures/derived_functions/calls.py: exactly its annotated findings (``# expect:
<raise site's function>@<column>``) and the golden text beside it (each finding's code written
as its raise site's function, which the stand-in tree's numbering does not move)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES, check_golden
from sglang_lint import lint
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.sites.writing import write_catalog
from sglang_lint.engine.ruletable import RuleSet, load_rules

TREE = Path(__file__).resolve().parent / "derive_tree"
FIXTURE = FIXTURES / "derived_functions" / "calls.py"
EXPECT = re.compile(r"#\s*expect:\s*([\w.]+)@(\d+)\s*$")


@pytest.fixture(scope="module")
def derivation():
    return derive_sites(TREE)


@pytest.fixture(scope="module")
def judged(tmp_path_factory, derivation):
    """The fixture's findings under the stand-in tree's derived rules, each with the function
    of the raise site its rule mirrors."""
    rules_dir = tmp_path_factory.mktemp("rules")
    write_catalog(derivation, rules_dir)
    rules = list(load_rules([rules_dir]))
    sites = {rule.code: rule.raise_site.function for rule in rules}
    found = lint(FIXTURE.read_text(encoding="utf-8"), str(FIXTURE), RuleSet(rules))
    return [(d.line, d.col + 1, sites[d.code], d.message) for d in found]


def test_the_fixture_reports_exactly_its_annotated_findings(judged):
    expected = set()
    for number, line in enumerate(FIXTURE.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            expected.add((number, int(match.group(2)), match.group(1)))
    assert {(line, column, function) for line, column, function, _ in judged} == expected


def test_the_fixture_s_messages_are_the_golden_text(judged, update_golden):
    text = "".join(f"calls.py:{line}:{column}: {function} {message}\n" for line, column, function, message in judged)
    check_golden(FIXTURE.with_suffix(".out"), text, update_golden)


def test_a_test_beside_a_branch_that_only_raises_is_left_off_the_path(derivation):
    paths = {(p.function, p.message): p.when for p in derivation.paths if p.module == "sglang.modes.forwards"}
    # the environment's test before it is unknown at a call; the call fails at either raise
    assert paths["StepSampler.__init__", "unknown solver {solver}"] == "solver not in ('euler', 'heun')"
    assert paths["pick_order", "order exceeds the history"] == "order > len(history)"


def test_pass_throughs_past_an_if_and_a_default_that_fails_the_callee(derivation):
    through = {(s.function, t.name): t for s in derivation.rules if s.module == "sglang.modes.forwards"
               for t in s.passthrough}
    bridge = through["PositionTable.__init__", "sglang.modes.forwards.TextBridge"]
    assert (bridge.argument, bridge.position, bridge.omitted) == ("layout", 2, False)
    reply = through["ReplyReader.__init__", "sglang.modes.forwards.read_reply"]
    assert (reply.argument, reply.position, reply.omitted) == ("preamble", None, True)
