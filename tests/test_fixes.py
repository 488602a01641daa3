"""Autofix: each fixture pair ``fixes/X.py`` -> ``fixes/X.fixed.py`` byte for byte (through
the engine and the command), fixing twice changes nothing, ``--diff`` writes nothing, and a
write keeps the file's permissions and is all or nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from sglang_lint.ruletable import default_rules
from sglang_lint.checks.base import Suggestion, suggest
from sglang_lint.engine import lint
from sglang_lint.model import Diagnostic, Edit
from sglang_lint.source import parse
from sglang_lint.fixes import apply_edits, chosen_edits, fix_bytes, fix_text

FIX_FIXTURES = FIXTURES / "fixes"
INPUTS = sorted(p for p in FIX_FIXTURES.glob("SGL*.py") if not p.name.endswith(".fixed.py"))


def unsafe_mode(path: Path) -> bool:
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header in ("# fix: safe", "# fix: unsafe"), f"{path.name}: first line must say the fix mode"
    return header == "# fix: unsafe"


def pairs() -> list[tuple[Path, Path, bool]]:
    """(input, expected output, unsafe): ``X.fixed.py`` in the mode X's first line names, and
    ``X.unsafe.fixed.py``, where there is one, with --unsafe-fixes."""
    found = []
    for path in INPUTS:
        found.append((path, path.with_name(path.stem + ".fixed.py"), unsafe_mode(path)))
        unsafe = path.with_name(path.stem + ".unsafe.fixed.py")
        if unsafe.exists():
            found.append((path, unsafe, True))
    return found


def expected(path: Path) -> bytes:
    """The safe-mode result of a fix fixture."""
    return path.with_name(path.stem + ".fixed.py").read_bytes()


PAIRS = pairs()
PAIR_IDS = [f"{src.name}-{'unsafe' if unsafe else 'safe'}" for src, _, unsafe in PAIRS]
FLAGS = {False: ["--fix"], True: ["--fix", "--unsafe-fixes"]}


def test_pairs_cover_every_fixable_curated_rule_and_the_edge_cases():
    fixable = {r.code for r in default_rules() if r.derived_key is None and r.fix_safety}
    covered = set()
    for path in INPUTS:
        covered |= {d.code for d in lint(path.read_bytes(), path.name) if d.fix is not None}
    assert fixable == {"SGL001", "SGL002", "SGL003", "SGL006", "SGL007", "SGL009"}
    assert fixable <= covered
    assert any(b"\r\n" in p.read_bytes() for p in INPUTS)  # CRLF
    assert any(b"\n\t" in p.read_bytes() for p in INPUTS)  # tab indentation
    assert {unsafe for _, _, unsafe in PAIRS} == {False, True}


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
def test_command_fix_writes_the_fixed_file(source: Path, expected: Path, unsafe: bool, tmp_path: Path):
    copy = tmp_path / source.name
    shutil.copyfile(source, copy)
    result = run("-m", "sglang_lint", "--no-cache", *FLAGS[unsafe], str(copy))
    assert copy.read_bytes() == expected.read_bytes(), result.stderr
    remaining = [d for d in lint(copy.read_bytes(), source.name)]
    assert result.returncode == (1 if remaining else 0), result.stderr
    assert len(result.stdout.splitlines()) == len(remaining)
    fixed_lines = [line for line in result.stderr.splitlines() if " fixed (" in line]
    assert fixed_lines and all(line.startswith(f"{copy}:") for line in fixed_lines)
    assert f"{len(remaining)} remaining" in result.stderr.splitlines()[-1]
    # A second run finds nothing to fix and leaves the bytes alone.
    second = run("-m", "sglang_lint", "--no-cache", *FLAGS[unsafe], str(copy))
    assert copy.read_bytes() == expected.read_bytes()
    assert "fixed 0 findings in 0 files" in second.stderr


@pytest.mark.parametrize("source, expected, unsafe", PAIRS, ids=PAIR_IDS)
def test_diff_prints_the_change_and_writes_nothing(source: Path, expected: Path, unsafe: bool, tmp_path: Path):
    copy = tmp_path / source.name
    shutil.copyfile(source, copy)
    flags = ["--diff", "--unsafe-fixes"] if unsafe else ["--diff"]
    result = run("-m", "sglang_lint", "--no-cache", *flags, str(copy))
    assert result.returncode == 1
    assert copy.read_bytes() == source.read_bytes()
    removed = [line[1:] for line in result.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in result.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    old_lines = source.read_bytes().decode().splitlines()
    new_lines = expected.read_bytes().decode().splitlines()
    assert removed == [line for line in old_lines if line not in new_lines]
    assert added == [line for line in new_lines if line not in old_lines]
    # Nothing left to fix: empty diff, exit 0.
    clean = tmp_path / "clean.py"
    clean.write_bytes(expected.read_bytes())
    assert run("-m", "sglang_lint", "--no-cache", *flags, str(clean)).returncode == 0


def test_safe_mode_leaves_unsafe_fixes_and_says_how_to_apply_them(tmp_path: Path):
    source = (FIX_FIXTURES / "SGL001_capture_mode.py").read_text()
    result = fix_text(source, "x.py")
    left = [d for d in result.remaining if d.fix is not None]
    assert [(d.line, d.fix.old, d.fix.new, d.fix.safe) for d in left] == [(17, '"prerope"', '"pre_rope"', False)]
    assert left[0].message.endswith("(did you mean 'pre_rope'? fixable with `sglang-lint --fix --unsafe-fixes`)")
    # The constant's literal was edited once although two calls reported it.
    assert sum(1 for d in result.fixed if "CAPTURE_MODE" in d.message) == 2
    assert result.text.count("'post_rope'") == 1


def test_flake8_message_says_whether_the_fix_applies():
    path = FIX_FIXTURES / "SGL009_names_and_flags.py"
    result = run("-m", "flake8", "--isolated", "--select", "SGL", str(path))
    lines = result.stdout.splitlines()
    assert any("'TP_SIZE' (did you mean 'tp_size'? fixable with `sglang-lint --fix`)" in line for line in lines)
    assert any(
        "'model_pth' (did you mean 'model_path'? fixable with `sglang-lint --fix --unsafe-fixes`)" in line
        for line in lines
    )
    assert any(line.endswith("'fp4_mx_block16'") for line in lines)  # the tie: no suggestion at all


def test_stdin_fix_prints_the_fixed_buffer():
    path = FIX_FIXTURES / "SGL003_crlf.py"
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
        "import sglang as sgl\nfrom sglang.test.test_utils import popen_launch_server\n"
        'popen_launch_server("m", "u", 600,\n'
        '                    other_args=["--disable-piecewise-cuda-graph", "--dsa-prefill-cp-mode", "x"])\n'
        'sgl.Engine(model_path="m", tensor_parallel_size=2, attention_backnd="triton")\n'
    )
    found = [
        (d.line, d.code, d.message.split(": ", 1)[1], d.fix is not None and d.fix.safe) for d in lint(source, "x.py")
    ]
    assert found == [
        (4, "SGL009", "sglang 0.5.23 has no such server argument", False),
        (4, "SGL009", "sglang 0.5.23 has no such server argument", False),
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
    body = (FIX_FIXTURES / "SGL003_crlf.py").read_bytes()
    bom = b"\xef\xbb\xbf" + body
    fixed, _ = fix_bytes(bom, "m.py")
    assert fixed == b"\xef\xbb\xbf" + expected(FIX_FIXTURES / "SGL003_crlf.py")
    latin = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + body
    fixed, _ = fix_bytes(latin, "m.py")
    assert fixed == b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + expected(FIX_FIXTURES / "SGL003_crlf.py")


def test_write_keeps_permissions_and_symlinks(tmp_path: Path):
    source = FIX_FIXTURES / "SGL003_crlf.py"
    target = tmp_path / "model.py"
    shutil.copyfile(source, target)
    os.chmod(target, 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    result = run("-m", "sglang_lint", "--fix", str(link))
    assert result.returncode == 1, result.stderr  # the "cuda" finding remains
    assert link.is_symlink() and target.read_bytes() == expected(source)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.py", "model.py"]  # no temporary left


def test_read_only_file_is_reported_and_left_alone(tmp_path: Path):
    source = FIX_FIXTURES / "SGL003_crlf.py"
    target = tmp_path / "model.py"
    shutil.copyfile(source, target)
    os.chmod(target, 0o444)
    result = run("-m", "sglang_lint", "--fix", str(target))
    assert result.returncode == 2
    assert f"{target}: error: read-only file, not fixed" in result.stderr
    assert target.read_bytes() == source.read_bytes()


def _allowed_string_rules():
    for rule in default_rules():
        if rule.derived_key is None:
            continue
        for check in rule.checks:
            if check.kind == "allowed-values" and check.params.enum is None:
                values = [v for v in check.params.values if isinstance(v, str)]
                if values:
                    yield rule, values


DERIVED = list(_allowed_string_rules())


@pytest.mark.parametrize("rule, values", DERIVED, ids=[r.code for r, _ in DERIVED])
def test_derived_examples_fix_back_to_the_good_example(rule, values):
    # The good example with its value written in the other case is fixed back, safely, to
    # the good example itself: unless another allowed value differs from it only by case.
    good = rule.docs.good
    value = next(v for v in values if repr(v) in good)
    changed = value.upper() if value.upper() != value else value.lower()
    same_up_to_case = [v for v in values if v.lower().replace("-", "_") == value.lower().replace("-", "_")]
    if changed == value or len(same_up_to_case) > 1:
        pytest.skip("no case-only variant of this value")
    bad = good.replace(repr(value), repr(changed), 1)
    assert [d.code for d in lint(bad, "example.py")] == [rule.code]
    assert fix_text(bad, "example.py").text == good
    # The generated bad example: any fix it gets yields code that parses and is clean.
    fixed = fix_text(rule.docs.bad, "example.py", unsafe=True)
    parse(fixed.text)
    if fixed.fixed:
        assert [d for d in fixed.remaining if d.code == rule.code] == []


def test_docs_say_which_rules_fix_and_how_safely():
    listing = run("-m", "sglang_lint", "rules").stdout.splitlines()
    by_code = {line.split()[0]: line for line in listing}
    assert "safe/unsafe fix" in by_code["SGL001"]
    assert "no fix" in by_code["SGL004"]
    for rule in default_rules():
        if rule.derived_key is None and rule.fix_safety:
            assert "--fix" in rule.docs.fix, f"{rule.code}: its docs must say how the fix applies"
