"""sglang's messages as sglang prints them for the call or launch judged: each placeholder of
the raise's f-string shows the value it takes there where that value is certain, and is
visibly a placeholder (``<expr>``, ``<?>``) where not, never f-string syntax. The files of
``tests/fixtures/messages/<release>/`` (a derived rule, a start-up check, a request's
sampling parameters), through the command and a real flake8: exactly the annotated findings
and the golden text ``tests/fixtures/messages/<release>.out``."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ReleaseFixtures
from sglang_lint.checks.fails_when.operations import SetOrderList
from sglang_lint.checks.fails_when.values import UNKNOWN
from sglang_lint.checks.messages import with_values

MESSAGES = FIXTURES / "messages"
RELEASES = sorted(p.name for p in MESSAGES.iterdir() if p.is_dir())
FIXTURES_AT = ReleaseFixtures(MESSAGES, "SGL")


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_quotes_sglang_with_the_values(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)
    assert "{" not in (MESSAGES / f"{release}.out").read_text(encoding="utf-8")


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_quotes_the_same(release):
    FIXTURES_AT.check_flake8(release)


@pytest.mark.parametrize("summary, values, expected", [
    # each placeholder as the f-string prints it: its conversion and format spec kept
    ("got {mode!r}", ["fp9"], "got 'fp9'"),
    ("got {mode}", ["fp9"], "got fp9"),
    ("ratio {r:.2f} of {n}", [0.5, 3], "ratio 0.50 of 3"),
    ("layers {ids}", [[1, 2]], "layers [1, 2]"),
    # a value not known, or one no plain text stands for, stays the expression
    ("got {args.eval_name} and {n}", [UNKNOWN, 2], "got <args.eval_name> and 2"),
    ("got {x:.2f}", ["text"], "got <x>"),
    ("got {len(x)!r}", [3], "got 3"),
    ("got {x[1:2]} {a != b}", [UNKNOWN, True], "got <x[1:2]> True"),
    ("got {f(x)!r:>8}", [UNKNOWN], "got <f(x)>"),
    ("got {x}", [None], "got None"),
    # list(s) of a set: Python's order of it changes from run to run
    ("got {x}", [SetOrderList(["image", "video"])], "got <x>"),
    # values that do not pair with the placeholders show none
    ("got {a} and {b}", [1], "got <a> and <b>"),
])
def test_a_derived_message_shows_each_value_as_sglang_prints_it(summary, values, expected):
    assert with_values(summary, values) == expected
