"""The chain-sync check's screen (checks/chain_sync.py ``_ast_may_fire``) reads a class's
capture and replay chains on the file's ast, as the check reads them on LibCST: every file
the screen rules out has no chain-sync finding. Checked over every combination of the forms
a chain can take on either side, and the class around them; both verdicts must occur."""

from __future__ import annotations

import itertools

import pytest

from sglang_lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules

SGL002 = [rule for rule in default_rules() if rule.code == "SGL002"]
SCREENED = RuleSet(SGL002)
UNSCREENED = RuleSet(SGL002, screen=False)

DECODE_IDLE = ("is_decode", "is_idle")
WITH_VERIFY = ("is_decode", "is_idle", "is_target_verify")


def _chain(form: str, predicates: tuple[str, ...], indent: str) -> str:
    """An ``if/elif/else: raise`` chain over ``forward_batch.forward_mode`` in some form."""
    tests = [f"forward_batch.forward_mode.{name}()" for name in predicates]
    raise_line = 'raise ValueError(f"Invalid forward mode: {forward_batch.forward_mode=}")'
    lines = [f"if {tests[0]}:", "    x = 1"]
    for test in tests[1:]:
        lines += [f"elif {test}:", "    x = 2"]
    if form == "elif":
        lines += ["else:", f"    {raise_line}"]
    elif form == "else-if":  # the last test inside the else block: not an elif
        lines = lines[:-2] + ["else:", f"    if {tests[-1]}:", "        x = 2", "    else:", f"        {raise_line}"]
    elif form == "same-line-else":  # ``else: raise`` on one line: no indented block
        lines += [f"else: {raise_line}"]
    elif form == "other-exception":
        lines += ["else:", '    raise RuntimeError("no")']
    elif form == "no-else":
        pass
    elif form == "two-statements":
        lines += ["else:", f"    y = 0; {raise_line}"]
    elif form == "bare-name":
        lines += ["else:", "    raise ValueError"]
    elif form == "other-subject":
        lines = [line.replace("forward_batch.forward_mode.", "mode.") for line in lines]
        lines += ["else:", f"    {raise_line}"]
    elif form == "in-loop":
        lines = ["for _ in range(2):"] + ["    " + line for line in lines + ["else:", f"    {raise_line}"]]
    elif form == "nested-def":
        lines = ["def inner():"] + ["    " + line for line in lines + ["else:", f"    {raise_line}"]]
    elif form == "in-lambda-test":  # a predicate only inside a lambda of the test still counts
        lines = [lines[0].replace(tests[0], f"(lambda: {tests[0]})()")] + lines[1:] + ["else:", f"    {raise_line}"]
    return "".join(f"{indent}{line}\n" for line in lines)


FORMS = ["elif", "else-if", "same-line-else", "other-exception", "no-else", "two-statements", "bare-name",
         "other-subject", "in-loop", "nested-def", "in-lambda-test"]
SETS = [DECODE_IDLE, WITH_VERIFY]


def _program(capture: tuple, replay: tuple, around: str) -> str:
    (capture_form, capture_set), (replay_form, replay_set) = capture, replay
    methods = (
        "    def _capture_metadata(self, forward_batch):\n" + _chain(capture_form, capture_set, " " * 8)
        + "\n    " + ("async " if around == "async-replay" else "") + "def _replay_metadata(self, forward_batch):\n"
        + _chain(replay_form, replay_set, " " * 8)
    )
    if around == "functions":  # no class: nothing to compare
        return methods.replace("\n    ", "\n").lstrip()
    body = "class Backend:\n" + methods
    if around == "in-function":
        return "def make():\n" + "".join("    " + line + "\n" for line in body.splitlines())
    return body


CASES = [
    (capture, replay, around)
    for capture, replay in itertools.product(itertools.product(FORMS, SETS), repeat=2)
    for around in ("class", "async-replay", "in-function", "functions")
    if around == "class" or capture[0] == replay[0] == "elif"
]


def _chain_findings(source: str) -> list:
    return [d for d in lint(source, "backend.py", UNSCREENED) if " tests forward_mode." in d.message]


@pytest.mark.parametrize("capture, replay, around", CASES)
def test_a_file_the_screen_rules_out_has_no_chain_finding(capture, replay, around):
    source = _program(capture, replay, around)
    compile(source, "backend.py", "exec")
    may_fire = SCREENED.skip_reason(source) is None
    if not may_fire:
        assert _chain_findings(source) == [], source


def test_both_verdicts_occur_and_agree_on_the_plain_forms():
    verdicts = {}
    for capture, replay, around in CASES:
        source = _program(capture, replay, around)
        verdicts[capture, replay, around] = (SCREENED.skip_reason(source) is None, bool(_chain_findings(source)))
    # The plain forms: the screen says what the check finds, exactly.
    plain = {key: value for key, value in verdicts.items() if key[0][0] == key[1][0] == "elif"}
    assert all(screen == found for screen, found in plain.values()), plain
    assert verdicts[("elif", DECODE_IDLE), ("elif", WITH_VERIFY), "class"] == (True, True)
    assert verdicts[("elif", WITH_VERIFY), ("elif", WITH_VERIFY), "class"] == (False, False)
    assert verdicts[("elif", DECODE_IDLE), ("elif", WITH_VERIFY), "functions"] == (False, False)
    ruled_out = sum(not screen for screen, _ in verdicts.values())
    assert 0 < ruled_out < len(verdicts) and any(found for _, found in verdicts.values())
