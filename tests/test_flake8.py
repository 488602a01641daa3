"""The plugin inside a real flake8: noqa, parallel jobs, stdin, syntax errors."""

from __future__ import annotations

from conftest import fixture_files, run

BAD = (
    "from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.sana_wm"
    ".streaming_refiner import set_capture_flag_on_blocks\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL001\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL004\n"
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa\n"
    "set_capture_flag_on_blocks(\n"
    "    t,\n"
    "    'post',  # noqa: SGL001\n"
    "    enable=True,\n"
    ")\n"
)


def flake8(*args: str, cwd=None, stdin=None):
    return run("-m", "flake8", "--isolated", *args, cwd=cwd, stdin=stdin)


def codes_and_places(output: str) -> list[tuple[str, str]]:
    return [(line.split(": ", 1)[0], line.split()[1]) for line in output.splitlines()]


def test_plugin_is_registered():
    result = flake8("--version")
    assert "sglang-lint" in result.stdout


def test_noqa(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    result = flake8("--select", "SGL", "bad.py", cwd=tmp_path)
    # Line 2 unsilenced, line 4 silenced only for another code; the rest are silenced
    # (in a multi-line call, the noqa goes on the reported line: the argument's).
    assert codes_and_places(result.stdout) == [("bad.py:2:31", "SGL001"), ("bad.py:4:31", "SGL001")]


def test_parallel_jobs_give_the_same_findings():
    serial = flake8("--select", "SGL", "-j", "1", *map(str, fixture_files()))
    parallel = flake8("--select", "SGL", "-j", "2", *map(str, fixture_files()))
    assert serial.returncode == parallel.returncode == 1
    assert sorted(serial.stdout.splitlines()) == sorted(parallel.stdout.splitlines())
    assert len(serial.stdout.splitlines()) > 20


def test_stdin_with_display_name(tmp_path):
    result = flake8("--select", "SGL", "--stdin-display-name", "src/editor.py", "-", stdin=BAD)
    assert codes_and_places(result.stdout) == [
        ("src/editor.py:2:31", "SGL001"),
        ("src/editor.py:4:31", "SGL001"),
    ]


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


def test_stdin_gives_the_same_findings_as_the_command(tmp_path):
    # What an editor does on save: the buffer on stdin, the file's path as its name.
    theirs = flake8("--select", "SGL", "--stdin-display-name", "src/editor.py", "-", stdin=BAD)
    ours = run("-m", "sglang_lint", "--no-cache", "--stdin-filename", "src/editor.py", "-", stdin=BAD)
    assert theirs.stdout == ours.stdout and ours.stdout.count("SGL001") == 2
