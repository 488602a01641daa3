"""A file that names its own sglang image is judged by that image, never by a neighbour's; a nightly
image (``nightly-dev-20251215-<sha>``) by the releases around its day (rules/derived/
release_dates.toml); a tag naming neither (``latest``, ``dev``) decides nothing, and ``--verbose``
says so. ``tests/fixtures/images/nightly/`` is the reported case: a Kubernetes file on a nightly
of 2025-12-15 beside one on ``v0.5.5.post3``, through the command (every file, golden
``nightly.out``, the targets ``--verbose`` prints in ``nightly.targets``) and a real flake8 (the
Python file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, check_golden, found_and_annotated, run_flake8, run_lint
from sglang_lint.catalog import release_dates, target
from sglang_lint.catalog.release_dates import releases_around, upload_days
from sglang_lint.catalog.target import TargetRelease, find_target
from sglang_lint.derive.releases.dates import dates_in_listing, release_dates_text
from sglang_lint.frontends.indexes import rule_index
from sglang_lint.launch import image_pins
from test_target import write

HERE = FIXTURES / "images"
CASE = HERE / "nightly"
KNOWN = rule_index().releases


@pytest.fixture(autouse=True)
def repo(tmp_path: Path, monkeypatch) -> Path:
    """A repository of its own (``.git``: the walk stops there), no sglang installed, nothing
    cached from another test."""
    (tmp_path / ".git").mkdir()
    monkeypatch.setattr(target, "installed_version", lambda: None)
    target.clear_cache()
    yield tmp_path
    target.clear_cache()


def find(path: Path, known=KNOWN) -> TargetRelease:
    return find_target(path, cli_version=None, config_version=None, known=known)


def k8s(image: str) -> str:
    return f"spec:\n  containers:\n    - name: serve\n      image: {image}\n      args: [--port, '30000']\n"


# ---- the reported case, end to end ----

def lint_case():
    return run_lint("--no-cache", "--isolated", "--verbose", str(CASE.relative_to(ROOT)), cwd=ROOT)


def test_each_file_is_judged_by_its_own_image(update_golden):
    result = lint_case()
    assert result.returncode == 1
    check_golden(HERE / "nightly.out", result.stdout, update_golden)
    files = sorted(p for p in CASE.iterdir() if p.is_file())
    found, expected = found_and_annotated(result.stdout, files)
    assert found == expected
    targets = "".join(line.replace(f"{ROOT}/", "") + "\n" for line in result.stderr.splitlines()
                      if " judged against " in line)
    check_golden(HERE / "nightly.targets", targets, update_golden)


def test_flake8_judges_the_python_file_by_the_folders_images():
    python = [str(p.relative_to(ROOT)) for p in sorted(CASE.glob("*.py"))]
    result = run_flake8("--select", "SGL", "--sglang-no-cache", *python, cwd=ROOT)
    command = [line for line in lint_case().stdout.splitlines() if line.split(":", 1)[0].endswith(".py")]
    assert result.stdout.splitlines() == command
    assert command


# ---- a nightly's day ----

@pytest.mark.parametrize("tag, day", [
    ("nightly-dev-20251215-1a2b3c4d", "2025-12-15"), ("nightly-dev-cu13-20260511-044bb88a", "2026-05-11"),
    ("nightly-dev-20251215", "2025-12-15"), ("dev-20250820", "2025-08-20"),
    ("nightly-dev-20251315-1a2b3c4d", ""), ("nightly-dev-cu13", ""), ("dev-nightly-0820", ""), ("dev", ""),
    ("dev-cu13", ""), ("latest", ""), ("latest-cu130-runtime", ""), ("v0.5.6", ""), ("blackwell-20251215", ""),
])
def test_the_day_a_tag_was_built(tag, day):
    assert image_pins.build_day(tag) == day


def test_the_releases_around_a_day_from_the_table():
    days = upload_days()
    assert (days["0.5.6.post2"], days["0.5.7"]) == ("2025-12-11", "2026-01-01")
    assert releases_around("2025-12-15", days) == ("0.5.6.post2", "0.5.7")
    # A release uploaded on the nightly's own day may be either side of the build: neither end.
    assert releases_around(days["0.5.7"], days) == ("0.5.6.post2", "0.5.8")
    # A pre-release is no end: the final after it has its changes.
    assert days["0.5.10rc0"] < "2026-04-01" < days["0.5.10"]
    assert releases_around("2026-04-01", days) == ("0.5.9", "0.5.10")
    assert releases_around("2099-01-01", days) == (max(days, key=target.version_key), None)
    assert releases_around("2000-01-01", days)[0] is None


def test_every_release_the_catalog_knows_has_its_day():
    assert set(KNOWN) <= set(upload_days())


def test_the_days_are_read_from_the_index_listing(tmp_path):
    listing = {"files": [
        {"filename": "sglang-0.5.7-py3-none-any.whl", "upload-time": "2026-01-01T03:01:11.852724Z"},
        {"filename": "sglang-0.5.7.tar.gz", "upload-time": "2025-12-31T23:59:59Z"},  # the earliest file
        {"filename": "sglang-0.5.6.post2.tar.gz", "upload-time": "2025-12-11T20:30:19.023387Z"},
        {"filename": "sglang-0.5.5.zip"},  # no upload time
        {"filename": "sglang_router-0.2.1-py3-none-any.whl", "upload-time": "2025-12-01T00:00:00Z"},
    ]}
    days = dates_in_listing(listing)
    assert days == {"0.5.6.post2": "2025-12-11", "0.5.7": "2025-12-31"}
    table = tmp_path / release_dates.TABLE
    table.write_text(release_dates_text(days))
    assert upload_days(str(table)) == days
    assert upload_days(str(tmp_path / "missing.toml")) == {}


# ---- which image judges a file ----

def test_a_files_own_image_wins_over_a_neighbours(repo):
    stable = write(repo / "stable.yaml", k8s("lmsysorg/sglang:v0.5.5.post3"))
    nightly = write(repo / "nightly.yaml", k8s("lmsysorg/sglang:nightly-dev-20251215-1a2b3c4d"))
    assert find(stable) == TargetRelease(("0.5.5.post3",), f"the image lmsysorg/sglang:v0.5.5.post3 in {stable}:4")
    assert find(nightly) == TargetRelease(("0.5.6.post2", "0.5.7"), (
        f"the image lmsysorg/sglang:nightly-dev-20251215-1a2b3c4d in {nightly}:4: a nightly of 2025-12-15, "
        "between sglang 0.5.6.post2 (2025-12-11) and 0.5.7 (2026-01-01)"))
    # its own image wins over the project's pip pin too; a file without one keeps the pin
    write(repo / "requirements.txt", "sglang==0.5.9\n")
    assert find(stable).releases == ("0.5.5.post3",)
    assert find(repo / "launch.sh").releases == ("0.5.9",)


def test_a_nightly_in_a_folder_stands_for_the_releases_around_it(repo):
    write(repo / "deploy" / "stable.yaml", k8s("lmsysorg/sglang:v0.5.5.post3"))
    write(repo / "deploy" / "nightly.yaml", k8s("lmsysorg/sglang:nightly-dev-20251215-1a2b3c4d"))
    assert find(repo / "app.py").releases == ("0.5.5.post3", "0.5.6.post2", "0.5.7")


def test_a_nightly_after_every_known_release(repo):
    path = write(repo / "k8s.yaml", k8s("lmsysorg/sglang:nightly-dev-cu13-20991231-044bb88a"))
    found = find(path)
    assert (found.releases, found.newer_than_catalog) == ((KNOWN[-1],), True)
    assert found.reason.endswith(f"newer than every release the catalog knows; judged by the newest, {KNOWN[-1]}")


def test_a_tag_that_names_no_release_falls_to_the_project_never_to_a_neighbour(repo):
    write(repo / "stable.yaml", k8s("lmsysorg/sglang:v0.5.5.post3"))
    latest = write(repo / "latest.yaml", k8s("lmsysorg/sglang:latest"))
    assert find(latest) == TargetRelease((), (
        f"the image lmsysorg/sglang:latest in {latest}:4: a tag that names no release; no pin above: the newest rules"))
    pin = write(repo / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["sglang==0.5.9"]\n')
    target.clear_cache()
    assert find(latest) == TargetRelease(("0.5.9",), (
        f"the image lmsysorg/sglang:latest in {latest}:4: a tag that names no release; sglang==0.5.9 in {pin}"))


def test_a_tag_that_names_no_release_beside_one_that_does(repo):
    second = k8s("lmsysorg/sglang:dev").replace("spec:\n", "---\nspec:\n")
    path = write(repo / "pd.yaml", k8s("lmsysorg/sglang:v0.5.9") + second)
    assert find(path) == TargetRelease(("0.5.9", KNOWN[-1]), (
        f"the image lmsysorg/sglang:v0.5.9 in {path}:4; the image lmsysorg/sglang:dev in {path}:10: "
        f"a tag that names no release, the newest ({KNOWN[-1]})"))


def test_a_file_that_cannot_name_an_image_reads_nothing_of_itself(repo, monkeypatch):
    opened = []
    monkeypatch.setattr(image_pins, "_read", lambda path: opened.append(path))
    write(repo / "app.py", 'IMAGE = "lmsysorg/sglang:v0.5.2"\n')
    assert find(repo / "app.py") == TargetRelease()
    assert opened == []
