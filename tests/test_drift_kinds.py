"""`catalog verify` compares every fact a rule holds with sglang's source, one planted drift
per check kind and per fact (tests/fixtures/drift/: each ``X.toml`` names the files of sglang
0.5.23's wheel a small tree is made of and the edit planted in it; ``X.out``, beside it, is
verify's output on the planted tree, for the catalog's rules whose raise site is in it). The
tree is copied from the cached wheel at test time (no file of sglang is kept here); unplanted,
it verifies clean."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT, check_golden, lint_in_process
from sglang_lint.core.rulefile import tomllib
from sglang_lint.derive.sites.drift import verify
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.engine.ruletable import load_rules

FIXTURES = ROOT / "tests" / "fixtures" / "drift"
PLANTS = sorted(FIXTURES.glob("*.toml"))


@pytest.fixture(scope="module")
def catalog():
    return list(load_rules([ROOT / "rules"]))


def _tree(sglang_tree: Path, files: list[str], where: Path) -> tuple[Path, set[str]]:
    """The small tree: ``files`` of the wheel (and its ``_version.py``, which names the release)."""
    for name in [*files, "sglang/_version.py"]:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sglang_tree / name, where / name)
    return where, {".".join(Path(name).with_suffix("").parts) for name in files}


def _report(rules, tree: Path, modules: set[str]) -> str:
    derivation = derive_sites(tree, index_raises=True, paths=False)
    drift = verify([r for r in rules if r.raise_site.module in modules], derivation)
    return "".join(line + "\n" for line in drift.report(derivation.version))


@pytest.mark.corpus
@pytest.mark.parametrize("plant", PLANTS, ids=[p.stem for p in PLANTS])
def test_planted_drift(plant, tmp_path, sglang_tree, catalog, update_golden):
    spec = tomllib.loads(plant.read_text(encoding="utf-8"))
    tree, modules = _tree(sglang_tree, spec["files"], tmp_path / "tree")
    assert _report(catalog, tree, modules) == "sglang 0.5.23: 0 missing, 0 changed, 0 new\n"
    assert any(r.code == plant.stem.split("-")[0] for r in catalog if r.raise_site.module in modules)
    for edit in spec["plant"]:
        path = tree / edit["file"]
        text = path.read_text(encoding="utf-8")
        assert text.count(edit["old"]) == 1, (edit["file"], edit["old"])
        path.write_text(text.replace(edit["old"], edit["new"]), encoding="utf-8")
    check_golden(plant.with_suffix(".out"), _report(catalog, tree, modules), update_golden)


@pytest.mark.corpus
def test_the_command_reports_a_widened_choice(tmp_path, sglang_tree, catalog):
    """The command itself, on the tree of SGL003's planted drift and a rule folder of the rules
    of its modules: the same lines, and exit status 1."""
    spec = tomllib.loads((FIXTURES / "SGL003-allowed-values-curated.toml").read_text(encoding="utf-8"))
    tree, modules = _tree(sglang_tree, spec["files"], tmp_path / "tree")
    (tree / "sglang" / "__init__.py").write_text("", encoding="utf-8")  # (the command looks for the package)
    (edit,) = spec["plant"]
    path = tree / edit["file"]
    path.write_text(path.read_text(encoding="utf-8").replace(edit["old"], edit["new"]), encoding="utf-8")
    rules = tmp_path / "rules"
    (rules / "derived").mkdir(parents=True)
    for rule in catalog:
        if rule.raise_site.module in modules:
            folder = rules / "derived" if rule.derived_key else rules
            shutil.copyfile(rule.path, folder / rule.path.name)
    result = lint_in_process("catalog", "verify", "--sglang", str(tree), "--rules", str(rules))
    assert (result.returncode, result.stdout) == (1, (FIXTURES / "SGL003-allowed-values-curated.out").read_text())
