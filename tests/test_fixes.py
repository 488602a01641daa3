"""Autofix: each fixture pair ``fixes/X.py`` -> ``fixes/X.fixed.py`` byte for byte (through
the engine and the command), fixing twice changes nothing, ``--diff`` writes nothing, and a
write keeps the file's permissions and is all or nothing. (What the command prints for each
pair is pinned in golden files: test_fixtures.)"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import FIX_FIXTURES, FINDING, ROOT, engine_table, fix_pairs, lint_in_process
from snippets import ENGINE_IMPORT, LAUNCH_IMPORT
from sglang_lint.analysis.source import parse
from sglang_lint.checks.base import Suggestion, suggest
from sglang_lint.core.model import Diagnostic, Edit
from sglang_lint.engine.fixes import apply_edits, chosen_edits, fix_bytes, fix_text
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import default_rules

PAIRS = fix_pairs()
PAIR_IDS = [f"{src.name}-{'unsafe' if unsafe else 'safe'}" for src, _, unsafe in PAIRS]
INPUTS = sorted({source for source, _, _ in PAIRS})
CRLF = FIX_FIXTURES / "SGL003_unsupported_gdn_backend_crlf.py"


def expected(path: Path) -> bytes:
    """The safe-mode result of a fix fixture."""
    return path.with_name(path.stem + ".fixed.py").read_bytes()


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_pairs_are_named_after_their_rule_and_cover_every_fixable_curated_rule():
    curated = {r.code: r for r in default_rules() if r.derived_key is None}
    # SGL011 fixes only where the target release's deprecated flag has a plain replacement, which
    # none of 0.5.23's has: tests/test_releases.py fixes one of an older release.
    fixable = {code for code, rule in curated.items() if rule.fix_safety} - {"SGL011"}
    assert fixable == {"SGL001", "SGL002", "SGL003", "SGL006", "SGL007", "SGL009", "SGL013", "SGL014", "SGL015"}
    named = set()
    for path in INPUTS:
        code = path.name[:6]
        full_name = f"{code}_{curated[code].name.replace('-', '_')}"
        assert path.stem == full_name or path.stem.startswith(full_name + "_"), path.name
        # The pair of a rule has fixes of that rule.
        assert code in {d.code for d in lint(path.read_bytes(), path.name) if d.fix is not None}, path.name
        named.add(code)
    assert fixable <= named
    assert any(b"\r\n" in p.read_bytes() for p in INPUTS)  # CRLF
    assert any(b"\n\t" in p.read_bytes() for p in INPUTS)  # tab indentation
    assert {unsafe for _, _, unsafe in PAIRS} == {False, True}
    # one expected result per input and mode (the command fixes each mode's inputs in one run)
    assert len({(source, unsafe) for source, _, unsafe in PAIRS}) == len(PAIRS)


@pytest.mark.parametrize("source, expected, unsafe", PAIRS, ids=PAIR_IDS)
def test_engine_fix_gives_the_fixed_file_byte_for_byte(source: Path, expected: Path, unsafe: bool):
    fixed, result = fix_bytes(source.read_bytes(), source.name, unsafe=unsafe)
    assert fixed == expected.read_bytes()
    assert result.fixed
    parse(fixed.decode("utf-8"))
    # Fixing twice changes nothing, and what remains has no fix this mode may apply.
    again, second = fix_bytes(fixed, source.name, unsafe=unsafe)
    assert again == fixed and not second.fixed
    assert all(d.fix is None or (not d.fix.safe and not unsafe) for d in second.remaining)


@pytest.mark.parametrize("source, expected, unsafe", PAIRS, ids=PAIR_IDS)
def test_command_fix_writes_the_fixed_file(source: Path, expected: Path, unsafe: bool, fix_runs):
    run = fix_runs[unsafe]
    copy = run.fixed / relative(source)
    # After --fix, and --fix again (which wrote nothing: test_command_fix_runs).
    assert copy.read_bytes() == expected.read_bytes(), run.first.stderr
    mine = relative(source) + ":"
    remaining = lint(copy.read_bytes(), relative(source))
    assert len([line for line in run.first.stdout.splitlines() if line.startswith(mine)]) == len(remaining)
    assert any(line.startswith(mine) and " fixed (" in line for line in run.first.stderr.splitlines())


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_command_fix_runs(unsafe: bool, fix_runs):
    run = fix_runs[unsafe]
    remaining = sum(
        len(lint((run.fixed / relative(source)).read_bytes(), relative(source)))
        for source, _, mode in PAIRS if mode is unsafe
    )
    assert run.first.returncode == (1 if remaining else 0), run.first.stderr
    assert len(run.first.stdout.splitlines()) == remaining
    *fixed, summary = run.first.stderr.splitlines()
    assert fixed and all(FINDING.match(line) and " fixed (" in line for line in fixed)  # nothing else
    assert summary.startswith(f"sglang-lint: fixed {len(fixed)} findings in ")
    assert summary.endswith(f", {remaining} remaining")
    # The second run finds nothing to fix and leaves the bytes alone.
    assert "fixed 0 findings in 0 files" in run.second.stderr
    # --diff: a patch for every input; on the expected results no patch, and on stderr the
    # findings no fix removes, the same as --fix leaves (exit 1 while any remain).
    assert run.diff.returncode == 1 and set(patches(run.diff.stdout)) == {
        relative(source) for source, _, mode in PAIRS if mode is unsafe
    }
    *left, summary = run.clean.stderr.splitlines()
    assert run.clean.stdout == "" and all(FINDING.match(line) for line in left)
    assert summary == f"sglang-lint: would fix 0 findings in 0 files, {remaining} remaining" and len(left) == remaining
    assert run.clean.returncode == (1 if remaining else 0)


def patches(diff: str) -> dict[str, list[str]]:
    """A unified diff of several files: each file's hunk lines, by its ``a/`` path."""
    found: dict[str, list[str]] = {}
    lines = diff.splitlines()
    old = new = 0
    current: list[str] = []
    for index, line in enumerate(lines):
        if old == new == 0 and line.startswith("--- a/") and lines[index + 1].startswith("+++ b/"):
            current = found.setdefault(line[len("--- a/"):], [])
        elif old == new == 0 and line.startswith("+++ b/"):
            continue
        elif line.startswith("@@ "):
            ranges = line.split(" ")[1:3]
            old, new = (int(r.split(",")[1]) if "," in r else 1 for r in ranges)
        else:
            current.append(line)
            old -= line[:1] in " -"
            new -= line[:1] in " +"
    return found


@pytest.mark.parametrize("source, expected, unsafe", PAIRS, ids=PAIR_IDS)
def test_diff_prints_the_change_and_writes_nothing(source: Path, expected: Path, unsafe: bool, fix_runs):
    run = fix_runs[unsafe]
    assert (run.diffed / relative(source)).read_bytes() == source.read_bytes()
    patch = patches(run.diff.stdout)[relative(source)]
    removed = [line[1:] for line in patch if line.startswith("-")]
    added = [line[1:] for line in patch if line.startswith("+")]
    old_lines = source.read_bytes().decode().splitlines()
    new_lines = expected.read_bytes().decode().splitlines()
    assert removed == [line for line in old_lines if line not in new_lines]
    assert added == [line for line in new_lines if line not in old_lines]
    # Nothing left to fix in the expected result (under the input's name): no patch.
    assert relative(source) not in patches(run.clean.stdout)


def test_safe_mode_leaves_unsafe_fixes_and_says_how_to_apply_them(tmp_path: Path):
    source = (FIX_FIXTURES / "SGL001_unsupported_capture_mode.py").read_text()
    result = fix_text(source, "x.py")
    left = [d for d in result.remaining if d.fix is not None]
    assert [(d.line, d.fix.old, d.fix.new, d.fix.safe) for d in left] == [(17, '"prerope"', '"pre_rope"', False)]
    assert left[0].message.endswith("(did you mean 'pre_rope'? fixable with `sglang-lint --fix --unsafe-fixes`)")
    # The constant's literal was edited once although two calls reported it.
    assert sum(1 for d in result.fixed if "CAPTURE_MODE" in d.message) == 2
    assert result.text.count("'post_rope'") == 1


def test_stdin_fix_prints_the_fixed_buffer():
    path = CRLF
    result = subprocess.run(
        [sys.executable, "-m", "sglang_lint", "--fix", "--stdin-filename", "model.py", "-"],
        input=path.read_bytes(), capture_output=True, timeout=120,
    )
    assert result.stdout == expected(path)  # bytes: CRLF survives the round trip
    assert b"model.py:12:36: SGL003" in result.stderr  # what is left goes to stderr


@pytest.mark.parametrize(
    "value, allowed, wanted",
    [
        ("TRITON", ["auto", "torch", "triton"], Suggestion("triton", True)),
        ("post-rope", ["pre_rope", "post_rope"], Suggestion("post_rope", True)),
        ("post rope", ["pre_rope", "post_rope"], Suggestion("post_rope", True)),
        ("pre", ["pre_rope", "post_rope"], Suggestion("pre_rope", True)),
        ("prerope", ["pre_rope", "post_rope"], Suggestion("pre_rope", False)),
        ("flashinfr", ["flashinfer", "fa3", "triton"], Suggestion("flashinfer", False)),
        ("fp8", ["fp8_e5m2", "fp8_e4m3"], None),  # a prefix of two: a tie
        ("fp8_e4m2", ["fp8_e5m2", "fp8_e4m3"], None),  # as near to both: a tie
        ("p", ["pre_rope", "post_rope"], None),
        ("t", ["torch", "auto"], None),  # one letter is not a prefix worth trusting
        ("raw", ["pre_rope", "post_rope"], None),
        ("a-b", ["a_b", "A_B"], None),  # two allowed values equal up to case
        (3, [1, 2], None),
    ],
)
def test_suggestion_safety(value, allowed, wanted):
    assert suggest(value, allowed) == wanted


def _normal(text: str) -> str:
    return text.lower().replace("-", "_").replace(" ", "_")


def _nearest_by_full_scan(value: str, allowed: list[str], cutoff: float) -> str | None:
    """The nearest allowed spelling measured against every one (what ``suggest`` prunes)."""
    scored = sorted(((difflib.SequenceMatcher(None, _normal(value), _normal(a)).ratio(), a) for a in allowed),
                    reverse=True)
    if not scored or scored[0][0] < cutoff or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


ENGINE_KEYWORDS = sorted(engine_table().fields)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), cutoff=st.sampled_from([0.6, 0.75]))
def test_a_guess_is_the_nearest_of_all_allowed_values(data, cutoff):
    """A misspelt name is measured only against the allowed names that could beat the best so
    far: the guess is the one a full scan finds, and a tie still none (names of ``Engine``, all
    or some, with a few letters changed, added or dropped)."""
    allowed = data.draw(st.lists(st.sampled_from(ENGINE_KEYWORDS), min_size=1, max_size=40, unique=True)
                        | st.just(ENGINE_KEYWORDS))
    value = data.draw(st.sampled_from(allowed))
    for at, letter in data.draw(st.lists(st.tuples(st.integers(0, 60), st.sampled_from("abeilnorst_-")), max_size=3)):
        at %= len(value) + 1
        value = value[:at] + letter + value[at + (at % 2):]  # (odd places: a letter changed; even: one added)
    value = value[:-1] if data.draw(st.booleans()) else value
    assume(value and not any(_normal(a).startswith(_normal(value)) for a in allowed))  # (no ratio asked there)
    found = suggest(value, allowed, cutoff=cutoff)
    assert (found.value if found else None) == _nearest_by_full_scan(value, allowed, cutoff)
    assert found is None or not found.safe


@pytest.mark.parametrize(
    "written, meant, plausible",
    [
        ("attention_backnd", "attention_backend", True),
        ("--mem-fraction-statc", "--mem-fraction-static", True),
        ("--tensor-paralel-size", "--tensor-parallel-size", True),
        ("--disable-cuda-graf", "--disable-cuda-graph", True),
        ("model_pth", "model_path", True),
        ("enable_torch_compille", "enable_torch_compile", True),
        # another word, or other words: never a typo
        ("--disable-piecewise-cuda-graph", "--disable-decode-cuda-graph", False),
        ("--dsa-prefill-cp-mode", "--dsa-prefill-backend", False),
        ("--max-model-len", "--max-total-tokens", False),
        ("--graph-cuda-max-bs", "--cuda-graph-max-bs", False),  # the same words, another order
    ],
)
def test_a_name_is_suggested_only_for_a_plausible_typo(written, meant, plausible):
    from sglang_lint.checks.base import plausible_typo

    assert plausible_typo(written, meant) is plausible


def test_name_hints_never_guess_across_words():
    source = (
        ENGINE_IMPORT + LAUNCH_IMPORT +
        'popen_launch_server("m", "u", 600,\n'
        '                    other_args=["--disable-piecewise-cuda-graph", "--dsa-prefill-cp-mode", "x"])\n'
        'sgl.Engine(model_path="m", tensor_parallel_size=2, attention_backnd="triton")\n'
    )
    found = [
        (d.line, d.code, d.message.split(": ", 1)[1], d.fix is not None and d.fix.safe) for d in lint(source, "x.py")
    ]
    assert found == [
        # Removed flags: the replacement sglang named (a safe fix where it is a plain rename).
        (4, "SGL009", "sglang 0.5.23 has no such server argument (removed in sglang 0.5.20); sglang named "
                      "--cuda-graph-backend-prefill=disabled as its replacement", False),
        (4, "SGL009", "sglang 0.5.23 has no such server argument (removed in sglang 0.5.20); sglang named "
                      "--cp-strategy as its replacement (fixable with `sglang-lint --fix`)", True),
        (5, "SGL009", "sglang 0.5.23 has no server argument 'tensor_parallel_size'; --tensor-parallel-size is the "
                      "launch flag of tp_size (did you mean 'tp_size'? fixable with `sglang-lint --fix`)", True),
        (5, "SGL009", "sglang 0.5.23 has no server argument 'attention_backnd' (did you mean 'attention_backend'? "
                      "fixable with `sglang-lint --fix --unsafe-fixes`)", False),
    ]


def _diagnostic(line, col, end_col, old, new, safe=True, code="SGL001"):
    return Diagnostic(line, col, code, "m", line, end_col, Edit(line, col, line, end_col, old, new, safe))


def test_conflicting_or_stale_edits_are_dropped():
    text = 'f("a")\ng("b")\n'
    same = [_diagnostic(1, 2, 5, '"a"', '"x"'), _diagnostic(1, 2, 5, '"a"', '"x"', code="SGL003")]
    assert apply_edits(text, chosen_edits(text, same, unsafe=False)) == 'f("x")\ng("b")\n'
    clash = [_diagnostic(1, 2, 5, '"a"', '"x"'), _diagnostic(1, 2, 5, '"a"', '"y"', code="SGL003")]
    assert chosen_edits(text, clash, unsafe=False) == []
    overlap = [_diagnostic(1, 2, 5, '"a"', '"x"'), _diagnostic(1, 1, 4, '("a', '(q')]
    assert chosen_edits(text, overlap, unsafe=False) == []
    stale = [_diagnostic(2, 2, 5, '"a"', '"x"')]  # line 2 holds "b" now
    assert chosen_edits(text, stale, unsafe=False) == []
    unsafe = [_diagnostic(2, 2, 5, '"b"', '"c"', safe=False)]
    assert chosen_edits(text, unsafe, unsafe=False) == []
    assert apply_edits(text, chosen_edits(text, unsafe, unsafe=True)) == 'f("a")\ng("c")\n'


def test_encoding_and_bom_are_kept():
    body = CRLF.read_bytes()
    bom = b"\xef\xbb\xbf" + body
    fixed, _ = fix_bytes(bom, "m.py")
    assert fixed == b"\xef\xbb\xbf" + expected(CRLF)
    latin = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + body
    fixed, _ = fix_bytes(latin, "m.py")
    assert fixed == b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + expected(CRLF)


def test_write_keeps_permissions_and_symlinks(tmp_path: Path):
    source = CRLF
    target = tmp_path / "model.py"
    shutil.copyfile(source, target)
    os.chmod(target, 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    result = lint_in_process("--fix", str(link))
    assert result.returncode == 1, result.stderr  # the "cuda" finding remains
    assert link.is_symlink() and target.read_bytes() == expected(source)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.py", "model.py"]  # no temporary left


def test_read_only_file_is_reported_and_left_alone(tmp_path: Path):
    source = CRLF
    target = tmp_path / "model.py"
    shutil.copyfile(source, target)
    os.chmod(target, 0o444)
    result = lint_in_process("--fix", str(target))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{target}: error: cannot write: read-only file; nothing fixed",
        "sglang-lint: fixed 0 findings in 0 files, 3 remaining",  # nothing fixed: every finding stands
    ]
    assert len(result.stdout.splitlines()) == 3
    assert target.read_bytes() == source.read_bytes()


def test_docs_say_which_rules_fix_and_how_safely():
    # (`sglang-lint rules` says it too: test_cli)
    for rule in default_rules():
        if rule.derived_key is None and rule.fix_safety:
            assert "--fix" in rule.docs.fix, f"{rule.code}: its docs must say how the fix applies"
