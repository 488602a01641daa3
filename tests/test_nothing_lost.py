"""Nothing of the user's is lost: a buffer piped through ``--fix -`` that cannot be fixed comes
back unchanged, a named pipe met in a folder is skipped (said on stderr) instead of waiting
forever for a writer, and a file ``--fix`` cannot write keeps every finding in the count.
Golden outputs beside the fixtures, ``tests/fixtures/nothing_lost/*.out``: the command, its
exit status, its stdout and its stderr."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from conftest import FIXTURES, check_golden, lint_in_process, run_lint

FOLDER = FIXTURES / "nothing_lost"


def transcript(shown: str, result) -> str:
    return f"$ {shown}\nexit {result.returncode}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}"


def test_a_buffer_that_does_not_parse_comes_back_unchanged(update_golden):
    source = (FOLDER / "half_typed.py").read_text(encoding="utf-8")
    result = run_lint("--no-cache", "--fix", "--stdin-filename", "half_typed.py", "-", stdin=source, cwd=FOLDER)
    assert result.stdout == source  # what the editor puts back
    shown = "sglang-lint --fix --stdin-filename half_typed.py - < half_typed.py"
    check_golden(FOLDER / "half_typed.py.fix.out", transcript(shown, result), update_golden)
    # once it parses, the same pipe fixes it
    fixed = run_lint("--no-cache", "--fix", "--stdin-filename", "half_typed.py", "-",
                     stdin=source.replace('0.0}\n', '0.0})\n'), cwd=FOLDER)
    assert "mem_fraction_static=0.8" in fixed.stdout and fixed.returncode == 0


def test_a_named_pipe_in_a_folder_is_skipped_and_said(tmp_path: Path, update_golden):
    tree = tmp_path / "tree"
    shutil.copytree(FOLDER / "tree", tree)
    for name in ("serve.py", "run", "launch.sh", "notes.txt"):  # notes.txt: not a file we would read
        os.mkfifo(tree / name)
    result = run_lint("--no-cache", "tree", cwd=tmp_path)  # (without the skip: no end, no output)
    check_golden(FOLDER / "tree.out", transcript("sglang-lint tree", result), update_golden)
    assert result.returncode == 1  # the findings of serve.sh; a skipped pipe is no error


def test_a_file_fix_cannot_write_keeps_its_findings(tmp_path: Path, monkeypatch, update_golden):
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copyfile(FOLDER / "fixable.py", folder / "fixable.py")
    before = (folder / "fixable.py").read_bytes()

    def refused(*args, **kwargs):  # a folder this user may not write to (root writes anywhere)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    result = lint_in_process("--no-cache", "--fix", "fixable.py", cwd=folder)
    assert (folder / "fixable.py").read_bytes() == before
    check_golden(FOLDER / "fixable.py.unwritable.out", transcript("sglang-lint --fix fixable.py", result),
                 update_golden)
