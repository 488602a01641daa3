"""sglang 0.5.23's own tree: zero findings, and every bug planted at a real call site is
found at its exact line and nothing else is (through the engine and through flake8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run
from sglang_corpus import MUTATIONS, apply_mutation, expected_line
from sglang_lint import SourceError, lint
from sglang_lint.ruletable import default_ruleset
from sglang_lint.fixes import fix_bytes
from sglang_lint.pynames import module_name_for

pytestmark = pytest.mark.corpus


def test_whole_tree_lints_clean(sglang_tree: Path):
    files = sorted((sglang_tree / "sglang").rglob("*.py"))
    assert len(files) > 4500
    findings, errors = [], []
    for path in files:
        relative = str(path.relative_to(sglang_tree))
        try:
            findings += [f"{relative}:{d.line}:{d.col + 1}: {d.code}" for d in lint(path.read_bytes(), relative)]
        except SourceError as exc:
            errors.append(f"{relative}: {exc}")
    assert findings == []
    assert errors == []


def test_at_least_25_mutations_cover_every_rule_and_form():
    assert len(MUTATIONS) >= 25
    assert {m.code for m in MUTATIONS} == {f"SGL{n:03d}" for n in range(1, 11)}
    forms = {m.form for m in MUTATIONS}
    wanted = {"keyword", "positional", "alias", "constant", "wrapper", "config field", "None default", "launch flags"}
    assert wanted <= forms


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: f"{m.code}-{m.form.replace(' ', '-')}")
def test_planted_bug_is_found_at_its_line(sglang_tree: Path, tmp_path: Path, mutation):
    path = apply_mutation(sglang_tree, mutation, tmp_path)
    diagnostics = lint(path.read_bytes(), mutation.path)
    assert [(d.line, d.code) for d in diagnostics] == [(expected_line(mutation, path), mutation.code)]


def test_flake8_on_the_tree(sglang_tree: Path, tmp_path: Path):
    # The plugin cannot report on a file the prefilter rejects (test_engine proves the
    # file is not even parsed), so flake8 runs on the files that pass it, and on the
    # mutated copies; scripts/sglang_corpus.py --flake8 runs it over the whole tree.
    ruleset = default_ruleset()
    candidates = []
    for path in sorted((sglang_tree / "sglang").rglob("*.py")):
        relative = str(path.relative_to(sglang_tree))
        if ruleset.may_match(path.read_text(encoding="utf-8", errors="replace"), module_name_for(relative)[0]):
            candidates.append(relative)
    assert 10 < len(candidates) < len(list((sglang_tree / "sglang").rglob("*.py"))) // 4
    clean = run("-m", "flake8", "--isolated", "--select", "SGL", "-j", "2", *candidates, cwd=sglang_tree)
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stderr

    expected = []
    for index, mutation in enumerate(MUTATIONS):
        path = apply_mutation(sglang_tree, mutation, tmp_path / f"m{index}")
        expected.append(f"{Path(f'm{index}') / mutation.path}:{expected_line(mutation, path)} {mutation.code}")
    result = run(
        "-m", "flake8", "--isolated", "--select", "SGL", "-j", "2",
        *(str(Path(f"m{i}") / m.path) for i, m in enumerate(MUTATIONS)), cwd=tmp_path,
    )
    got = sorted(
        line.split(": ", 1)[0].rsplit(":", 1)[0] + " " + line.split()[1] for line in result.stdout.splitlines()
    )
    expected.sort()
    assert got == expected


@pytest.mark.parametrize("mutation", [m for m in MUTATIONS if m.restores], ids=lambda m: f"{m.code}-{m.name}")
def test_fix_restores_a_misspelt_value_to_sglangs_bytes(sglang_tree: Path, tmp_path: Path, mutation):
    path = apply_mutation(sglang_tree, mutation, tmp_path)
    fixed, result = fix_bytes(path.read_bytes(), mutation.path, unsafe=True)
    assert fixed == (sglang_tree / mutation.path).read_bytes()
    assert [d.code for d in result.fixed] == [mutation.code] and result.remaining == []
