"""Fixtures linted against the release their folder names, at the releases where sglang differs:
through the command and a real flake8, exactly the annotated findings and the golden text
``<set>/<release>.out`` beside them.

* ``tests/fixtures/api/`` (SGL013, SGL014 and the flag rules): calls of every surface of the
  Python API (Engine methods, classes whose keywords build the server's arguments, launch and
  test helpers, the frontend, sampling parameters, parser registries), the bad beside the good;
* ``tests/fixtures/startup/`` (SGL012): launches of every family of the start-up validation
  (combination, divisibility, range, string form, an environment variable inline, exported, in
  YAML and in Python), the bad beside the good; flake8 reads the Python files."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ReleaseFixtures

SETS = {
    "api": ReleaseFixtures(FIXTURES / "api", "SGL006,SGL007,SGL009,SGL013,SGL014"),
    "startup": ReleaseFixtures(FIXTURES / "startup", "SGL012"),
}
CASES = [(name, p.name) for name, fixtures in SETS.items() for p in sorted(fixtures.folder.iterdir()) if p.is_dir()]


def releases(name: str) -> list[str]:
    return [release for set_name, release in CASES if set_name == name]


def test_the_api_set_holds_two_releases_where_the_surfaces_changed():
    assert len(releases("api")) >= 2
    for release in releases("api"):
        names = {p.name for p in SETS["api"].files(release)}
        assert names == {"engine_methods.py", "registries.py", "runtime_and_helpers.py", "sampling.py"}


def test_the_startup_set_has_every_family_at_each_release():
    assert len(releases("startup")) >= 3
    for release in releases("startup"):
        suffixes = {p.suffix for p in SETS["startup"].files(release)}
        assert {".py", ".sh", ".yaml"} <= suffixes, release


@pytest.mark.parametrize("name, release", CASES)
def test_the_command_reports_exactly_the_annotated_findings(name, release, update_golden):
    SETS[name].check_command(release, update_golden)


@pytest.mark.parametrize("name, release", CASES)
def test_flake8_reports_the_same_on_the_python_files(name, release):
    SETS[name].check_flake8(release)
