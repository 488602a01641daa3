"""SGL012 at the releases where sglang's start-up validation differs: each folder of
``tests/fixtures/startup/`` is named by the release it is linted against and holds launches of
every family (combination, divisibility, range, string form, an environment variable inline,
exported, in YAML and in Python), the bad beside the good. Through the command (every file) and
a real flake8 (the Python files): exactly the annotated findings and the golden text
``tests/fixtures/startup/<release>.out``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, check_golden, found_and_annotated, run_flake8, run_lint

STARTUP = FIXTURES / "startup"
RELEASES = sorted(p.name for p in STARTUP.iterdir() if p.is_dir())


def _files(release: str) -> list[Path]:
    return sorted(p for p in (STARTUP / release).iterdir() if p.is_file())


def _lint(release: str):
    folder = (STARTUP / release).relative_to(ROOT)
    return run_lint("--no-cache", "--isolated", "--select", "SGL012", "--sglang-version", release, str(folder),
                    cwd=ROOT)


def test_every_release_has_every_family():
    assert len(RELEASES) >= 3
    for release in RELEASES:
        suffixes = {p.suffix for p in _files(release)}
        assert {".py", ".sh", ".yaml"} <= suffixes, release


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_exactly_the_annotated_launches(release, update_golden):
    result = _lint(release)
    assert result.returncode == 1 and result.stderr == ""
    check_golden(STARTUP / f"{release}.out", result.stdout, update_golden)
    found, expected = found_and_annotated(result.stdout, _files(release))
    assert found == expected


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same_on_the_python_files(release):
    python = [str(p.relative_to(ROOT)) for p in _files(release) if p.suffix == ".py"]
    result = run_flake8("--select", "SGL012", f"--sglang-version={release}", "--sglang-no-cache", *python, cwd=ROOT)
    command = [line for line in _lint(release).stdout.splitlines() if line.split(":", 1)[0].endswith(".py")]
    assert result.stdout.splitlines() == command
    assert command
