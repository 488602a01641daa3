"""The ``sglang-lint`` command: output lines, exit codes, selection, walking, bad input.

The exit codes, pipes and bad input go through the command as a process (``lint``); the
options, walking and listings through ``sglang_lint.frontends.cli.main`` in this process (``main``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, lint_in_process as main, run_lint as lint
from snippets import DFLASH_NONE, SGL001_AND_SGL004 as BAD
from sglang_lint import __version__


def test_clean_file_exits_0(tmp_path):
    (tmp_path / "ok.py").write_text("print('hello')\n")
    result = lint("ok.py", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_findings_exit_1_one_line_each(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    result = lint("bad.py", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [["bad.py:2:31:", "SGL001"], ["bad.py:3:36:", "SGL004"]]


def test_select_and_ignore_by_prefix(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)

    def codes(*args):
        return [line.split()[1] for line in main(*args, "bad.py", cwd=tmp_path).stdout.splitlines()]

    assert codes("--select", "SGL004") == ["SGL004"]
    assert codes("--ignore", "SGL001") == ["SGL004"]
    assert main("--select", "SGL00", "--ignore", "SGL0", "bad.py", cwd=tmp_path).returncode == 0
    result = main("--select", "E501", "bad.py", cwd=tmp_path)
    assert result.returncode == 2 and "not a code prefix" in result.stderr


def test_directories_are_walked_for_python_files(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "notes.txt").write_text(BAD)
    (tmp_path / "pkg" / ".venv").mkdir()
    (tmp_path / "pkg" / ".venv" / "dep.py").write_text(BAD)
    result = main("pkg", cwd=tmp_path)
    assert result.returncode == 1
    assert {line.split(":")[0] for line in result.stdout.splitlines()} == {str(Path("pkg/sub/bad.py"))}


def test_unparseable_file_names_it_exits_2_and_others_still_lint(tmp_path):
    # Only files that mention a catalog API are parsed at all (that is what keeps the
    # command fast); such a file that does not parse is reported.
    (tmp_path / "broken.py").write_text("def f(:\n    " + DFLASH_NONE)
    (tmp_path / "bad.py").write_text(BAD)
    result = lint("broken.py", "bad.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("broken.py:")
    assert "cannot parse" in result.stderr
    assert len(result.stdout.splitlines()) == 2  # bad.py was still linted


def test_unreadable_inputs_exit_2(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n" + DFLASH_NONE.encode())
    result = lint("latin.py", "missing.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "latin.py: error: cannot decode" in result.stderr
    assert "missing.py: error: no such file or directory" in result.stderr


def test_coding_line_is_honoured(tmp_path):
    (tmp_path / "latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\nx = '\xe9'\n" + DFLASH_NONE.encode()
    )
    result = main("latin.py", cwd=tmp_path)
    assert result.returncode == 1 and ":3:36: SGL004" in result.stdout


def test_stdin_with_display_name():
    result = lint("--stdin-filename", "editor/buffer.py", "-", stdin=BAD)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith("editor/buffer.py:2:31: SGL001")


def test_rules_lists_every_rule():
    result = main("--rules")  # (this repository has a rules/ folder: the word would lint it)
    assert result.returncode == 0
    codes = [line.split()[0] for line in result.stdout.splitlines()]
    assert codes[:5] == ["SGL001", "SGL002", "SGL003", "SGL004", "SGL005"]
    assert len(codes) == len(set(codes)) > 300 and all(code >= "SGL100" for code in codes[15:])
    assert "unsupported-capture-mode" in result.stdout
    by_code = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert "safe/unsafe fix" in by_code["SGL001"]  # which rules fix, and how safely
    assert "no fix" in by_code["SGL004"]


def test_version_and_usage_errors():
    result = main("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"sglang-lint {__version__}")
    assert main("--no-such-flag").returncode == 2
    assert main("--rules", "extra").returncode == 2


def test_a_path_named_like_a_subcommand_is_linted_and_the_option_spelling_runs_the_subcommand(tmp_path):
    # a project's rules/ folder, a script named server (pre-commit passes it by name): linted;
    # --rules / --server run the subcommand whatever is here; `check` says "lint" outright
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "bad.py").write_text(BAD)
    (tmp_path / "server").write_text("#!/bin/sh\npython -m sglang.launch_server --model-path m --tp-sise 2\n")
    linted = main("rules", "--no-cache", cwd=tmp_path)
    assert linted.returncode == 1 and linted.stdout.startswith("rules/bad.py:")
    assert linted.stderr == ("sglang-lint: linting the path 'rules' found here; `sglang-lint --rules` runs the rules"
                             " subcommand\n")
    server = main("server", "--no-cache", cwd=tmp_path)
    assert server.returncode == 1 and server.stdout.startswith("server:2:") and " SGL009 " in server.stdout
    checked = main("check", "--no-cache", "rules", cwd=tmp_path)
    assert (checked.returncode, checked.stdout, checked.stderr) == (1, linted.stdout, "")
    listed = main("--rules", cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("SGL001 ")
    elsewhere = main("rules", cwd=tmp_path / "rules")  # no such path there: the subcommand
    assert (elsewhere.returncode, elsewhere.stdout) == (0, listed.stdout)
    assert main("explain", "SGL009", cwd=tmp_path).stdout == main("--explain", "SGL009", cwd=tmp_path).stdout


def test_check_in_either_spelling_is_the_lint_run(tmp_path):
    # the quick entry point (the command; a clean file never reaches frontends/cli.py) and the full
    # command (in this process) read the first word alike
    (tmp_path / "clean.py").write_text("import os\nprint(os.sep)\n")
    (tmp_path / "bad.py").write_text(BAD)
    for spelling in ("check", "--check"):
        for run in (lint, main):
            clean = run(spelling, "clean.py", cwd=tmp_path)
            assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")
            bad = run(spelling, "--no-cache", "bad.py", cwd=tmp_path)
            assert (bad.returncode, bad.stderr) == (1, "") and bad.stdout.startswith("bad.py:")
    (tmp_path / "check").mkdir()  # a folder named check: `check` lints it, and says nothing
    (tmp_path / "check" / "bad.py").write_text(BAD)
    folder = main("check", "--no-cache", cwd=tmp_path)
    assert (folder.returncode, folder.stderr) == (1, "") and folder.stdout.startswith("check/bad.py:")


def test_diff_is_a_patch_git_applies_and_fails_while_findings_remain(tmp_path):
    (tmp_path / "fixable.py").write_text('import sglang as sgl\nsgl.Engine(model_path="m", mem_fraction=0.8)\n')
    (tmp_path / "unfixable.py").write_text('import sglang as sgl\nsgl.Engine(model_path="m", tp_size="2")\n')
    (tmp_path / "fine.py").write_text('import sglang as sgl\nsgl.Engine(model_path="m", tp_size=2)\n')
    result = main("--no-cache", "--diff", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[:2] == ["--- a/fixable.py", "+++ b/fixable.py"]  # not a/./fixable.py
    assert result.stderr.splitlines() == [
        "./unfixable.py:2:36: SGL008 Engine(tp_size='2'): sglang 0.5.23's tp_size takes an int, not a str",
        "sglang-lint: would fix 1 finding in 1 file, 1 remaining",
    ]
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    applied = subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=result.stdout, text=True, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert "mem_fraction_static=0.8" in (tmp_path / "fixable.py").read_text()
    assert main("--no-cache", "--diff", "fine.py", cwd=tmp_path).returncode == 0
    assert main("--no-cache", "--diff", "unfixable.py", cwd=tmp_path).returncode == 1  # nothing to patch, one left
    refused = main("--diff", "--format", "json", "fine.py", cwd=tmp_path)
    assert refused.returncode == 2 and "--diff prints a patch: it takes no --format json" in refused.stderr


def test_a_fix_is_described_alike_in_python_and_in_shell(tmp_path):
    # the values as the messages quote them, not as each language writes them
    (tmp_path / "serve.sh").write_text("python -m sglang.launch_server --model-path m --dtype BFLOAT16 --tp-sise 2\n")
    (tmp_path / "serve.py").write_text('import sglang as sgl\nsgl.Engine(model_path="m", dtype="BFLOAT16", tp_sise=2)\n'
                                       'import subprocess\nsubprocess.run(["python", "-m", "sglang.launch_server",'
                                       ' "--dtype", "BFLOAT16", "--tp-sise", "2"])\n')
    result = main("--no-cache", "--fix", "--unsafe-fixes", "serve.sh", "serve.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr.splitlines() == [
        "serve.sh:1:55: SGL006 fixed ('BFLOAT16' -> 'bfloat16')",
        "serve.sh:1:64: SGL009 fixed ('--tp-sise' -> '--tp-size')",
        "serve.py:2:34: SGL006 fixed ('BFLOAT16' -> 'bfloat16')",
        "serve.py:2:46: SGL009 fixed ('tp_sise' -> 'tp_size')",
        "serve.py:4:68: SGL006 fixed ('BFLOAT16' -> 'bfloat16')",
        "serve.py:4:80: SGL009 fixed ('--tp-sise' -> '--tp-size')",
        "sglang-lint: fixed 6 findings in 2 files, 0 remaining",
    ]


def test_help_lists_the_subcommands():
    shown = main("--help").stdout
    for name in ("check", "rules", "explain", "server", "catalog"):
        assert f"\n  {name} " in shown


def test_a_reader_that_leaves_early_stops_the_run_quietly():
    """``sglang-lint tests/fixtures | head -1``: no error per remaining file on stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sglang_lint", "--no-cache", "-j", "1", str(FIXTURES)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader is gone before the first finding is written
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Broken pipe" not in stderr and "error" not in stderr, stderr
