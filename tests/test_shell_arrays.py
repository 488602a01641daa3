"""Launches built in pieces in shell (launch/shell_arrays.py): bash arrays grown with ``+=`` and run
as ``"${CMD[@]}"``, args arrays and string variables expanded on a launch line. A finding points at
its word where the word is written; what is not known for certain says nothing; ``# noqa`` works on
the word's line and ``--fix`` rewrites a word inside an array literal; a text with no array costs
nothing more; and on the held-out set (tests/launch_pieces/shell_heldout.json) the words read are
those bash builds, judged as the same words written on one line."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from conftest import ROOT, check_golden, findings_of, lines_by_file, run_lint
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import default_ruleset
from sglang_lint.launch import shell_arrays
from sglang_lint.launch.commands import shell_regions
from sglang_lint.launch.shell_arrays import HINT, launch_commands_with_pieces
from sglang_lint.launch.shell_env import launch_commands_with_env

PIECES = ROOT / "tests" / "fixtures" / "launch_pieces"
HELD_OUT = json.loads((ROOT / "tests" / "launch_pieces" / "shell_heldout.json").read_text())["cases"]
FIXTURES = {
    # 8 grown with +=; 9 added in an if (judged: it reaches the launch on that path); 16 a literal over
    # lines; 21 an args array, 22 a string variable split on the launch line; 28 the array a function
    # builds and runs; 31-52 words not known for certain; 56 silenced on its own line
    "arrays.sh": {(8, 10, "SGL009"), (9, 41, "SGL009"), (16, 23, "SGL007"), (21, 33, "SGL009"),
                  (22, 16, "SGL006"), (28, 9, "SGL009")},
    # 8 an args array of a bash block, 17 an array grown in a console session; 29: LATER is another block's
    "arrays.md": {(8, 13, "SGL006"), (17, 9, "SGL009")},
}
LAUNCH = "python3 -m sglang.launch_server --model-path m"


def found(text: str, name: str = "serve.sh") -> set[tuple[int, int, str]]:
    return {(d.line, d.col + 1, d.code) for d in lint(text.encode(), name)}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_finding_is_where_its_word_is_written(name: str):
    path = PIECES / name
    diagnostics = lint(path.read_bytes(), str(path))
    assert {(d.line, d.col + 1, d.code) for d in diagnostics} == FIXTURES[name]
    lines = path.read_text(encoding="utf-8").splitlines()
    for d in diagnostics:
        assert lines[d.line - 1][d.col:].startswith(("--", "flashinfr", "fp16"))


def test_the_command_prints_the_golden_text(update_golden):
    result = run_lint("--no-cache", *(str((PIECES / name).relative_to(ROOT)) for name in FIXTURES), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    lines = lines_by_file(result.stdout)
    assert set(lines) == {str((PIECES / name).relative_to(ROOT)) for name in FIXTURES}
    for name, expected in FIXTURES.items():
        mine = lines[str((PIECES / name).relative_to(ROOT))]
        assert findings_of(mine) == expected
        check_golden(PIECES / (name + ".out"), "".join(line + "\n" for line in mine), update_golden)


FORMS = {
    "exec": (f'CMD=({LAUNCH})\nCMD+=(--max-model-len 8)\nexec "${{CMD[@]}}"\n', {(2, 7, "SGL009")}),
    "unquoted, [*]": (f"CMD=({LAUNCH})\nCMD+=(--max-model-len 8)\n${{CMD[*]}} &\n", {(2, 7, "SGL009")}),
    "an element split unquoted": ('A=("--max-model-len 8")\npython3 -m sglang.launch_server ${A[@]}\n',
                                  {(1, 5, "SGL009")}),
    "a command in a string": (f'SERVER="{LAUNCH} --max-model-len 8"\nnohup $SERVER > log 2>&1 &\n',
                              {(1, 56, "SGL009")}),
    "${NAME}": ('EXTRA="--dtype fp16"\npython3 -m sglang.launch_server ${EXTRA}\n', {(1, 16, "SGL006")}),
    "an array copied into another": (f'BASE=({LAUNCH})\nCMD=("${{BASE[@]}}" --max-model-len 8)\n"${{CMD[@]}}"\n',
                                     {(2, 19, "SGL009")}),
    "added after &&": (f'CMD=({LAUNCH})\n[ -n "$X" ] && CMD+=(--max-model-len 8)\n"${{CMD[@]}}"\n',
                       {(2, 22, "SGL009")}),
    "added in a case": (f'CMD=({LAUNCH})\ncase "$M" in\n  big) CMD+=(--dtype fp16) ;;\nesac\n"${{CMD[@]}}"\n',
                        {(3, 22, "SGL006")}),
    "declare -a, run with env": (f'declare -a CMD=({LAUNCH})\nCMD+=(--max-model-len 8)\nSGLANG_X=1 "${{CMD[@]}}"\n',
                                 {(2, 7, "SGL009")}),
    "a flag and its value of one statement in an if": (
        f'CMD=({LAUNCH})\nif [ -n "$X" ]; then\n  CMD+=(--dtype fp16)\nfi\n"${{CMD[@]}}"\n', {(3, 17, "SGL006")}),
    "a launch in an if": (f'CMD=({LAUNCH})\nCMD+=(--max-model-len 8)\nif [ -n "$X" ]; then "${{CMD[@]}}"; fi\n',
                          {(2, 7, "SGL009")}),
    "an array no launch runs here: its literal": (f'CMD=({LAUNCH} --max-model-len 8)\nrun_later CMD\n',
                                                  {(1, 53, "SGL009")}),
    "+= to an array not assigned: after an unknown start": (
        'CMD+=(python3 -m sglang.launch_server --dtype)\n"${CMD[@]}" fp16\n', {(2, 13, "SGL006")}),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_is_judged_at_its_words(form: str):
    text, expected = FORMS[form]
    assert found("#!/bin/bash\n" + text) == {(line + 1, col, code) for line, col, code in expected}


QUIET = {
    "assigned again in an if": (f'CMD=({LAUNCH})\nif [ -n "$X" ]; then CMD=(echo); fi\n'
                                'CMD+=(--max-model-len 8)\n"${CMD[@]}"\n'),
    "unset": f'CMD=({LAUNCH})\nunset CMD\nCMD+=(--max-model-len 8)\n"${{CMD[@]}}"\n',
    "changed by index": f'CMD=({LAUNCH} --dtype)\nCMD[5]=half\n"${{CMD[@]}}" fp16\n',
    "read from a file": f'CMD=({LAUNCH})\nmapfile -t CMD < cmd.txt\n"${{CMD[@]}}" --max-model-len 8\n',
    "after source": f'ARGS=(--dtype)\nsource ./env.sh\n{LAUNCH} "${{ARGS[@]}}" fp16\n',
    "a slice": f'CMD=({LAUNCH})\n"${{CMD[@]:0:5}}" --max-model-len 8\n',
    "indirection, $@": f'{LAUNCH} "${{!ARGS}}" "$@" 8\n',
    "[*] quoted: one word, a script not read": f'CMD=({LAUNCH})\nCMD+=(--dtype fp16)\nbash -c "${{CMD[*]}}"\n',
    "a string variable quoted": f'EXTRA="--max-model-len 8"\n{LAUNCH} "$EXTRA"\n',
    "a variable with no flag": f'A=(x)\nTP=two\n{LAUNCH} --tp-size $TP\n',
    "IFS set": f'IFS=,\nEXTRA="--max-model-len,8"\nA=("--dtype fp16")\n{LAUNCH} $EXTRA ${{A[@]}}\n',
    "a pattern": f'A=(--attention-backend=fla*)\n{LAUNCH} ${{A[@]}}\n',
    "eval": f'CMD=({LAUNCH})\nCMD+=(--max-model-len 8)\neval "${{CMD[@]}}"\n',
    "a value apart from its flag, in an if": (f'CMD=({LAUNCH} --chunked-prefill-size)\n'
                                              'if [ -n "$S" ]; then CMD+=(4k); else CMD+=(8192); fi\n"${CMD[@]}"\n'),
    "grown in a subshell": f'CMD=({LAUNCH})\n( CMD+=(--max-model-len 8) )\n"${{CMD[@]}}"\n',
    "grown in the background": f'CMD=({LAUNCH})\nCMD+=(--max-model-len 8) &\n"${{CMD[@]}}"\n',
    "grown by a function": f'CMD=({LAUNCH})\ngrow() {{ CMD+=(--max-model-len 8); }}\ngrow\n"${{CMD[@]}}"\n',
    "a function's array outside it": f'f() {{ local c=({LAUNCH}); }}\nc+=(--max-model-len 8)\n"${{c[@]}}"\n',
    "grown after a launch in a loop": (f'CMD=({LAUNCH})\nfor p in 1 2; do\n  "${{CMD[@]}}" &\n'
                                       '  CMD+=(--max-model-len 8)\ndone\n'),
    "a variable written after a function that runs it": (
        f'E="--tp-size 2"\nf() {{ {LAUNCH} $E; }}\nE="--max-model-len 8"\nf\n'),
    "a variable a function writes": f'E="--tp-size 2"\nf() {{ E="--max-model-len 8"; }}\nf\n{LAUNCH} $E\n',
    "an indexed literal": 'CMD=([0]=python3 [1]=-m [2]=sglang.launch_server [5]=--max-model-len)\n"${CMD[@]}"\n',
}


@pytest.mark.parametrize("form", sorted(QUIET))
def test_words_not_known_for_certain_say_nothing(form: str):
    assert found("#!/bin/bash\n" + QUIET[form]) == set()


def test_zsh_splits_no_unquoted_expansion():
    text = (f'EXTRA="--max-model-len 8"\nA=(--dtype fp16)\n{LAUNCH} $EXTRA ${{A[@]}}\n'
            f'B=(--swap-space 4)\n{LAUNCH} "${{B[@]}}"\n')
    assert found("#!/bin/bash\n" + text) == {(2, 8, "SGL009"), (3, 12, "SGL006"), (5, 4, "SGL009")}
    assert found("#!/bin/zsh\n" + text) == {(5, 4, "SGL009")} and found(text, "serve.zsh") == {(4, 4, "SGL009")}
    assert found(f"```zsh\n{text}```\n", "README.md") == {(5, 4, "SGL009")}


def test_noqa_on_the_words_line():
    text = (f'#!/bin/bash\nCMD=({LAUNCH})\nCMD+=(--max-model-len 8)  # noqa: SGL009\nCMD+=(--swap-space 4)\n'
            '"${CMD[@]}"\n')
    assert found(text) == {(4, 7, "SGL009")}
    assert found(text.replace("# noqa: SGL009", "# noqa: SGL006")) == {(3, 7, "SGL009"), (4, 7, "SGL009")}


def test_fix_rewrites_a_word_in_an_array_and_again_changes_nothing(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(f'#!/bin/bash\nCMD=({LAUNCH})\nCMD+=(--Tp-Size 2 "--Max-Model-Len" 8)\nexec "${{CMD[@]}}"\n')
    first = run_lint("--no-cache", "--fix", str(script))
    assert first.returncode == 1, first.stderr  # the quoted word is reported, not rewritten
    fixed = f'#!/bin/bash\nCMD=({LAUNCH})\nCMD+=(--tp-size 2 "--Max-Model-Len" 8)\nexec "${{CMD[@]}}"\n'
    assert script.read_text() == fixed
    again = run_lint("--no-cache", "--fix", str(script))
    assert "fixed 0 findings" in again.stderr and script.read_text() == fixed


def words(text: str) -> list[list[tuple]]:
    return [[(w.text, w.step, w.certain, w.opaque) for w in launch.args]
            for launch in launch_commands_with_pieces(text)]


def test_a_word_keeps_the_statement_that_wrote_it():
    text = (f'CMD=({LAUNCH})\nif [ -n "$X" ]; then CMD+=(--dtype half); fi\n'
            'EXTRA="--tp-size 2"\n"${CMD[@]}" --port 1 $EXTRA\n')
    [read] = words(text)
    assert [w[0] for w in read] == ["--model-path", "m", "--dtype", "half", "--port", "1", "--tp-size", "2"]
    assert [w[2] for w in read] == [True, True, False, False, True, True, True, True]
    steps = [w[1] for w in read]
    assert steps[0] == steps[1] != steps[2] == steps[3] != steps[6] == steps[7] and steps[4] == steps[5] == 0
    # the environment is the command's, where the array runs
    [launch] = launch_commands_with_pieces(f'export SGLANG_A=1\nCMD=({LAUNCH})\nSGLANG_B=2 "${{CMD[@]}}"\n')
    assert launch.env == {"SGLANG_A": "1", "SGLANG_B": "2"}


def test_a_text_with_no_array_is_read_as_before(monkeypatch):
    text = f'#!/bin/bash\nTP=2\n{LAUNCH} --tp-size $TP "$X" --dtype half\n'
    assert not HINT.search(text)
    monkeypatch.setattr(shell_arrays, "_regroup", lambda *args: pytest.fail("read for arrays"))
    assert launch_commands_with_pieces(text) == launch_commands_with_env(text)


@pytest.mark.parametrize("folder", ["launch", "prefixes", "flags", "startup"])
def test_the_launches_of_the_other_fixtures_are_unchanged(folder: str):
    for path in sorted((ROOT / "tests" / "fixtures" / folder).rglob("*")):
        if path.suffix in (".sh", ".md", ".bash") or path.name == "serve":
            text = path.read_text(encoding="utf-8")
            for region in shell_regions(str(path), text):
                assert launch_commands_with_pieces(region.text) == launch_commands_with_env(region.text), path


def _on_some_path(read: list, argv: list[str]) -> bool:
    """Whether ``argv`` is what the words read make on one path: each certain word in turn (an
    unknown one standing for any word), words not certain taken or left out."""
    def match(i: int, j: int) -> bool:
        if i == len(read):
            return j == len(argv)
        text, _, certain, opaque = read[i]
        here = j < len(argv) and (opaque or text == argv[j]) and match(i + 1, j + 1)
        return here or (not certain and match(i + 1, j))
    return match(0, 0)


@pytest.mark.parametrize("case", HELD_OUT, ids=[case["id"] for case in HELD_OUT])
def test_the_held_out_words_are_those_bash_builds(case: dict):
    for side in ("bad", "good"):
        text = case[side]
        regions = [r.text for r in shell_regions(case["file"], text)]
        [read] = [words(region) for region in regions if words(region)]
        assert len(read) == 1 and _on_some_path(read[0], case[f"argv_{side}"]), (side, read)


@pytest.mark.parametrize("case", HELD_OUT, ids=[case["id"] for case in HELD_OUT])
def test_the_held_out_launches_are_judged_as_the_same_words_on_one_line(case: dict, tmp_path):
    """The bad launch gets the findings the same words written on one line get, at the case's line
    (a case whose value stands apart from its flag in an if: none); the good twin none."""
    ruleset = default_ruleset().for_releases((case["release"],))
    path = tmp_path / Path(case["file"]).name
    one_line = f"#!/bin/bash\npython3 -m sglang.launch_server {shlex.join(case['argv_bad'])}\n"
    expected = {d.code for d in lint(one_line.encode(), "one_line.sh", ruleset)}
    bad = lint(case["bad"].encode(), str(path), ruleset)
    if case["expect"] == "silent":
        assert bad == []
    else:
        assert {d.code for d in bad} == expected and {d.line for d in bad} <= {case["line"]}
        assert not expected or case["code"] in expected
    assert lint(case["good"].encode(), str(path), ruleset) == []
