"""The sdist and the wheel that ``python -m build`` makes install into fresh virtual
environments: the wheel gives a working flake8 plugin and ``sglang-lint`` command with the rules
inside it, and the sdist (built into a wheel by pip, as a user without the wheel would) lints the
example project as the README shows."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, expected_findings, findings_of, fixture_files, installed_env, lines_by_file

pytestmark = pytest.mark.packaging


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """``python -m build``'s sdist and wheel (the wheel is built from the sdist, so the sdist
    holds everything a build needs)."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True, env=installed_env())
    (wheel,) = dist.glob("sglang_lint-*.whl")
    (sdist,) = dist.glob("sglang_lint-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def fresh_venv(base: Path, artifact: Path) -> Path:
    """A new virtual environment with ``artifact`` installed (its dependencies through pip)."""
    env = base / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    subprocess.run([str(env / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(artifact)],
                   check=True, env=installed_env())
    return env / "bin"


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    with zipfile.ZipFile(built["wheel"]) as archive:
        names = archive.namelist()
    shipped = sorted(n[len("sglang_lint/rules/"):] for n in names if n.startswith("sglang_lint/rules/"))
    assert shipped == sorted(str(p.relative_to(ROOT / "rules")) for p in (ROOT / "rules").rglob("*") if p.is_file())
    assert "sglang_lint/docs/rules.md" in names  # the language server links diagnostics to it
    return fresh_venv(tmp_path_factory.mktemp("wheel"), built["wheel"])


def parse(output: str) -> set[tuple[str, int, int, str]]:
    return {(Path(path).name, *f) for path, lines in lines_by_file(output).items() for f in findings_of(lines)}


def expected() -> set[tuple[str, int, int, str]]:
    return {(p.name, *f) for p in fixture_files() for f in expected_findings(p)}


def test_installed_flake8_plugin(installed: Path):
    result = subprocess.run(
        [str(installed / "flake8"), "--isolated", "--select", "SGL", *map(str, fixture_files())],
        capture_output=True, text=True, env=installed_env(),
    )
    assert result.returncode == 1, result.stderr
    assert parse(result.stdout) == expected()


def test_installed_command(installed: Path, tmp_path: Path):
    result = subprocess.run(
        [str(installed / "sglang-lint"), "--no-cache", *map(str, fixture_files())],
        capture_output=True, text=True, cwd=tmp_path, env=installed_env(),
    )
    assert result.returncode == 1, result.stderr
    assert parse(result.stdout) == expected()
    listing = subprocess.run([str(installed / "sglang-lint"), "rules"], capture_output=True, text=True,
                             env=installed_env(), cwd=tmp_path)
    codes = [line.split()[0] for line in listing.stdout.splitlines()]
    assert codes[:5] == ["SGL001", "SGL002", "SGL003", "SGL004", "SGL005"] and len(codes) > 300


def test_the_sdist_installs_and_lints_the_example(built, tmp_path: Path):
    with tarfile.open(built["sdist"]) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for shipped in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "rules/derived/server_args.toml",
                    "examples/serving-project/launch.sh", "src/sglang_lint/frontends/front.py"):
        assert shipped in names, shipped
    assert top == built["sdist"].name.removesuffix(".tar.gz")
    bin_dir = fresh_venv(tmp_path, built["sdist"])
    golden = (ROOT / "tests/fixtures/examples/serving-project.out").read_text()
    result = subprocess.run([str(bin_dir / "sglang-lint"), "--no-cache", "examples/serving-project"],
                            cwd=ROOT, capture_output=True, text=True, env=installed_env())
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == golden
