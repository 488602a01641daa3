"""sglang 0.5.23's own tree: zero findings, and every bug planted at a real call site is
found at its exact line and nothing else is (through the engine, the command and flake8),
and ``--fix --unsafe-fixes`` gives sglang's own bytes back where the planted value is a
misspelling, touching nothing else. Everything ``scripts/sglang_corpus.py`` checks (which
CI therefore does not run again), with the script's own steps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import run
from sglang_corpus import (
    MUTATIONS,
    OTHER_RELEASES,
    OWN_DEPRECATED_USES,
    RELEASE_MUTATIONS,
    apply_mutation,
    check_fixes,
    expected_line,
    fetch_tree,
    replay_mutations,
)
from sglang_lint import lint
from sglang_lint.engine.fixes import fix_bytes
from sglang_lint.engine.lint import PARSED
from sglang_lint.engine.ruletable import RuleSet, default_rules

pytestmark = pytest.mark.corpus

# SGL011 (a deprecated flag) has one true finding in sglang's own tree, pinned by its own test
# below; the zero-findings and planted-bug checks leave it out (see scripts/sglang_corpus.py).
RULES = [rule for rule in default_rules() if rule.code != "SGL011"]
UNSCREENED = RuleSet(RULES, screen=False)
SCREENED = RuleSet(RULES)


@pytest.fixture(scope="module")
def command(tmp_path_factory) -> list[str]:
    """The command with a result cache of this module only: the --fix step reads what the
    lint steps wrote, and nothing comes from an earlier run."""
    return ["-m", "sglang_lint", "--cache-dir", str(tmp_path_factory.mktemp("corpus-cache")), "--ignore", "SGL011"]


def plant_all(tree: Path, workdir: Path) -> list[tuple]:
    """Every mutation in its own copy, ``m00/sglang/...``: (mutation, relative path, line)."""
    planted = []
    for index, mutation in enumerate(MUTATIONS):
        relative = Path(f"m{index:02d}") / mutation.path
        mutated = apply_mutation(tree, mutation, workdir / relative.parts[0])
        planted.append((mutation, str(relative), expected_line(mutation, mutated)))
    return planted


@pytest.fixture(scope="module")
def tree_run(sglang_tree: Path, command):
    """The command over the tree, once, saying how far each file went (``-vv``): the zero-findings
    test reads its output, the flake8 test the files it parsed."""
    return run(*command, "-vv", "sglang", cwd=sglang_tree)


def stages(result) -> dict[str, str]:
    """``-vv``'s lines after the release and the counts: file -> how far it went."""
    return dict(line.removeprefix("sglang-lint: ").rsplit(": ", 1) for line in result.stderr.splitlines()[2:])


def test_the_command_finds_nothing_on_the_tree(sglang_tree: Path, tree_run):
    files = sorted(str(p.relative_to(sglang_tree)) for p in (sglang_tree / "sglang").rglob("*.py"))
    assert len(files) > 4500
    assert (tree_run.returncode, tree_run.stdout) == (0, "")
    # nothing on stderr but what -vv says: the release, the counts, then each file (no warning, no error)
    judged, counted, *each = tree_run.stderr.splitlines()
    assert judged == f"sglang-lint: {len(each)} files judged against the newest rules: no sglang release named " \
        "(no --sglang-version, no sglang-version, no sglang installed, no pin or image above)"
    assert counted.startswith(f"sglang-lint: {len(each)} files: "), counted
    assert len(each) == len(stages(tree_run)) and set(files) <= set(stages(tree_run))


def test_sglangs_own_use_of_a_deprecated_flag_is_the_one_sgl011(sglang_tree: Path):
    result = run("-m", "sglang_lint", "--no-cache", "--select", "SGL011", "sglang", cwd=sglang_tree)
    assert result.stdout.splitlines() == OWN_DEPRECATED_USES


def test_older_releases_own_trees_lint_clean_against_their_release(command):
    for release in OTHER_RELEASES:
        result = run(*command, "--sglang-version", release, "sglang", cwd=fetch_tree(release))
        assert (release, result.returncode, result.stdout, result.stderr) == (release, 0, "", "")


@pytest.mark.parametrize("mutation", RELEASE_MUTATIONS, ids=lambda m: f"{m.release}-{m.code}")
def test_a_release_dependent_bug_is_found_in_its_own_release(tmp_path: Path, mutation):
    path = apply_mutation(fetch_tree(mutation.release), mutation, tmp_path)
    ruleset = RuleSet(default_rules()).for_releases([mutation.release])
    found = [(d.line, d.code, d.message) for d in lint(path.read_bytes(), mutation.path, ruleset)]
    assert [(line, code) for line, code, _ in found] == [(expected_line(mutation, path), mutation.code)]
    if mutation.release != "0.5.23":  # and the newest release judges it otherwise (or not at all)
        assert [(d.line, d.code, d.message) for d in lint(path.read_bytes(), mutation.path, SCREENED)] != found


@pytest.mark.parametrize("release", OTHER_RELEASES)
def test_the_planted_bugs_are_found_in_an_older_release_that_has_their_call_site(release):
    assert replay_mutations(release)


def test_at_least_25_mutations_cover_every_rule_and_form():
    assert len(MUTATIONS) >= 25
    assert {m.code for m in MUTATIONS} >= {f"SGL{n:03d}" for n in range(1, 11)}
    forms = {m.form for m in MUTATIONS}
    wanted = {"keyword", "positional", "alias", "constant", "wrapper", "config field", "None default", "launch flags",
              # the families of derived rules (issue 17)
              "number range", "falsy flag", "type check", "assert", "conditional guard", "re-exported name",
              "omitted argument"}
    assert wanted <= forms


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: f"{m.code}-{m.form.replace(' ', '-')}")
def test_planted_bug_is_found_at_its_line(sglang_tree: Path, tmp_path: Path, mutation):
    path = apply_mutation(sglang_tree, mutation, tmp_path)
    data = path.read_bytes()
    diagnostics = lint(data, mutation.path, SCREENED)
    assert [(d.line, d.code) for d in diagnostics] == [(expected_line(mutation, path), mutation.code)]
    # The prefilter and the call-site screen do not hide it (test_screen).
    assert lint(data, mutation.path, UNSCREENED) == diagnostics


def test_the_command_finds_every_planted_bug_in_one_run(sglang_tree: Path, tmp_path: Path, command):
    planted = plant_all(sglang_tree, tmp_path)
    result = run(*command, *(relative for _, relative, _ in planted), cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == ""
    lines = result.stdout.splitlines()
    missed = []
    for mutation, relative, line in planted:
        got = [text for text in lines if text.startswith(relative + ":")]
        if not (len(got) == 1 and got[0].startswith(f"{relative}:{line}:") and f" {mutation.code} " in got[0]):
            missed.append((mutation.name, line, got))
    assert missed == []
    assert len(lines) == len(planted)


def test_fix_restores_every_misspelt_value_and_touches_nothing_else(sglang_tree: Path, tmp_path: Path, command,
                                                                    capsys):
    # --fix --unsafe-fixes over a copy of the whole tree and the mutated copies (the script's step).
    planted = plant_all(sglang_tree, tmp_path)
    ok = check_fixes(sglang_tree, planted, tmp_path, [sys.executable, *command])
    assert ok, capsys.readouterr().out


def test_flake8_on_the_tree(sglang_tree: Path, tmp_path: Path, tree_run):
    # The plugin cannot report on a file the prefilter rejects (test_engine proves the
    # file is not even parsed), so flake8 runs on the files that pass it (those the command
    # parsed), and on the mutated copies; scripts/sglang_corpus.py --flake8 runs it over the
    # whole tree.
    candidates = [path for path, stage in stages(tree_run).items() if path.endswith(".py") and stage == PARSED]
    assert 10 < len(candidates) < len(list((sglang_tree / "sglang").rglob("*.py"))) // 4
    clean = run("-m", "flake8", "--isolated", "--select", "SGL", "--extend-ignore", "SGL011", "-j", "2", *candidates,
                cwd=sglang_tree)
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stderr

    planted = [p for p in plant_all(sglang_tree, tmp_path) if p[1].endswith(".py")]  # flake8 reads Python only
    result = run("-m", "flake8", "--isolated", "--select", "SGL", "--extend-ignore", "SGL011", "-j", "2",
                 *(relative for _, relative, _ in planted), cwd=tmp_path)
    got = sorted(
        line.split(": ", 1)[0].rsplit(":", 1)[0] + " " + line.split()[1] for line in result.stdout.splitlines()
    )
    assert got == sorted(f"{relative}:{line} {mutation.code}" for mutation, relative, line in planted)


@pytest.mark.parametrize("mutation", [m for m in MUTATIONS if m.restores], ids=lambda m: f"{m.code}-{m.name}")
def test_fix_restores_a_misspelt_value_to_sglangs_bytes(sglang_tree: Path, tmp_path: Path, mutation):
    path = apply_mutation(sglang_tree, mutation, tmp_path)
    fixed, result = fix_bytes(path.read_bytes(), mutation.path, SCREENED, unsafe=True)
    assert fixed == (sglang_tree / mutation.path).read_bytes()
    assert [d.code for d in result.fixed] == [mutation.code] and result.remaining == []
