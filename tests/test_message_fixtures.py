"""sglang's messages as sglang prints them for the call or launch judged: each placeholder of
the raise's f-string shows the value it takes there where that value is certain, and is
visibly a placeholder (``<expr>``, ``<?>``) where not, never f-string syntax. The files of
``tests/fixtures/messages/<release>/`` (a derived rule, a start-up check, a request's
sampling parameters), through the command and a real flake8: exactly the annotated findings
and the golden text ``tests/fixtures/messages/<release>.out``."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ReleaseFixtures

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
