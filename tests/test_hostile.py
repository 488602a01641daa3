"""Hostile input, through the engine, the command and flake8: each odd file gets a clear
message (or its findings), the other files are still linted, nothing is written, and the
command exits 2 when a file could not be read or analysed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from snippets import DFLASH_NONE
from sglang_lint import SourceError, lint
from sglang_lint.analysis.source import MAX_PARSE_BYTES
from sglang_lint.core.model import FileResult
from sglang_lint.engine.ruletable import default_ruleset
from sglang_lint.frontends.runner import Job, lint_jobs

CALL = DFLASH_NONE.encode()  # SGL004 at (0-based) column 35 of its line
GOOD_WITH_FINDING = b"import os\n" + CALL  # the control file: one finding on line 2

# name -> (bytes, what the engine gives: the line of the SGL004 finding, or the start of
# the error message)
CASES = {
    "not_utf8": (b"# caf\xe9\n" + CALL, "cannot decode"),
    "bom": (b"\xef\xbb\xbf" + CALL, 1),
    "coding_line": (b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + CALL, 3),
    "crlf": (b"import os\r\n\r\n" + CALL.replace(b"\n", b"\r\n"), 3),
    "lone_cr": (b"import os\r\r" + CALL.replace(b"\n", b"\r"), 3),
    "tabs_and_form_feed": (b"if True:\n\t\x0c\n\tpass\n\x0c\n" + CALL, 5),
    "nul_byte": (b"x = 1\x00\n" + CALL, "cannot parse"),
    "syntax_error": (b"def broken(:\n" + CALL, "cannot parse"),
    "python2": (b"print 'hello'\n" + CALL, "cannot parse"),
    "match": (b"match x:\n    case [1, *rest]:\n        pass\n" + CALL, 4),
    "type_alias": (b"type Vector = list[float]\n" + CALL, 2),
    "pep695": (b"def first[T](xs: list[T]) -> T:\n    return xs[0]\n" + CALL, 3),
    "fstring_312": (b'x = f"{f"{f"{1}"}"}"\n' + CALL, 2),
    "deep_nesting": (b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n" + CALL, "too deeply nested"),
    "deep_parens": (b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n" + CALL, 2),
    "empty": (b"", None),
    "huge": (CALL + b"x = 1\n" * (MAX_PARSE_BYTES // 6 + 10), "not analysed"),
    "huge_without_calls": (b"x = 1\n" * 1_700_000, None),  # 10 MB no rule can fire on: skipped unread
}


# deep_nesting takes the engine seconds: it goes through the command only (test_command,
# which checks every case as this test does).
@pytest.mark.parametrize("name", [name for name in CASES if name != "deep_nesting"])
def test_engine(name):
    data, expected = CASES[name]
    if isinstance(expected, str):
        with pytest.raises(SourceError) as caught:
            lint(data, f"{name}.py")
        assert caught.value.message.startswith(expected)
    elif expected is None:
        assert lint(data, f"{name}.py") == []
    else:
        assert [(d.line, d.col, d.code) for d in lint(data, f"{name}.py")] == [(expected, 35, "SGL004")]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    for name, (data, _) in CASES.items():
        (folder / f"{name}.py").write_bytes(data)
    (folder / "zz_control.py").write_bytes(GOOD_WITH_FINDING)
    (folder / "dir.py").mkdir()  # a folder named like a module
    (folder / "dir.py" / "inside.py").write_bytes(GOOD_WITH_FINDING)
    os.symlink(folder / "loop_b.py", folder / "loop_a.py")  # a symlink loop
    os.symlink(folder / "loop_a.py", folder / "loop_b.py")
    server = socket.socket(socket.AF_UNIX)  # a file no one can read, root included
    server.bind(str(folder / "socket.py"))
    return folder


def snapshot(folder: Path) -> dict:
    return {str(p): (p.lstat().st_mtime_ns, p.lstat().st_size) for p in folder.rglob("*")}


def test_command(tree: Path, tmp_path: Path):
    before = snapshot(tree)
    result = subprocess.run(
        [sys.executable, "-m", "sglang_lint", "--cache-dir", str(tmp_path / "cache"), str(tree)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 2  # some files could not be read or analysed
    assert "Traceback" not in result.stderr
    errors = {line.split(": error: ")[0].split(":")[0]: line.split(": error: ")[1]
              for line in result.stderr.splitlines() if ": error: " in line}
    named = {Path(path).name: message for path, message in errors.items()}
    for name, (_, expected) in CASES.items():
        if isinstance(expected, str):
            assert named[f"{name}.py"].startswith(expected), name
    assert named["loop_a.py"].startswith("cannot read") and named["loop_b.py"].startswith("cannot read")
    assert "socket.py" not in named  # not a regular file: skipped, and said
    assert f"{tree / 'socket.py'}: warning: skipped: not a regular file (a socket)" in result.stderr.splitlines()
    found: dict[str, list] = {}
    for line in result.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        found.setdefault(Path(path).name, []).append((int(row), int(col), rest.split()[0]))
    for name, (_, expected) in CASES.items():
        if isinstance(expected, int):
            assert found[f"{name}.py"] == [(expected, 36, "SGL004")], name
        elif expected is None:
            assert f"{name}.py" not in found and f"{name}.py" not in named, name
    assert found["zz_control.py"] == found["inside.py"] == [(2, 36, "SGL004")]  # the others are still linted
    assert snapshot(tree) == before  # nothing written


def test_flake8_goes_on(tree: Path):
    # (not the huge ones: pycodestyle alone takes minutes on 1.7 million lines)
    files = [str(tree / f"{name}.py") for name in CASES if not name.startswith("huge")]
    files.append(str(tree / "zz_control.py"))
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "SGL,E902,E999", *files],
        capture_output=True, text=True, timeout=600,
    )
    assert "Traceback" not in result.stderr
    codes = {}
    for line in result.stdout.splitlines():
        path, row, _, rest = line.split(":", 3)
        codes.setdefault(Path(path).name, []).append((int(row), rest.split()[0]))
    assert (2, "SGL004") in codes["zz_control.py"]
    # What this Python cannot parse is flake8's E999 (and the plugin says nothing there):
    # 1000 parentheses always; 3.12 syntax before 3.12.
    unparsable = {"deep_parens", "syntax_error", "python2", "nul_byte", "deep_nesting"}
    if sys.version_info < (3, 12):
        unparsable |= {"type_alias", "pep695", "fstring_312"}
    for name, (_, expected) in CASES.items():
        if name.startswith("huge"):
            continue
        got = codes.get(f"{name}.py", [])
        if name in unparsable:
            assert not any(code.startswith("SGL") for _, code in got), name
        elif isinstance(expected, int):
            assert (expected, "SGL004") in got, name


def test_a_file_deleted_during_the_run(tmp_path: Path):
    (tmp_path / "a.py").write_bytes(GOOD_WITH_FINDING)
    (tmp_path / "b.py").write_bytes(GOOD_WITH_FINDING)
    jobs = [Job(str(tmp_path / "a.py"), "a.py"), Job(str(tmp_path / "b.py"), "b.py")]
    (tmp_path / "a.py").unlink()  # found by the walk, gone before it is read
    results = lint_jobs(jobs, default_ruleset(), None, 1)
    assert results[0].status == FileResult.UNREADABLE and "No such file" in results[0].message
    assert results[1].status == FileResult.OK and [d.line for d in results[1].diagnostics] == [2]
