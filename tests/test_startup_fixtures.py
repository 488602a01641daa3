"""SGL012 at the releases where sglang's start-up validation differs: each folder of
``tests/fixtures/startup/`` is named by the release it is linted against and holds launches of
every family (combination, divisibility, range, string form, an environment variable inline,
exported, in YAML and in Python), the bad beside the good. Through the command (every file) and
a real flake8 (the Python files): exactly the annotated findings and the golden text
``tests/fixtures/startup/<release>.out``."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ReleaseFixtures

STARTUP = FIXTURES / "startup"
RELEASES = sorted(p.name for p in STARTUP.iterdir() if p.is_dir())
FIXTURES_AT = ReleaseFixtures(STARTUP, "SGL012")


def test_every_release_has_every_family():
    assert len(RELEASES) >= 3
    for release in RELEASES:
        suffixes = {p.suffix for p in FIXTURES_AT.files(release)}
        assert {".py", ".sh", ".yaml"} <= suffixes, release


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_exactly_the_annotated_launches(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same_on_the_python_files(release):
    FIXTURES_AT.check_flake8(release)
