"""Launch commands built in pieces in Python (analysis/standing.py, analysis/built.py): an argv list
that starts sglang's launcher is judged where it stands (returned, a module constant, a class
attribute, handed to another module's helper); a builder class's ``self.cmd`` grown by its methods;
flags kept in a string chosen in branches and split into the argv; a triple-quoted command string
with line continuations. A finding points at its word; a list of another program says nothing; a
word the call that runs the list judged already is said once; and the held-out set
(tests/launch_pieces/python_heldout.json) is caught whole."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT, check_golden, run_flake8, run_lint
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules

FIXTURE = ROOT / "tests" / "fixtures" / "launch_pieces" / "pieces.py"
LAUNCHER = '[sys.executable, "-m", "sglang.launch_server", "--model-path", "m"'


def found(text: str) -> set[tuple[int, int, str]]:
    return {(d.line, d.col + 1, d.code) for d in lint("import sys\n" + text, "launch.py")}


def test_the_command_prints_the_golden_text_and_flake8_the_same(update_golden):
    relative = str(FIXTURE.relative_to(ROOT))
    command = run_lint("--no-cache", relative, cwd=ROOT)
    assert command.returncode == 1, command.stderr
    check_golden(FIXTURE.with_name("pieces.py.out"), command.stdout, update_golden)
    assert run_flake8("--select", "SGL", relative, cwd=ROOT).stdout == command.stdout


def test_the_fixture_is_judged_the_same_without_the_screen():
    source = FIXTURE.read_text(encoding="utf-8")
    screened = lint(source, str(FIXTURE))
    assert {(d.line, d.col + 1, d.code) for d in screened} == {
        (19, 5, "SGL009"), (31, 97, "SGL006"), (39, 22, "SGL009"), (44, 50, "SGL006"), (45, 25, "SGL009"),
        (53, 14, "SGL009"), (54, 33, "SGL006"), (63, 29, "SGL007")}
    assert lint(source, str(FIXTURE), RuleSet(default_rules(), screen=False)) == screened


FORMS = {
    "returned": (f'def command():\n    return {LAUNCHER}, "--max-model-len", "8"]\n', {(3, 80, "SGL009")}),
    "a class attribute": (f'class S:\n    cmd = {LAUNCHER}, "--dtype", "fp16"]\n', {(3, 90, "SGL006")}),
    "handed to a helper of another module": (
        f'from helpers import run\nrun({LAUNCHER}, "--max-model-len", "8"])\n', {(3, 73, "SGL009")}),
    "sglang serve": ('X = ["sglang", "serve", "--model-path", "m", "--max-model-len", "8"]\n', {(2, 46, "SGL009")}),
    "a path to python": ('X = ["/usr/bin/python3.11", "-m", "sglang.launch_server", "--max-model-len", "8"]\n',
                         {(2, 59, "SGL009")}),
    "said once where a call runs it too": (
        f'import subprocess\ncmd = {LAUNCHER}, "--max-model-len", "8"]\nsubprocess.run(cmd)\n', {(3, 75, "SGL009")}),
    "a builder's append": (f'class B:\n    def __init__(self):\n        self.cmd = {LAUNCHER}]\n\n'
                           '    def more(self):\n        self.cmd.append("--max-model-len")\n', {(7, 25, "SGL009")}),
    "a builder's flag and value in one step": (
        f'class B:\n    def __init__(self):\n        self.cmd = {LAUNCHER}]\n\n'
        '    def more(self, x):\n        if x:\n            self.cmd += ["--dtype", "fp16"]\n', {(8, 37, "SGL006")}),
    "a builder of sglang serve": (
        'class B:\n    cmd = ["sglang", "serve"]\n\n    def more(self):\n'
        '        self.cmd.extend(["--max-model-len", "8"])\n',
        {(6, 26, "SGL009")}),
    "split, in an if": ('import subprocess\nextra = ""\nif len(sys.argv) > 1:\n    extra = "--dtype fp16"\n'
                        f'subprocess.run({LAUNCHER}, *extra.split()])\n', {(5, 22, "SGL006")}),
    "shlex.split": ('import shlex\nimport subprocess\nextra = "--max-model-len 8"\n'
                    f'subprocess.run({LAUNCHER}] + shlex.split(extra))\n', {(4, 10, "SGL009")}),
    "a triple-quoted command string": (
        'import subprocess\ncmd = f"""python3 -m sglang.launch_server \\\n    --model-path {sys.argv[1]} \\\n'
        '    --max-model-len 8"""\nsubprocess.run(cmd, shell=True)\n', {(5, 5, "SGL009")}),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_is_judged_at_its_words(form: str):
    text, expected = FORMS[form]
    assert found(text) == expected


QUIET = {
    "another program's list": 'X = [sys.executable, "train.py", "--max-model-len", "8"]\n',
    "another engine's": 'X = ["vllm", "serve", "m", "--max-model-len", "8"]\n',
    "a launcher not first": ('X = ["nsys", "profile", "python3", "-m", "sglang.launch_server", "--max-model-len",'
                             ' "8"]\n'),
    "a builder of another program": ('class B:\n    def __init__(self):\n        self.cmd = ["torchrun", "t.py"]\n\n'
                                     '    def more(self):\n        self.cmd.append("--max-model-len")\n'),
    "a builder whose command is set again to another": (
        f'class B:\n    def __init__(self):\n        self.cmd = {LAUNCHER}]\n\n    def other(self):\n'
        '        self.cmd = ["echo"]\n\n    def more(self):\n        self.cmd.append("--max-model-len")\n'),
    "a split string a parameter's default": (
        f'import subprocess\ndef f(extra="--max-model-len 8"):\n    subprocess.run({LAUNCHER}, *extra.split()])\n'),
    "a split string with quotes, read the shell's way": (
        f'import shlex\nimport subprocess\nextra = "--max-model-len \'8\'"\nsubprocess.run({LAUNCHER}] + '
        'shlex.split(extra))\n'),
    "a list a word is taken out of before it runs": (
        f'import subprocess\ncmd = {LAUNCHER}, "--max-model-len", "8"]\ndel cmd[5:]\nsubprocess.run(cmd)\n'),
    "a returned list in a file that replaces words in place": (
        f'def command():\n    return {LAUNCHER}, "--max-model-len", "8"]\n\n\ncmd = command()\ncmd[5] = "--tp"\n'),
    "a builder that takes words out": (
        f'class B:\n    def __init__(self):\n        self.cmd = {LAUNCHER}]\n\n    def more(self):\n'
        '        self.cmd.append("--max-model-len")\n\n    def less(self):\n'
        '        self.cmd.remove("--max-model-len")\n'),
    "a meant failure": f'import pytest\nwith pytest.raises(SystemExit):\n    X = {LAUNCHER}, "--max-model-len", "8"]\n',
}


@pytest.mark.parametrize("form", sorted(QUIET))
def test_what_is_not_sglangs_or_not_known_says_nothing(form: str):
    assert found(QUIET[form]) == set()


def test_a_word_of_a_split_string_or_of_a_command_string_over_lines_is_fixed_in_place(tmp_path):
    path = tmp_path / "launch.py"
    path.write_text('import subprocess\nimport sys\n\nextra = "--max-model-len 256" if sys.argv else ""\n'
                    'cmd = f"""python3 -m sglang.launch_server \\\n    --model-path {sys.argv[0]} \\\n'
                    '    --max-model-len 8"""\nsubprocess.run([sys.executable, "-m", "sglang.launch_server"] + '
                    'extra.split())\nsubprocess.run(cmd, shell=True)\n')
    result = run_lint("--no-cache", "--fix", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_text().splitlines()[3:7] == [
        'extra = "--context-length 256" if sys.argv else ""', 'cmd = f"""python3 -m sglang.launch_server \\',
        "    --model-path {sys.argv[0]} \\", '    --context-length 8"""']


def test_the_held_out_set_is_caught_whole_and_nothing_else():
    sys.path.insert(0, str(ROOT / "tests" / "launch_pieces"))
    import python_heldout

    caught, silent, alarms = python_heldout.measure()
    assert (len(caught), len(silent), alarms) == (11, 3, [])
