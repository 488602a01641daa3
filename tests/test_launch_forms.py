"""Launch commands and engine keywords however real code builds them (tests/fixtures/launch/):
keyword dicts and argv lists built in steps, helpers that put their parameter into a launch,
shell command strings. Each Python fixture's ``# expect: CODE@COL`` annotations are exactly what
the engine, the command and flake8 report, and the call-site screen hides none of them. Shell
scripts, Markdown and YAML (the command only) are checked against TEXT_EXPECTED and a golden
text, with their fixes and ``# noqa``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, check_golden, expected_findings, findings_of, lines_by_file, run_flake8, run_lint
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules

LAUNCH = ROOT / "tests" / "fixtures" / "launch"
PYTHON_FIXTURES = sorted(LAUNCH.glob("*.py"))
UNSCREENED = RuleSet(default_rules(), screen=False)


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.fixture(scope="module")
def command_output() -> dict[str, list[str]]:
    result = run_lint("--no-cache", *map(relative, PYTHON_FIXTURES), cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    return lines_by_file(result.stdout)


@pytest.fixture(scope="module")
def flake8_output() -> dict[str, list[str]]:
    result = run_flake8("--select", "SGL", *map(relative, PYTHON_FIXTURES), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    return lines_by_file(result.stdout)


def test_every_form_has_a_fixture():
    assert {p.stem for p in PYTHON_FIXTURES} >= {"keyword_dicts", "argv_lists", "helpers", "shell_strings",
                                                 "diffusion_serve"}


@pytest.mark.parametrize("path", PYTHON_FIXTURES, ids=lambda p: p.stem)
def test_engine_reports_exactly_the_annotations(path: Path):
    source = path.read_text(encoding="utf-8")
    expected = expected_findings(path)
    assert expected, "a fixture shows at least one bad form"
    diagnostics = lint(source, str(path))
    assert {(d.line, d.col + 1, d.code) for d in diagnostics} == expected
    assert lint(source, str(path), UNSCREENED) == diagnostics


@pytest.mark.parametrize("path", PYTHON_FIXTURES, ids=lambda p: p.stem)
def test_command_and_flake8_report_the_same(path: Path, command_output, flake8_output):
    lines = command_output.get(relative(path), [])
    assert findings_of(lines) == expected_findings(path)
    assert flake8_output.get(relative(path), []) == lines


# --- outside Python: the command only -------------------------------------------------------------
TEXT_FIXTURES = [LAUNCH / "launch_server.sh", LAUNCH / "README.md", LAUNCH / "k8s.yaml", LAUNCH / "bin" / "serve",
                 LAUNCH / "bench_scripts.sh", LAUNCH / "BENCHMARKS.md", LAUNCH / "serve_lines.sh",
                 LAUNCH / "flag_words.sh", LAUNCH / "flag_words.yaml"]
TEXT_EXPECTED = {
    # line 18: # noqa; 22-23: a diffusion server's flags (sglang serve); 25: a benchmark's; 26: sglang generate
    "launch_server.sh": {(10, 5, "SGL009"), (11, 25, "SGL007"), (17, 36, "SGL009"), (25, 56, "SGL009"),
                         (26, 101, "SGL009")},
    # not the console output, the python blocks, the unlabelled blocks that open with no launch (33, 38),
    # nor the words a command substitution makes (48)
    "README.md": {(7, 3, "SGL009"), (11, 76, "SGL009"), (24, 70, "SGL009"), (28, 31, "SGL009")},
    "k8s.yaml": {(13, 15, "SGL009"), (23, 34, "SGL006"), (23, 38, "SGL009")},  # command + args joined; sh -c
    "serve": {(2, 53, "SGL009")},  # no suffix: a shell shebang
    # sglang's scripts: 6 a typo, 7-8 their flags and the server's, 9 prefixes ambiguous once the
    # benchmark's flags join the server's, 11 a module 0.5.21 removed, 12 a stub still there, 13 a
    # server flag the serving benchmark's own parser does not take
    "bench_scripts.sh": {(6, 76, "SGL009"), (9, 60, "SGL009"), (9, 71, "SGL009"), (11, 11, "SGL015"),
                         (13, 71, "SGL009")},
    "BENCHMARKS.md": {(6, 11, "SGL015"), (13, 7, "SGL009"), (20, 88, "SGL009")},
    # `sglang serve` lines whose own flags pick the server: 4 the LLM server's start-up check, 7 an
    # LLM server's flag on a diffusion line; 5, 8 their good twins; 10 left to the model
    "serve_lines.sh": {(4, 82, "SGL012"), (7, 69, "SGL009")},
    # words the launcher cannot convert (32k, 16k, 1_000 and a variable are taken)
    "flag_words.sh": {(6, 62, "SGL008"), (7, 77, "SGL008"), (9, 55, "SGL008"), (9, 103, "SGL008")},
    "flag_words.yaml": {(6, 97, "SGL008")},
}


@pytest.mark.parametrize("path", TEXT_FIXTURES, ids=lambda p: p.name)
def test_launch_commands_outside_python_are_judged_at_their_place(path: Path):
    found = lint(path.read_bytes(), str(path))
    assert {(d.line, d.col + 1, d.code) for d in found} == TEXT_EXPECTED[path.name]
    text = path.read_text(encoding="utf-8").splitlines()
    for d in found:  # the column is the flag's (or value's) own in the file
        at = text[d.line - 1][d.col:]
        assert at.startswith(("--", "flash_attn", "fp8", "fp9", "sglang.")) or at.split()[0] in d.message


def test_the_command_reads_them_in_a_folder_and_prints_the_golden_text(update_golden):
    result = run_lint("--no-cache", relative(LAUNCH), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    lines = lines_by_file(result.stdout)
    for path in TEXT_FIXTURES:
        mine = lines.get(relative(path), [])
        assert findings_of(mine) == TEXT_EXPECTED[path.name]
        check_golden(path.with_name(path.name + ".out"), "".join(line + "\n" for line in mine), update_golden)
    assert set(lines) == {relative(p) for p in PYTHON_FIXTURES + TEXT_FIXTURES}


def test_flake8_reads_python_only(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_bytes((LAUNCH / "launch_server.sh").read_bytes())
    assert run_flake8("--select", "SGL", str(script)).stdout == ""


def test_fixes_rewrite_the_word_in_a_shell_script_and_markdown(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\npython -m sglang.launch_server \\\n  --Mem-Fraction-Static 0.8 \\\n"
                      "  '--attention_backend' triton\n")
    readme = tmp_path / "README.md"
    readme.write_text("Run:\n\n```sh\nsglang serve --model-path m --TP-SIZE 2\n```\n")
    first = run_lint("--no-cache", "--fix", str(script), str(readme))
    assert first.returncode == 1, first.stderr  # the quoted word is reported, not rewritten
    assert script.read_text() == ("#!/bin/bash\npython -m sglang.launch_server \\\n  --mem-fraction-static 0.8 \\\n"
                                  "  '--attention_backend' triton\n")
    assert readme.read_text() == "Run:\n\n```sh\nsglang serve --model-path m --tp-size 2\n```\n"
    assert "serve.sh:4:3: SGL009" in first.stdout
    again = run_lint("--no-cache", "--fix", str(script), str(readme))
    assert "fixed 0 findings" in again.stderr and script.read_text().count("--mem-fraction-static") == 1


def test_noqa_in_the_files_own_comments(tmp_path):
    yaml = tmp_path / "job.yaml"
    yaml.write_text('run: python -m sglang.launch_server --max-model-len 8  # noqa: SGL009\n'
                    'script: python -m sglang.launch_server --max-model-len 8\n')
    assert [(d.line, d.code) for d in lint(yaml.read_bytes(), str(yaml))] == [(2, "SGL009")]


def test_a_file_that_is_not_utf8_is_a_source_error(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_bytes(b"python -m sglang.launch_server --tp \xff\n")
    result = run_lint("--no-cache", str(script))
    assert result.returncode != 0 and "not UTF-8" in result.stdout + result.stderr


def mypkg(tmp_path: Path) -> Path:
    """A package ``mypkg`` of the project in ``tmp_path``, its helpers' modules yet to write."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    return package


def test_the_command_follows_a_launch_helper_of_another_file_of_the_project(tmp_path):
    package = mypkg(tmp_path)
    (package / "launch.py").write_text(
        "import subprocess\nimport sys\n\nfrom sglang.test.test_utils import popen_launch_server\n\n\n"
        "def start_server(model, extra_flags=()):\n"
        "    cmd = [sys.executable, '-m', 'sglang.launch_server', '--model-path', model, *extra_flags]\n"
        "    return subprocess.Popen(cmd)\n\n\n"
        "def start_test_server(model, server_args):\n"
        "    return popen_launch_server(model, 'http://127.0.0.1:30000', 600, other_args=server_args)\n\n\n"
        "def start_twice(model, flags):\n"
        "    return start_test_server(model, flags)\n\n\n"
        "def écrire(model, flags):\n"
        "    return start_test_server(model, flags)\n"
    )
    # (a helper whose name starts with a letter above ASCII, called from another file)
    (package / "more2.py").write_text("from mypkg.launch import écrire\n\n\ndef start_fourfold(model, flags):\n"
                                      "    return écrire(model, flags)\n")
    # (a helper's call written with a space before its bracket is a call too)
    (package / "more.py").write_text(
        "from mypkg.launch import start_test_server\n\n\ndef start_thrice(model, flags):\n"
        "    return start_test_server (model, flags)\n"
    )
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_a.py").write_text(
        "from mypkg.launch import start_server, start_test_server, start_twice\nfrom mypkg import launch\n\n"
        "start_server('m', ['--tp-size', '2', '--max-model-len', '4096'])\n"
        "start_test_server('m', ['--gpu-memory-utilization', '0.9'])\n"
        "launch.start_server('m', extra_flags=['--enforce-eager'])\n"
        "start_twice('m', ['--swap-space', '4'])\n"
        "start_server('m', ['--tp-size', '2', '--attention-backend', 'triton'])\n"
        "from mypkg.more import start_thrice\nstart_thrice('m', ['--swap-space', '4'])\n"
        "from mypkg.more2 import start_fourfold\nstart_fourfold('m', ['--swap-space', '4'])\n"
    )
    result = run_lint("--no-cache", "--isolated", ".", cwd=tmp_path)
    expected = {(4, 38, "SGL009"), (5, 25, "SGL009"), (6, 39, "SGL009"), (7, 19, "SGL009"), (10, 20, "SGL009"),
                (12, 22, "SGL009")}
    assert findings_of(result.stdout.splitlines()) == expected, result.stdout + result.stderr
    # The calling file changed, the helpers' files answered by the cache: the helpers are still
    # followed (the rules read are those the changed file triggers and the launch rules).
    cached = ("--isolated", "--cache-dir", str(tmp_path / "cache"), ".")
    assert findings_of(run_lint(*cached, cwd=tmp_path).stdout.splitlines()) == expected
    (tests / "test_a.py").write_text((tests / "test_a.py").read_text() + "# edited\n")
    again = run_lint("--verbose", *cached, cwd=tmp_path)
    assert findings_of(again.stdout.splitlines()) == expected, again.stdout + again.stderr
    assert "from the cache" in again.stderr
    # One file alone: the helper's file is not read (its own helpers are followed by the engine).
    alone = run_lint("--no-cache", "--isolated", "tests/test_a.py", cwd=tmp_path)
    assert (alone.returncode, alone.stdout) == (0, "")


def test_a_helper_of_another_file_is_judged_by_the_program_it_runs(tmp_path):
    # sglang serve's helper: a diffusion server's flag is taken, a typo is reported as serve reports it;
    # the comparator's helper (a program whose parser the scripts table does not know): nothing judged
    (mypkg(tmp_path) / "run.py").write_text(
        "import subprocess\nimport sys\n\n\n"
        "def serve(model, extra):\n"
        "    return subprocess.Popen(['sglang', 'serve', '--model-path', model, *extra])\n\n\n"
        "def compare(extra):\n"
        "    cmd = [sys.executable, '-m', 'sglang.srt.debug_utils.comparator', '--baseline-path', 'a']\n"
        "    cmd.extend(extra)\n"
        "    return subprocess.run(cmd)\n\n\n"
        "def launch(model, extra):\n"
        "    return subprocess.Popen(['python3', '-m', 'sglang.launch_server', '--model-path', model, *extra])\n"
    )
    (tmp_path / "test_run.py").write_text(
        "from mypkg.run import compare, launch, serve\n\n"
        "serve('m', ['--vae-precision', 'fp16', '--tp-sise', '2'])\n"
        "compare(['--token-aligner', 'concat_steps', '--end-step', '0'])\n"
        "launch('m', ['--vae-precision', 'fp16'])\n"
    )
    result = run_lint("--no-cache", "--isolated", "--sglang-version", "0.5.23", ".", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "./test_run.py:3:40: SGL009 launch flag --tp-sise: sglang 0.5.23 has no such server argument and its diffusion "
        "server no such flag (did you mean '--tp-size'? fixable with `sglang-lint --fix --unsafe-fixes`)",
        "./test_run.py:5:14: SGL009 launch flag --vae-precision: sglang 0.5.23 has no such server argument",
    ], result.stderr
