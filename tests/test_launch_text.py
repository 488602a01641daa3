"""sglang_lint.launch.commands: shell words with exact offsets, the launcher finder, and the shell text
of scripts, Markdown and YAML files."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_lint.launch.commands import (
    LAUNCHERS, LaunchCommand, Region, find_launch, launch_commands, launch_commands_in_file,
    launch_commands_in_words, shell_regions,
)
from sglang_lint.launch.shell_split import Word, shell_words
from sglang_lint.launch.yaml_commands import yaml_commands
from sglang_lint.launch.wrappers import WRAPPERS

HOLE = "\ue000"  # what an f-string's expression stands as


def texts(commands):
    return [[w.text for w in cmd] for cmd in commands]


def at(text, needle, nth=0):
    """The offset of the nth occurrence of needle in text."""
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    return pos


def launch(text, hole=None):
    found = launch_commands(text, hole)
    assert len(found) == 1, found
    return found[0]


def args(found: LaunchCommand):
    return [w.text for w in found.args]


# ----------------------------------------------------------------------------------------------------
# shell_words

def test_plain_words_have_exact_offsets():
    text = "python -m sglang.launch_server --tp 2"
    assert shell_words(text) == [[
        Word("python", 0, 6, False, True), Word("-m", 7, 9, False, True),
        Word("sglang.launch_server", 10, 30, False, True), Word("--tp", 31, 35, False, True),
        Word("2", 36, 37, False, True),
    ]]


def test_quotes_are_removed_and_the_word_is_not_exact():
    text = """a 'b c' "d e" f'g'h "" '' x"""
    assert shell_words(text) == [[
        Word("a", 0, 1, False, True), Word("b c", 2, 7, False, False), Word("d e", 8, 13, False, False),
        Word("fgh", 14, 19, False, False), Word("", 20, 22, False, False), Word("", 23, 25, False, False),
        Word("x", 26, 27, False, True),
    ]]


def test_backslash_escapes():
    text = 'a\\ b \\"x\\" c\\\\d "in \\" \\$ \\n"'
    words = shell_words(text)[0]
    assert [w.text for w in words] == ["a b", '"x"', "c\\d", 'in " $ \\n']
    assert [(w.start, w.end, w.exact) for w in words] == [(0, 4, False), (5, 10, False), (11, 15, False),
                                                          (16, 29, False)]


def test_single_quotes_keep_backslashes_and_dollars():
    assert shell_words("'a\\b $X'") == [[Word("a\\b $X", 0, 8, False, False)]]


def test_continuation_lines_continue_the_command_and_the_word():
    text = "python -m sglang.launch_server \\\n    --tp 2 \\\n    --mem\\\n-fraction 0.8\nnext"
    commands = shell_words(text)
    assert texts(commands) == [["python", "-m", "sglang.launch_server", "--tp", "2", "--mem-fraction", "0.8"],
                               ["next"]]
    tp, mem = commands[0][3], commands[0][5]
    assert (tp.start, tp.end, tp.exact) == (at(text, "--tp"), at(text, "--tp") + 4, True)
    assert (mem.start, mem.end, mem.exact) == (at(text, "--mem"), at(text, "fraction") + 8, False)


def test_crlf_continuation():
    text = "python -m sglang.launch_server \\\r\n  --tp 2\r\n"
    assert texts(shell_words(text)) == [["python", "-m", "sglang.launch_server", "--tp", "2"]]


def test_comments_start_only_at_a_word():
    text = "a b # c d\n  # whole line\ne#f 'g # h'"
    assert texts(shell_words(text)) == [["a", "b"], ["e#f", "g # h"]]


@pytest.mark.parametrize("separator", [";", "&&", "||", "|", "&", "\n", "|&", ";;", "(", ")"])
def test_separators_end_the_command(separator):
    assert texts(shell_words(f"a b{separator}c d")) == [["a", "b"], ["c", "d"]]


def test_subshells_and_groups():
    expected = [["cd", "x"], ["python", "run.py"], ["{", "a"], ["}"]]
    assert texts(shell_words("(cd x && python run.py) & { a; }")) == expected


@pytest.mark.parametrize("redirection", ["> log", ">log", ">> log", "2>&1", "2> err", "< in", "&> all", "&>>all",
                                         ">| f", "2>/dev/null", "1>&2", "<<< word", "<> f", ">&2"])
def test_redirections_are_dropped_with_their_target(redirection):
    assert texts(shell_words(f"run --tp 2 {redirection} --port 1")) == [["run", "--tp", "2", "--port", "1"]]


def test_a_digit_word_is_an_argument_unless_a_redirection_follows():
    assert texts(shell_words("run --tp 2 >log")) == [["run", "--tp", "2"]]
    assert texts(shell_words("run --tp 2>log")) == [["run", "--tp"]]


@pytest.mark.parametrize("source, text", [
    ("$TP", "$TP"), ("${X:-2}", "${X:-2}"), ("$(cmd)", "$(cmd)"), ("`cmd`", "`cmd`"), ("$1", "$1"), ("$@", "$@"),
    ("--tp=$TP", "--tp=$TP"), ('"$HOME/x"', "$HOME/x"), ('"${X:-"a b"}"', '${X:-"a b"}'),
    ('$(cmd "a)" \'b)\')', '$(cmd "a)" \'b)\')'), ("$((1 + 2))", "$((1 + 2))"), ("$(a $(b) c)", "$(a $(b) c)"),
    ("$'a\\tb'", "$'a\\tb'"), ('"`x`"', "`x`"), ("${a[0]}", "${a[0]}"),
])
def test_expansions_are_opaque_and_verbatim(source, text):
    [[word]] = shell_words(source)
    assert (word.text, word.start, word.end, word.opaque) == (text, 0, len(source), True)
    assert word.exact == (source == text)


@pytest.mark.parametrize("source, text", [("$", "$"), ("a$", "a$"), ("'$X'", "$X"), ("\\$X", "$X"), ('"$"', "$"),
                                          ("$.", "$."), ("100$ off", "100$")])
def test_what_is_no_expansion_is_not_opaque(source, text):
    word = shell_words(source)[0][0]
    assert (word.text, word.opaque) == (text, False)


def test_a_translated_string_is_a_double_quoted_one():
    assert shell_words('$"a b"') == [[Word("a b", 0, 6, False, False)]]


def test_a_hole_makes_its_word_opaque():
    text = f"python -m sglang.launch_server --tp {HOLE} --model=/m/{HOLE} --port 1"
    words = shell_words(text, hole=HOLE)[0]
    assert [(w.text, w.opaque) for w in words[3:]] == [
        ("--tp", False), (HOLE, True), (f"--model=/m/{HOLE}", True), ("--port", False), ("1", False)]
    assert words[4].start == at(text, HOLE) and words[4].exact
    assert not any(w.opaque for w in shell_words(text)[0])  # without the hole it is ordinary text


def test_control_keywords_are_ordinary_words():
    text = "if true; then\n  python -m x\nfi\nfor i in 1 2; do echo $i; done"
    assert texts(shell_words(text)) == [["if", "true"], ["then"], ["python", "-m", "x"], ["fi"],
                                        ["for", "i", "in", "1", "2"], ["do", "echo", "$i"], ["done"]]


def test_a_here_doc_body_is_split_on_its_own():
    text = "cat <<EOF > notes\nDon't panic\nEOF\npython -m sglang.launch_server --tp 2\n"
    commands = shell_words(text)
    assert texts(commands)[0] == ["cat"]
    assert commands[1][0].text == "Dont panic\n" and commands[1][0].opaque  # the apostrophe stays in the body
    assert texts(commands)[2] == ["python", "-m", "sglang.launch_server", "--tp", "2"]
    assert launch(text).args[0].start == at(text, "--tp")


def test_here_doc_forms():
    text = "ssh host <<-'END'\n\tpython -m sglang.launch_server --tp 4\n\tEND\necho after\n"
    assert texts(shell_words(text)) == [["ssh", "host"], ["python", "-m", "sglang.launch_server", "--tp", "4"],
                                        ["echo", "after"]]
    assert launch(text).args[0].start == at(text, "--tp")
    two = 'a <<A <<"B"\nin a\nA\nin b\nB\nc'
    assert texts(shell_words(two)) == [["a"], ["in", "a"], ["in", "b"], ["c"]]


def test_a_here_doc_without_its_delimiter_is_read_as_lines():
    assert texts(shell_words("cat <<EOF\na b\nc")) == [["cat"], ["a", "b"], ["c"]]
    assert texts(shell_words("cat <<EOF\nxEOF\nEOFx\nEOF")) == [["cat"], ["xEOF"], ["EOFx"]]


def test_unterminated_quotes_run_to_the_end_and_are_opaque():
    assert shell_words("a 'b c\nd") == [[Word("a", 0, 1, False, True), Word("b c\nd", 2, 8, True, False)]]
    assert shell_words('a "b c') == [[Word("a", 0, 1, False, True), Word("b c", 2, 6, True, False)]]
    assert shell_words("a $(b c") == [[Word("a", 0, 1, False, True), Word("$(b c", 2, 7, True, True)]]


def test_a_lone_backslash_at_the_end():
    assert shell_words("a \\") == [[Word("a", 0, 1, False, True), Word("\\", 2, 3, False, True)]]
    assert shell_words("a\\") == [[Word("a\\", 0, 2, False, True)]]


# ----------------------------------------------------------------------------------------------------
# the launcher

MODULE_FORMS = [
    "python -m sglang.launch_server",
    "python3 -m sglang.launch_server",
    "python3.11 -m sglang.launch_server",
    "/usr/bin/python3 -m sglang.launch_server",
    "~/venv/bin/python -m sglang.launch_server",
    "python -u -X faulthandler -m sglang.launch_server",
    "uv run python -m sglang.launch_server",
    "uv run --with sglang python3 -m sglang.launch_server",
    "CUDA_VISIBLE_DEVICES=0 X=1 python -m sglang.launch_server",
    "env X=1 python -m sglang.launch_server",
    "nohup python -m sglang.launch_server",
    "exec python3 -m sglang.launch_server",
    "time python -m sglang.launch_server",
    "numactl --cpunodebind=0 --membind=0 python -m sglang.launch_server",
    "numactl -m 0 -N 0 python -m sglang.launch_server",
    "taskset -c 0-7 python -m sglang.launch_server",
    "srun -N 1 --gres=gpu:8 python -m sglang.launch_server",
    "torchrun --nproc-per-node 8 -m sglang.launch_server",
    "nsys profile -o out --trace=cuda,nvtx python -m sglang.launch_server",
    "$PYTHON -m sglang.launch_server",
    "${PYTHON:-python3} -m sglang.launch_server",
    "docker run --gpus all -p 30000:30000 lmsysorg/sglang:latest python3 -m sglang.launch_server",
    "ssh gpu-host python -m sglang.launch_server",
    "if python -m sglang.launch_server",
    "python -m 'sglang.launch_server'",
    "$ python -m sglang.launch_server",
]


@pytest.mark.parametrize("form", MODULE_FORMS)
def test_module_launcher_forms(form):
    text = f"{form} --model-path m --tp 2 > server.log 2>&1 &\ncurl localhost"
    found = launch(text)
    assert found.launcher.text == "sglang.launch_server"
    assert found.launcher.start == at(text, form.split()[-1])  # a quoted launcher begins at its quote
    assert args(found) == ["--model-path", "m", "--tp", "2"]
    assert [w.start for w in found.args] == [at(text, "--model-path"), at(text, " m ") + 1, at(text, "--tp"),
                                             at(text, " 2 ") + 1]


SERVE_FORMS = [
    "sglang serve",
    "/opt/venv/bin/sglang serve",
    "CUDA_VISIBLE_DEVICES=0,1 sglang serve",
    "env -u FOO X=1 sglang serve",
    "nohup sglang serve",
    "exec -a server sglang serve",
    "time -p sglang serve",
    "numactl --cpunodebind=0 --membind=0 sglang serve",
    "numactl -m 0 sglang serve",
    "taskset -c 0-7 sglang serve",
    "taskset 0xff sglang serve",
    "srun -N 1 -p gpu --gres=gpu:8 sglang serve",
    "uv run sglang serve",
    "uv run --with flashinfer sglang serve",
    "conda run -n env --no-capture-output sglang serve",
    "nsys profile -o out -t cuda sglang serve",
    "timeout -s KILL 600 sglang serve",
    "sudo -E -u me sglang serve",
    "X=1 nohup env Y=2 numactl -N 0 sglang serve",
    "if sglang serve",
    "$ sglang serve",
    "! sglang serve",
]


@pytest.mark.parametrize("form", SERVE_FORMS)
def test_sglang_serve_forms(form):
    text = f"{form} --model-path m --tp 2 &"
    found = launch(text)
    assert (found.launcher.text, found.launcher.start) == ("serve", at(text, " serve ") + 1)
    assert args(found) == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize("module", ["sglang.launch_server_foo", "sglang.srt.disaggregation.launch_lb",
                                    "sglang.launch_server.x", "sglang.bench_one_batch"])
def test_any_module_of_sglang_is_a_launch_its_scripts_table_judges(module):
    # (what runs there, if anything, is the table of each release's modules' business: scripts.toml)
    found = launch(f"python -m {module} --tp 2")
    assert (found.launcher.text, args(found)) == (module, ["--tp", "2"])


@pytest.mark.parametrize("text", [
    "python -m sglang_router.launch_server --tp 2",
    "python -m sglang --tp 2",
    "python -m sglang. --tp 2",
    "python sglang.launch_server --tp 2",
    "python -msglang.launch_server --tp 2",  # joined: not recognised
    "echo python -m sglang.launch_server --tp 2",
    "printf '%s' python -m sglang.launch_server",
    "grep -m sglang.launch_server log",
    "pkill -f sglang.launch_server",
    "echo sglang serve --tp 2",
    "python x.py sglang serve",
    "ls sglang serve",
    "sglang version",
    "sglang",
    "sglang serve-x",
    "sglangx serve",
    "uv pip install sglang serve",
    "pip install 'sglang[all]'",
    "docker run img sglang serve",  # sglang serve only as the command word
    "python -m $MODULE --tp 2",
    "python -m sglang.launch_$X --tp 2",
    "$SGLANG serve --tp 2",
    "sglang $CMD --tp 2",
    "# python -m sglang.launch_server --tp 2",
    "python -m \\\n# sglang.launch_server",
])
def test_not_a_launch(text):
    assert launch_commands(text) == []


def test_every_launch_of_a_script_and_only_its_own_words():
    text = ("set -e\nexport CUDA_VISIBLE_DEVICES=0\n"
            "python -m sglang.launch_server --tp 2 && python -m sglang.launch_server --dp 2 | tee x\n"
            "sglang serve --port 1; sleep 1\n")
    found = launch_commands(text)
    assert [args(f) for f in found] == [["--tp", "2"], ["--dp", "2"], ["--port", "1"]]
    assert [f.launcher.start for f in found] == [at(text, "sglang.launch_server"), at(text, "sglang.launch_server", 1),
                                                 at(text, " serve ") + 1]


def test_the_launch_keeps_opaque_and_quoted_words_in_place():
    text = 'python -m sglang.launch_server --tp $TP --model-path "/models/my model" --port=${PORT:-30000}'
    found = launch(text)
    assert [(w.text, w.opaque, w.exact) for w in found.args] == [
        ("--tp", False, True), ("$TP", True, True), ("--model-path", False, True),
        ("/models/my model", False, False), ("--port=${PORT:-30000}", True, True)]
    assert found.args[3].start == at(text, '"/models') and found.args[3].end == at(text, 'model"') + 6


def test_a_launch_with_holes_from_python():
    text = f"python -m sglang.launch_server --tp {HOLE} --port {HOLE}"
    found = launch(text, hole=HOLE)
    assert [(w.text, w.opaque) for w in found.args] == [("--tp", False), (HOLE, True), ("--port", False),
                                                        (HOLE, True)]
    assert launch_commands(f"python -m {HOLE} --tp 2", hole=HOLE) == []
    assert launch_commands(f"{HOLE} serve --tp 2", hole=HOLE) == []
    assert args(launch(f"{HOLE} -m sglang.launch_server --tp 2", hole=HOLE)) == ["--tp", "2"]


def test_find_launch_on_a_word_list_from_python():
    def word(text, opaque=False):
        return Word(text, 0, 0, opaque, False)

    found = find_launch([word("python3"), word("-m"), word("sglang.launch_server"), word("--tp"), word("x", True)])
    assert found.launcher.text == "sglang.launch_server" and [w.text for w in found.args] == ["--tp", "x"]
    found = find_launch([word("X=1"), word("sglang"), word("serve"), word("--tp"), word("2")])
    assert found.launcher.text == "serve" and [w.text for w in found.args] == ["--tp", "2"]
    assert find_launch([word("sglang"), word("serve", True)]) is None
    assert find_launch([word("-m", True), word("sglang.launch_server")]) is None
    assert find_launch([]) is None
    assert find_launch((word("-m"), word("sglang.launch_server"))).args == []


def test_launch_commands_in_words_runs_find_launch_over_commands():
    commands = shell_words("a\npython -m sglang.launch_server --tp 2\nsglang serve --x")
    assert [f.launcher.text for f in launch_commands_in_words(commands)] == ["sglang.launch_server", "serve"]


def test_a_script_in_bash_c_is_split_again_with_file_offsets():
    text = 'docker run img bash -lc "python -m sglang.launch_server --tp \\"4\\" --model-path \'a b\'" &'
    found = launch(text)
    assert args(found) == ["--tp", "4", "--model-path", "a b"]
    tp, four, path, ab = found.args
    assert (tp.start, tp.end, tp.exact) == (at(text, "--tp"), at(text, "--tp") + 4, True)
    assert (four.start, four.end, four.exact) == (at(text, '\\"4'), at(text, '4\\"') + 3, False)
    assert (path.start, path.exact) == (at(text, "--model-path"), True)
    assert (ab.start, ab.end) == (at(text, "'a b'"), at(text, "'a b'") + 5)
    single = "bash -o pipefail -c 'sglang serve --tp 2 | tee log'"
    assert [(w.text, w.start, w.exact) for w in launch(single).args] == [("--tp", at(single, "--tp"), True),
                                                                         ("2", at(single, "2"), True)]


def test_the_tables_name_the_forms():
    assert "sglang.launch_server" in LAUNCHERS["modules"] and LAUNCHERS["commands"]["sglang"] == ("serve", "generate")
    assert {"env", "nohup", "exec", "time", "numactl", "taskset", "srun", "torchrun", "nsys", "uv"} <= set(WRAPPERS)


# ----------------------------------------------------------------------------------------------------
# shell_regions

@pytest.mark.parametrize("path", ["run.sh", "x/y/RUN.BASH", "a.zsh"])
def test_a_shell_script_is_one_region(path):
    text = "python -m sglang.launch_server --tp 2\n"
    assert shell_regions(path, text) == [Region(0, text, "#")]


@pytest.mark.parametrize("shebang, shell", [
    ("#!/bin/bash", True), ("#!/usr/bin/env bash", True), ("#!/bin/sh -e", True), ("#! /bin/zsh", True),
    ("#!/usr/bin/env -S bash -x", True), ("#!/bin/dash", True), ("\ufeff#!/bin/sh", True),
    ("#!/usr/bin/python3", False), ("#!/usr/bin/env python", False), ("#!/bin/bashful", False), ("# /bin/sh", False),
])
def test_a_shebang_makes_a_shell_script(shebang, shell):
    text = f"{shebang}\nsglang serve --tp 2\n"
    assert shell_regions("launch", text) == ([Region(0, text, "#")] if shell else [])


@pytest.mark.parametrize("path", ["x.py", "x.txt", "x.yaml", "Dockerfile", "x.rst"])
def test_other_files_have_no_shell_regions(path):
    assert shell_regions(path, "```bash\nsglang serve\n```\n") == []


@pytest.mark.parametrize("info", ["bash", "sh", "shell", "zsh", "BASH", "bash title=run.sh", "{.bash}", "sh{1,3}"])
def test_markdown_shell_fences(info):
    text = f"# Run\n\n```{info}\npython -m sglang.launch_server --tp 2\n```\nafter\n"
    [region] = shell_regions("README.md", text)
    assert region == Region(at(text, "python"), "python -m sglang.launch_server --tp 2\n", "#")
    assert text[region.start:region.start + len(region.text)] == region.text


@pytest.mark.parametrize("info", ["python", "text", "yaml", "json", "console-like", "bashx"])
def test_markdown_other_fences_are_ignored(info):
    assert shell_regions("README.md", f"```{info}\npython -m sglang.launch_server\n```\n") == []


@pytest.mark.parametrize("block", [
    "python -m sglang.launch_server --tp 2\n",
    "  python3 -m sglang.launch_server --tp 2\n",
    "# start it\nCUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --tp 2\n",
    "SGLANG_X=1 nohup sglang serve --tp 2 &\ncurl localhost:30000/health\n",
    "sglang serve --tp 2\n",
])
def test_markdown_unlabelled_fence_whose_first_command_launches_is_shell(block):
    text = f"Run:\n\n```\n{block}```\n"
    [region] = shell_regions("README.md", text)
    assert region == Region(at(text, block), block, "#")
    [found] = launch_commands_in_file("README.md", text)
    assert (args(found), found.args[0].start) == (["--tp", "2"], at(text, "--tp"))


def test_markdown_unlabelled_fence_with_a_prompt_is_console():
    text = ("~~~\n"
            "$ python -m sglang.launch_server \\\n"
            ">   --tp 2\n"
            "INFO: started --port 1\n"
            "$ sglang serve --dp 2\n"
            "~~~\n")
    [region] = shell_regions("a.md", text)
    assert region.text.splitlines() == ["  python -m sglang.launch_server \\", "    --tp 2", " " * 22,
                                        "  sglang serve --dp 2"]
    found = launch_commands_in_file("a.md", text)
    assert [(args(f), f.args[0].start) for f in found] == [(["--tp", "2"], at(text, "--tp")),
                                                           (["--dp", "2"], at(text, "--dp"))]


@pytest.mark.parametrize("block", [
    '{"command": "python -m sglang.launch_server --tp 2"}\n',
    "import subprocess\nsubprocess.run('python -m sglang.launch_server --tp 2', shell=True)\n",
    "[2025-01-01] INFO: restarting\npython -m sglang.launch_server --tp 2\n",
    "pip install sglang\npython -m sglang.launch_server --tp 2\n",
    "$ pip install sglang\n$ python -m sglang.launch_server --tp 2\n",
    "echo python -m sglang.launch_server --tp 2\n",
    "Successfully installed sglang-0.5.6\n",
    "\n\n",
])
def test_markdown_unlabelled_fence_whose_first_command_does_not_launch_is_not_read(block):
    text = f"```\n{block}```\n\n```\nsglang serve --dp 2\n```\n"  # the second is read
    assert shell_regions("README.md", text) == [Region(at(text, "sglang serve --dp"), "sglang serve --dp 2\n", "#")]
    assert [args(f) for f in launch_commands_in_file("README.md", text)] == [["--dp", "2"]]


def test_markdown_fence_kinds_and_indentation():
    text = ("1. Launch:\n\n   ~~~sh\n   sglang serve --tp 2\n   ~~~\n\n"
            "    ```bash\n    sglang serve --tp 4\n    ```\n"
            "````bash\n# ```\nsglang serve --tp 8\n````\n"
            "```python\n```bash\nnot shell\n```\n")
    regions = shell_regions("docs/x.markdown", text)
    assert [r.text for r in regions] == ["   sglang serve --tp 2\n", "    sglang serve --tp 4\n",
                                         "# ```\nsglang serve --tp 8\n"]
    assert all(text[r.start:r.start + len(r.text)] == r.text for r in regions)
    found = launch_commands_in_file("docs/x.markdown", text)
    assert [(f.args[1].text, f.args[1].start) for f in found] == [("2", at(text, "2\n")), ("4", at(text, "4\n")),
                                                                  ("8", at(text, "8\n"))]


def test_markdown_unclosed_fence_runs_to_the_end():
    text = "```bash\nsglang serve --tp 2\n"
    assert shell_regions("a.md", text) == [Region(8, "sglang serve --tp 2\n", "#")]


def test_markdown_console_blocks_keep_the_commands():
    text = ("```console\n"
            "$ pip install sglang\n"
            "Successfully installed sglang\n"
            "$ python -m sglang.launch_server \\\n"
            ">   --tp 2 \\\n"
            "    --port 30000\n"
            "INFO: started $ python -m sglang.launch_server --dp 9\n"
            "(venv) user@host:~/x$ sglang serve --dp 2\n"
            "```\n")
    [region] = shell_regions("a.md", text)
    assert len(region.text) == at(text, "```\n") - region.start  # same length: offsets hold
    assert region.text.splitlines() == [
        "  pip install sglang", " " * 29, "  python -m sglang.launch_server \\", "    --tp 2 \\", "    --port 30000",
        " " * len("INFO: started $ python -m sglang.launch_server --dp 9"),
        " " * len("(venv) user@host:~/x$ ") + "sglang serve --dp 2"]
    found = launch_commands_in_file("a.md", text)
    assert [args(f) for f in found] == [["--tp", "2", "--port", "30000"], ["--dp", "2"]]
    assert [w.start for w in found[0].args] == [at(text, "--tp"), at(text, "2 \\"), at(text, "--port"),
                                                at(text, "30000")]


def test_launch_commands_in_file_for_a_script_keeps_offsets():
    text = "#!/bin/bash\nnohup python3 -m sglang.launch_server --tp 2 &\n"
    found = launch_commands_in_file("start", text)
    assert [(w.text, w.start) for w in found[0].args] == [("--tp", at(text, "--tp")), ("2", at(text, "2 &"))]
    assert launch_commands_in_file("x.txt", text[len("#!/bin/bash\n"):]) == []


# ----------------------------------------------------------------------------------------------------
# YAML

FLOW = 'command: ["python3", "-m", sglang.launch_server, \'--tp\', "2"]  # launch\n'
FLOW_LINES = 'args: [\n  "--model-path", "/m/a\\"b",  # c\n  --tp, 2,\n  ["nested"], {a: b},\n]\nother: [x]\n'
BLOCK_SEQUENCE = ("containers:\n"
                  "- name: sglang\n"
                  "  args:\n"
                  "    - python3\n"
                  "    - -m   # the module\n"
                  "    - 'sglang.launch_server'\n"
                  "\n"
                  "    - --tp-size\n"
                  '    - "2"\n'
                  "    - |\n"
                  "      multi\n"
                  "        more\n"
                  "  image: x\n")
COMPACT = "command:\n- sglang\n- serve\nargs:\n- --tp\n- '2'\n"
SCALARS = ("services:\n"
           "  a:\n"
           "    command: python3 -m sglang.launch_server --tp 2  # comment\n"
           "  b:\n"
           "    command: 'sglang serve --model-path ''/m x'' --tp 4'\n"
           "  c:\n"
           '    command: "sglang serve --tp \\"8\\"\n'
           '      --dp 2"\n'
           "  d:\n"
           "    command: sglang serve\n"
           "      --tp 16\n")
LITERAL = ("steps:\n"
           "  - name: serve\n"
           "    run: |\n"
           "      pip install sglang\n"
           "      python -m sglang.launch_server \\\n"
           "        --tp 2 &\n"
           "\n"
           "      # wait for it\n"
           "      curl localhost\n"
           "  - run: echo done\n")
FOLDED = {header: (f"entrypoint: {header}\n"
                   "  python3 -m sglang.launch_server\n"
                   "  --tp 2\n"
                   "  --model-path 'a b'\n"
                   "next: 1\n") for header in (">", ">-", ">+", ">2", "> # folded")}
FOLDED_INDENTED = "run: >\n  a b\n    c d\n  e\n\n  f\n"
K8S = ("spec:\n"
       "  containers:\n"
       "  - name: a\n"
       "    image: lmsysorg/sglang\n"
       "    command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n"
       "    args:\n"
       "    - --tp\n"
       "    - \"2\"\n"
       "    resources: {}\n"
       "  - name: b\n"
       "    args: [\"--tp\", \"4\"]\n"
       "    command:\n"
       "      - sglang\n"
       "      - serve\n"
       "  - name: c\n"
       "    args: [\"--dp\", \"8\"]\n")
COMPOSE = ("services:\n"
           "  sglang:\n"
           "    image: lmsysorg/sglang:latest\n"
           "    entrypoint: python3 -m sglang.launch_server\n"
           "    command: --model-path /m --tp 2\n"
           "    healthcheck:\n"
           "      test: [\"CMD-SHELL\", \"curl -f localhost\"]\n")
SH_C = ("containers:\n"
        "- command: [\"/bin/sh\", \"-c\"]\n"
        "  args:\n"
        "  - |\n"
        "    pip install x && python3 -m sglang.launch_server \\\n"
        "      --tp 2 --host \"0.0.0.0\"\n")
SH_C_LINE = 'command: ["bash", "-c", "python -m sglang.launch_server --tp \\"2\\""]\n'
GITLAB = ("serve:\n"
          "  before_script:\n"
          "    - pip install sglang\n"
          "  script:\n"
          "    - python -m sglang.launch_server --tp 2 &\n"
          "    - >\n"
          "      sglang serve\n"
          "      --dp 2\n")
NOT_COMMANDS = ("description: |\n"
                "  command: python -m sglang.launch_server --tp 2\n"
                "image: python -m sglang.launch_server\n"
                "notes:\n"
                "  - >\n"
                "    run: sglang serve --tp 2\n"
                "# command: sglang serve\n"
                "commands: sglang serve\n"
                "command: &anchor !!str sglang serve --tp 3\n")
EXPANSIONS = 'args: ["--tp", "$(TP)", "${PORT}", "$$", "a$"]\n'
EMPTY = '"command": ["sglang", "serve"]\nargs:\ncommand:\n  # nothing\nrun: ""\nscript: []\n'
YAML_FIXTURES = [FLOW, FLOW_LINES, BLOCK_SEQUENCE, COMPACT, SCALARS, LITERAL, *FOLDED.values(), FOLDED_INDENTED, K8S,
                 COMPOSE, SH_C, SH_C_LINE, GITLAB, NOT_COMMANDS, EXPANSIONS, EMPTY]


def ywords(text):
    return [[(w.text, w.start, w.end, w.exact) for w in cmd] for cmd in yaml_commands(text)]


def test_yaml_flow_sequence_on_one_line():
    [cmd] = yaml_commands(FLOW)
    assert [w.text for w in cmd] == ["python3", "-m", "sglang.launch_server", "--tp", "2"]
    assert [(w.start, w.end, w.exact) for w in cmd] == [
        (10, 19, False), (21, 25, False), (27, 47, True), (49, 55, False), (57, 60, False)]


def test_yaml_flow_sequence_over_lines_with_escapes():
    text = FLOW_LINES
    [cmd] = yaml_commands(text)
    assert [w.text for w in cmd] == ["--model-path", '/m/a"b', "--tp", "2"]
    assert (cmd[1].start, cmd[1].end) == (at(text, '"/m'), at(text, 'b"') + 2)


def test_yaml_block_sequence():
    text = BLOCK_SEQUENCE
    assert ywords(text) == [[
        ("python3", at(text, "python3"), at(text, "python3") + 7, True),
        ("-m", at(text, "-m "), at(text, "-m ") + 2, True),
        ("sglang.launch_server", at(text, "'sglang"), at(text, "server'") + 7, False),
        ("--tp-size", at(text, "--tp"), at(text, "--tp") + 9, True),
        ("2", at(text, '"2"'), at(text, '"2"') + 3, False),
        ("multi\nmore", at(text, "      multi"), at(text, "more") + 4, False)]]


def test_yaml_compact_sequence_at_the_key_indentation():
    assert texts(yaml_commands(COMPACT)) == [["sglang", "serve", "--tp", "2"]]


def test_yaml_scalars_are_split_as_shell():
    text = SCALARS
    found = launch_commands_in_words(yaml_commands(text))
    assert [args(f) for f in found] == [["--tp", "2"], ["--model-path", "/m x", "--tp", "4"],
                                        ["--tp", "8", "--dp", "2"], ["--tp", "16"]]
    a, b, c, d = found
    assert [(w.start, w.exact) for w in a.args] == [(at(text, "--tp"), True), (at(text, "2  #"), True)]
    assert (b.args[1].start, b.args[1].end, b.args[1].exact) == (at(text, "''/m"), at(text, "x''") + 3, False)
    assert (c.args[1].start, c.args[1].end) == (at(text, '\\"8'), at(text, '8\\"') + 3)
    assert (c.args[2].start, c.args[2].exact) == (at(text, "--dp"), True)
    assert (d.args[1].start, d.args[1].exact) == (at(text, "16"), True)


def test_yaml_literal_block_scalar_keeps_lines():
    text = LITERAL
    assert texts(yaml_commands(text)) == [
        ["pip", "install", "sglang"], ["python", "-m", "sglang.launch_server", "--tp", "2"], ["curl", "localhost"],
        ["echo", "done"]]
    found = launch_commands_in_words(yaml_commands(text))
    assert [(w.text, w.start, w.exact) for w in found[0].args] == [("--tp", at(text, "--tp"), True),
                                                                   ("2", at(text, "2 &"), True)]


@pytest.mark.parametrize("header", sorted(FOLDED))
def test_yaml_folded_block_scalar_joins_lines(header):
    text = FOLDED[header]
    [found] = launch_commands_in_words(yaml_commands(text))
    assert args(found) == ["--tp", "2", "--model-path", "a b"]
    assert [w.start for w in found.args] == [at(text, "--tp"), at(text, " 2\n") + 1, at(text, "--model"),
                                             at(text, "'a b'")]


def test_yaml_folded_block_keeps_more_indented_lines_apart():
    assert texts(yaml_commands(FOLDED_INDENTED)) == [["a", "b"], ["c", "d"], ["e"], ["f"]]


def test_yaml_kubernetes_command_and_args_make_one_command():
    assert texts(yaml_commands(K8S)) == [
        ["python3", "-m", "sglang.launch_server", "--tp", "2"], ["sglang", "serve", "--tp", "4"], ["--dp", "8"]]
    assert [args(f) for f in launch_commands_in_file("deploy.yaml", K8S)] == [["--tp", "2"], ["--tp", "4"]]


def test_yaml_compose_entrypoint_and_command_make_one_command():
    text = COMPOSE
    [found] = launch_commands_in_file("compose.yml", text)
    assert args(found) == ["--model-path", "/m", "--tp", "2"]
    assert [w.start for w in found.args] == [at(text, "--model"), at(text, "/m"), at(text, "--tp"), at(text, "2\n")]


def test_yaml_sh_c_script_is_split_again():
    text = SH_C
    [found] = launch_commands_in_file("k8s.yml", text)
    assert [(w.text, w.start, w.end, w.exact) for w in found.args] == [
        ("--tp", at(text, "--tp"), at(text, "--tp") + 4, True),
        ("2", at(text, "2 --host"), at(text, "2 --host") + 1, True),
        ("--host", at(text, "--host"), at(text, "--host") + 6, True),
        ("0.0.0.0", at(text, '"0.0'), at(text, '0"') + 2, False)]
    [found] = launch_commands_in_file("x.yaml", SH_C_LINE)
    assert [(w.text, w.start, w.exact) for w in found.args] == [("--tp", at(SH_C_LINE, "--tp"), True),
                                                                ("2", at(SH_C_LINE, '\\"2'), False)]


def test_yaml_gitlab_script_items_are_shell_lines():
    assert [args(f) for f in launch_commands_in_file("ci.yml", GITLAB)] == [["--tp", "2"], ["--dp", "2"]]


def test_yaml_other_keys_and_block_text_are_not_commands():
    assert texts(yaml_commands(NOT_COMMANDS)) == [["sglang", "serve", "--tp", "3"]]


def test_yaml_expansions_in_items_are_opaque():
    assert [(w.text, w.opaque) for w in yaml_commands(EXPANSIONS)[0]] == [
        ("--tp", False), ("$(TP)", True), ("${PORT}", True), ("$$", False), ("a$", False)]


def test_yaml_quoted_keys_and_empty_values():
    assert texts(yaml_commands(EMPTY)) == [["sglang", "serve"]]


# ----------------------------------------------------------------------------------------------------
# every word of every fixture: an exact word is its slice of the file

SHELL_FIXTURES = [
    "python -m sglang.launch_server --tp 2",
    """a 'b c' "d e" f'g'h "" '' x""",
    'a\\ b \\"x\\" c\\\\d "in \\" \\$ \\n"',
    "python -m sglang.launch_server \\\n    --tp 2 \\\n    --mem\\\n-fraction 0.8\nnext",
    'python -m sglang.launch_server --tp $TP --model-path "/models/my model" --port=${PORT:-30000}',
    'docker run img bash -lc "python -m sglang.launch_server --tp \\"4\\" --model-path \'a b\'" &',
    "cat <<EOF > notes\nDon't panic\nEOF\npython -m sglang.launch_server --tp 2\n",
    "ssh host <<-'END'\n\tpython -m sglang.launch_server --tp 4\n\tEND\necho after\n",
    f"python -m sglang.launch_server --tp {HOLE} --model=/m/{HOLE} --port 1",
    "if true; then\n  python -m x\nfi\nfor i in 1 2; do echo $i; done",
    "run --tp 2 > log 2>&1 < in &> all <<< w | x; y && z || w (a) {b}",
    "a 'b c\nd",
    "$'a\\tb' $\"c d\" `e f` $(g \"h)\") ${i:-\"j k\"}",
] + [f"{form} --model-path m --tp 2 > server.log 2>&1 &\n" for form in MODULE_FORMS + SERVE_FORMS]


def _all_words(text):
    for cmd in shell_words(text, hole=HOLE):
        yield from cmd
    for found in launch_commands(text, hole=HOLE):
        yield found.launcher
        yield from found.args


def _check(text, words):
    for word in words:
        assert 0 <= word.start < word.end <= len(text), word
        if word.exact:
            assert text[word.start:word.end] == word.text, word


@pytest.mark.parametrize("text", SHELL_FIXTURES)
def test_exact_words_are_their_slice_shell(text):
    _check(text, list(_all_words(text)))
    for cmd in shell_words(text, hole=HOLE):
        assert all(a.end <= b.start for a, b in zip(cmd, cmd[1:]))  # in order, no overlap
        for word in cmd:
            if not word.opaque:  # the word's source alone splits to the same word
                assert shell_words(text[word.start:word.end]) == [[Word(word.text, 0, word.end - word.start, False,
                                                                        word.exact)]]


FILE_FIXTURES = [
    ("a.md", "```bash\npython -m sglang.launch_server --tp 2\n```\n"
             "```console\n$ sglang serve \\\n> --tp 2\nout\n```\n"),
    ("a.md", "1. x\n   ~~~sh\n   sglang serve --tp 2\n   ~~~\n````bash\n# ```\nsglang serve --tp 8\n````\n"),
    ("run.sh", "nohup python -m sglang.launch_server --tp 2 > log 2>&1 &\n"),
] + [("x.yaml", text) for text in YAML_FIXTURES]


@pytest.mark.parametrize("text", YAML_FIXTURES)
def test_exact_words_are_their_slice_yaml(text):
    words = [w for cmd in yaml_commands(text) for w in cmd]
    assert words
    _check(text, words)


@pytest.mark.parametrize("path, text", FILE_FIXTURES)
def test_exact_words_are_their_slice_files(path, text):
    found = launch_commands_in_file(path, text)
    assert found or path.endswith(".yaml")
    _check(text, [w for f in found for w in [f.launcher, *f.args]])
    for region in shell_regions(path, text):
        assert len(region.text) == len(text[region.start:region.start + len(region.text)])
        for cmd in shell_words(region.text):
            _check(text, [Word(w.text, w.start + region.start, w.end + region.start, w.opaque, w.exact) for w in cmd])


# ----------------------------------------------------------------------------------------------------
# garbage in: no exception, linear time

SHELLISH = st.lists(st.sampled_from(list(" \t\n\r\\'\"$`;&|<>(){}#=-~[]*!,:abc2") + [
    "-m", "sglang.launch_server", "sglang", "serve", HOLE, "<<E\n", "\nE\n", "bash -c ", "```bash\n", "- ", "command: ",
]), max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(SHELLISH)
def test_random_text_never_raises_and_exact_words_hold(text):
    _check(text, list(_all_words(text)))
    _check(text, [w for cmd in yaml_commands(text) for w in cmd])
    for path in ("a.md", "a.sh", "a.yaml"):
        _check(text, [w for f in launch_commands_in_file(path, text, HOLE) for w in [f.launcher, *f.args]])
        for region in shell_regions(path, text):
            assert len(region.text) == len(text[region.start:region.start + len(region.text)])


@pytest.mark.parametrize("text", [
    "'", '"', "\\", "a \\", "$(", "${", "`", "$'", "<<", "cat <<", "cat <<EOF", "a\\\r", "2>", "&>", "a |& b",
    "```bash", "```bash\n", "~~~", "command: [", "command: \"", "command: '", "args:\n- ", "args:\n-", "command: |",
    "command: >\n", "run:\n  - |\n", '"\\', "command: \"\\u12", bytes(range(256)).decode("latin-1"), "\x00\x01\xff",
])
def test_garbage_never_raises(text):
    for path in ("a.sh", "a.md", "a.yaml"):
        launch_commands_in_file(path, text, HOLE)
    shell_words(text, HOLE)
    yaml_commands(text)


def _garbage(size: int) -> str:
    rng = random.Random(size)
    tokens = ["python", "-m", "sglang.launch_server", "--tp", "2", "'a b'", '"x $Y"', "$(c)", "${X:-2}", "\\\n", "\n",
              ";", "&&", "|", "#c\n", "2>&1", ">", "<<EOF\nbody\nEOF\n", "`b`", "```bash\n", "- ", "command: [",
              "args:\n", "  - x\n", "|\n", "\t", "\r\n", "sglang serve", "bash -c", "{", "}", "[", "]"]
    out, n = [], 0
    while n < size:
        token = rng.choice(tokens)
        out.append(token + " ")
        n += len(token) + 1
    return "".join(out)


PATHOLOGICAL = {
    "garbage": _garbage,
    "open quote": lambda n: "'" * n,
    "open double quotes": lambda n: '"' * n,
    "open substitutions": lambda n: "$(" * (n // 2),
    "backticks": lambda n: "`" * n,
    "backslashes": lambda n: "\\" * n,
    "dollars": lambda n: "$" * n,
    "continuations": lambda n: "a\\\n" * (n // 3),
    "here-docs without end": lambda n: "".join(f"cat <<A{i}\n" for i in range(n // 12)),
    "here-doc delimiter everywhere": lambda n: "cat <<EOF\n" + "xEOF" * (n // 4),
    "tabs before a here-doc delimiter": lambda n: "cat <<-EOF\n" + "\t" * n + "xEOF",
    "fences": lambda n: "```bash\n" * (n // 8),
    "console": lambda n: "~~~console\n$ x\n" * (n // 16),
    "flow": lambda n: "command: " + "[" * n,
    "flows": lambda n: "command: [" * (n // 10),
    "empty items": lambda n: "args:\n" + "- \n" * (n // 3),
    "keys": lambda n: "".join(" " * (i % 100) + "command: x\n" for i in range(n // 60)),
    "quoted yaml": lambda n: 'command: "' + "\\" * n,
    "bash -c": lambda n: "bash -c " * (n // 8),
    "binary": lambda n: bytes(range(256)).decode("latin-1") * (n // 256),
}


def _scan(text: str) -> None:
    for path in ("a.sh", "a.md"):
        launch_commands_in_file(path, text, HOLE)
    yaml_commands(text)


def _lines_run(make, size: int) -> int:
    """How many lines of Python the scanners run on ``make(size)`` (the same count every run)."""
    text = make(size)
    count = 0

    def on_line(frame, event, arg):
        nonlocal count
        count += event == "line"
        return on_line

    sys.settrace(lambda frame, event, arg: on_line)
    try:
        _scan(text)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_a_large_file_takes_linear_time(name):
    # Linear in lines of Python run, a count that does not vary with the machine's load (a
    # wall-clock ratio failed under load); a quadratic scan runs 64x the lines for 8x the text.
    make = PATHOLOGICAL[name]
    small, large = _lines_run(make, 10_000), _lines_run(make, 80_000)
    assert large <= 10 * max(small, 1_000), f"{name}: {small} lines run for 10 kB but {large} for 80 kB"
    # A slow C call (a regex backtracking) runs no Python line: 1 MB must still end (how soon
    # is measured by bench/pathological.py, not bounded here: the suite runs on loaded machines).
    _scan(make(1_000_000))
