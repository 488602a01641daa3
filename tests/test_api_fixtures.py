"""SGL013 and SGL014 at releases where sglang's Python API differs: each folder of
``tests/fixtures/api/`` is named by the release it is linted against and holds calls of every
surface (Engine methods, classes whose keywords build the server's arguments, launch and test
helpers, the frontend, sampling parameters, parser registries), the bad beside the good. Through the command and a
real flake8: exactly the annotated findings and the golden text ``tests/fixtures/api/<release>.out``."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ReleaseFixtures

API = FIXTURES / "api"
RELEASES = sorted(p.name for p in API.iterdir() if p.is_dir())
FIXTURES_AT = ReleaseFixtures(API, "SGL006,SGL007,SGL009,SGL013,SGL014")


def test_two_releases_where_the_surfaces_changed():
    assert len(RELEASES) >= 2
    for release in RELEASES:
        names = {p.name for p in FIXTURES_AT.files(release)}
        assert names == {"engine_methods.py", "registries.py", "runtime_and_helpers.py", "sampling.py"}


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_exactly_the_annotated_calls(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same(release):
    FIXTURES_AT.check_flake8(release)
