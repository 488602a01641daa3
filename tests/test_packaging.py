"""A plain (not editable) ``pip install .`` into a fresh virtual environment gives a
working flake8 plugin and ``sglang-lint`` command, with the rules inside the wheel."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, expected_findings, findings_of, fixture_files, installed_env, lines_by_file

pytestmark = pytest.mark.packaging


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("pkg")
    wheels = base / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)],
        check=True,
    )
    (wheel,) = wheels.glob("sglang_lint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    shipped = sorted(n[len("sglang_lint/rules/"):] for n in names if n.startswith("sglang_lint/rules/"))
    assert shipped == sorted(str(p.relative_to(ROOT / "rules")) for p in (ROOT / "rules").rglob("*") if p.is_file())
    assert "sglang_lint/docs/rules.md" in names  # the language server links diagnostics to it
    env = base / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    subprocess.run([str(env / "bin" / "pip"), "install", "--quiet", str(wheel)], check=True, env=installed_env())
    return env / "bin"


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
