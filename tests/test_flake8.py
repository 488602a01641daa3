"""The plugin inside a real flake8: noqa, parallel jobs, stdin, syntax errors."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, env_with_hooks, fixture_files, run_flake8 as flake8, run_lint
from snippets import CAPTURE_IMPORT, CAPTURE_PRE

BAD = (
    CAPTURE_IMPORT + CAPTURE_PRE +
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL001\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL004\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa\n"
    "set_capture_flag_on_blocks(\n"
    "    t,\n"
    "    'post',  # noqa: SGL001\n"
    "    enable=True,\n"
    ")\n"
)


def codes_and_places(output: str) -> list[tuple[str, str]]:
    return [(line.split(": ", 1)[0], line.split()[1]) for line in output.splitlines()]


def test_plugin_is_registered():
    result = flake8("--version")
    assert "sglang-lint" in result.stdout


def test_parallel_jobs_give_the_same_findings(flake8_on_fixtures):
    serial = flake8("--select", "SGL", "-j", "1", *(str(p.relative_to(ROOT)) for p in fixture_files()), cwd=ROOT)
    assert serial.returncode == flake8_on_fixtures.returncode == 1
    assert sorted(serial.stdout.splitlines()) == sorted(flake8_on_fixtures.stdout.splitlines())
    assert len(serial.stdout.splitlines()) > 20


def test_syntax_error_is_flake8s_e999_and_the_plugin_stays_silent(tmp_path):
    (tmp_path / "broken.py").write_text("model.set_dflash_layers_to_capture(None\n")
    result = flake8("--select", "SGL,E999", "broken.py", cwd=tmp_path)
    assert [code for _, code in codes_and_places(result.stdout)] == ["E999"]
    assert "Traceback" not in result.stderr


def test_default_checks_still_run_beside_the_plugin(tmp_path):
    (tmp_path / "bad.py").write_text(
        "import os\n" + BAD.splitlines(keepends=True)[0] + "set_capture_flag_on_blocks(None, 'pre', enable=True)\n"
    )
    result = flake8("--select", "F,SGL", "bad.py", cwd=tmp_path)
    assert [code for _, code in codes_and_places(result.stdout)] == ["F401", "SGL001"]


def test_stdin_with_display_name_gives_the_same_findings_as_the_command():
    # What an editor does on save: the buffer on stdin, the file's path as its name.
    # Line 2 unsilenced, line 4 silenced only for another code; the rest are silenced
    # (in a multi-line call, the noqa goes on the reported line: the argument's; test_noqa).
    theirs = flake8("--select", "SGL", "--stdin-display-name", "src/editor.py", "-", stdin=BAD)
    assert codes_and_places(theirs.stdout) == [
        ("src/editor.py:2:31", "SGL001"),
        ("src/editor.py:4:31", "SGL001"),
    ]
    ours = run_lint("--no-cache", "--stdin-filename", "src/editor.py", "-", stdin=BAD)
    assert theirs.stdout == ours.stdout


def test_the_plugin_runs_only_the_rules_flake8_will_report(tmp_path):
    # A sitecustomize records every file the engine analyses inside flake8 (and its workers).
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    log = tmp_path / "analysed.log"
    (hooks / "sitecustomize.py").write_text(
        "import sglang_lint.engine.lint as engine\n"
        "real = engine.lint\n"
        "def lint(source, path=None, ruleset=None, noqa=True, tree=None):\n"
        f"    with open({str(log)!r}, 'a') as out:\n"
        "        codes = 'all' if ruleset is None else ','.join(r.code for r in ruleset.rules)\n"
        "        out.write(f'{path} {codes}\\n')\n"
        "    return real(source, path, ruleset, noqa, tree)\n"
        "engine.lint = lint  # the plugin imports it when a file may call a catalog name\n"
    )
    (tmp_path / "bad.py").write_text(BAD)
    env = env_with_hooks(hooks)

    def flake8_with(*select):
        log.unlink(missing_ok=True)
        result = subprocess.run(
            [sys.executable, "-m", "flake8", "--isolated", "--sglang-no-cache", *select, "bad.py"],
            cwd=tmp_path, capture_output=True, text=True, env=env,
        )
        ours = "".join(line + "\n" for line in result.stdout.splitlines() if " SGL" in line)
        return ours, (log.read_text().split() if log.exists() else [])

    out, analysed = flake8_with("--select", "F")
    assert out == "" and analysed == []  # no SGL code selected: the plugin returns at once
    out, analysed = flake8_with("--select", "SGL004,F")
    # only that rule's prefilter ran, and it passes nothing here: the engine never starts
    assert analysed == [] and out == ""
    out, analysed = flake8_with("--select", "SGL")
    # only the rules whose triggers the file holds are read (catalog/index.py codes_for): here SGL001's
    assert analysed == ["bad.py", "SGL001"] and out.count(" SGL001 ") == 2
    out, analysed = flake8_with("--extend-ignore", "SGL001")
    # without SGL001, no rule's prefilter passes this file (its calls are all SGL001's)
    assert analysed == [] and " SGL001 " not in out


def test_the_server_argument_table_is_narrowed_once_however_many_rule_sets_ask(monkeypatch):
    """The plugin makes a rule set per set of codes a file triggers; the server-argument rules
    of each share one table, narrowed to the file's releases once per process."""
    from sglang_lint.checks.server_args.params import ServerArgsCheck
    from sglang_lint.frontends.flake8_plugin import SglangLintPlugin

    monkeypatch.setattr(SglangLintPlugin, "rulesets", {})
    codes = sorted(SglangLintPlugin.loaded_index().launch_codes)
    releases = ("0.5.23",)

    def tables(some: list) -> set:
        return {id(check.params.table) for rule in SglangLintPlugin.ruleset_for(releases, frozenset(some)).rules
                for check in rule.checks if isinstance(check.params, ServerArgsCheck)}

    every = tables(codes)
    assert 1 <= len(every) < len(codes) / 2
    assert tables(codes[:2]) | tables(codes[1:]) <= every
