"""SGL013 and SGL014 at releases where sglang's Python API differs: each folder of
``tests/fixtures/api/`` is named by the release it is linted against and holds calls of every
surface (Engine methods, classes whose keywords build the server's arguments, launch and test
helpers, the frontend, sampling parameters, parser registries), the bad beside the good. Through the command and a
real flake8: exactly the annotated findings and the golden text ``tests/fixtures/api/<release>.out``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, check_golden, found_and_annotated, run_flake8, run_lint

API = FIXTURES / "api"
RELEASES = sorted(p.name for p in API.iterdir() if p.is_dir())
CODES = "SGL006,SGL007,SGL009,SGL013,SGL014"


def _files(release: str) -> list[Path]:
    return sorted(p for p in (API / release).iterdir() if p.suffix == ".py")


def _lint(release: str):
    folder = (API / release).relative_to(ROOT)
    return run_lint("--no-cache", "--isolated", "--select", CODES, "--sglang-version", release, str(folder), cwd=ROOT)


def test_two_releases_where_the_surfaces_changed():
    assert len(RELEASES) >= 2
    for release in RELEASES:
        names = {p.name for p in _files(release)}
        assert names == {"engine_methods.py", "registries.py", "runtime_and_helpers.py", "sampling.py"}


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_exactly_the_annotated_calls(release, update_golden):
    result = _lint(release)
    assert result.returncode == 1 and result.stderr == ""
    check_golden(API / f"{release}.out", result.stdout, update_golden)
    found, expected = found_and_annotated(result.stdout, _files(release))
    assert found == expected


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same(release):
    files = [str(p.relative_to(ROOT)) for p in _files(release)]
    result = run_flake8("--select", CODES, f"--sglang-version={release}", "--sglang-no-cache", *files, cwd=ROOT)
    assert result.stdout.splitlines() == _lint(release).stdout.splitlines()
    assert result.stdout
