"""Verdicts kept across runs by a launch's inputs (core/verdict_log.py): a launch judged by an
earlier run is judged again without its checks parsed or evaluated, the same findings; a
launch that changed is evaluated again; the log survives processes writing at once, a record
cut short and its own growth."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang_lint.checks.fails_when import language
from sglang_lint.checks.server_args import kept_verdicts, startup, startup_table
from sglang_lint.core import verdict_log
from sglang_lint.core.places import default_rules_dir
from sglang_lint.frontends.cli import main

TABLE = default_rules_dir() / "derived" / "startup.toml"
RELEASES = ("0.5.23",)
PASSING = {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "attention_backend": "triton"}
FAILING = {"model_path": "Qwen/Qwen3-8B", "enable_dp_attention": True, "tp_size": 4, "dp_size": 3}


def _launch(**settings) -> startup.Launch:
    written = {name: startup.Setting(value, name, f"{name}={value!r}") for name, value in settings.items()}
    return startup.Launch(written, True)


def _new_process(folder) -> None:
    """What a new run starts from: the log read again from its file, nothing parsed or decided."""
    verdict_log.keep_in(None)
    verdict_log.keep_in(folder)
    startup._VERDICTS.clear()
    startup_table.load_startup.cache_clear()  # (its checks keep what was read of them)
    startup_table.parsed_condition.cache_clear()
    startup_table._expression.cache_clear()


@pytest.fixture
def evaluations(monkeypatch):
    counts = {"nodes": 0}
    evaluate_node = language._eval

    def counted(node, env):
        counts["nodes"] += 1
        return evaluate_node(node, env)

    monkeypatch.setattr(language, "_eval", counted)
    return counts


def _judged(settings: dict) -> tuple[list, bool]:
    table = startup.load_startup(TABLE)
    launch = _launch(**settings)
    found = [(node, message) for node, message in startup.findings(table, launch, RELEASES, RELEASES[0])]
    return found, startup.may_fail(table, launch, b"", RELEASES)


def test_a_launch_judged_by_an_earlier_run_is_neither_parsed_nor_evaluated_again(tmp_path, evaluations):
    _new_process(tmp_path)
    first = _judged(PASSING)
    assert evaluations["nodes"] > 0
    verdict_log.flush()
    assert Path(verdict_log.log().path).stat().st_size % verdict_log.RECORD == 0

    _new_process(tmp_path)
    evaluations["nodes"] = 0
    assert _judged(PASSING) == first == ([], False)
    assert evaluations["nodes"] == 0
    assert startup_table.parsed_condition.cache_info().currsize == 0


def test_a_failing_launch_gets_the_same_finding_from_its_kept_verdicts(tmp_path, evaluations):
    _new_process(None)
    expected = _judged(FAILING)
    assert [message.split(": sglang")[0] for _, message in expected[0]] == [
        "enable_dp_attention=True with tp_size=4 and dp_size=3 (attn_dp_size=1, dwdp_size=1 by default)"]
    assert expected[1] is True

    _new_process(tmp_path)
    _judged(FAILING)
    verdict_log.flush()
    _new_process(tmp_path)
    evaluations["nodes"] = 0
    assert _judged(FAILING) == expected
    # only the failing check is read again, for its message and the setting to change
    assert 0 < startup_table.parsed_condition.cache_info().currsize <= 3


def test_a_launch_that_changed_is_evaluated_again(tmp_path, evaluations):
    _new_process(tmp_path)
    _judged(PASSING)
    verdict_log.flush()
    _new_process(tmp_path)
    evaluations["nodes"] = 0
    changed = {**FAILING, "dp_size": 2}  # 4 is divisible by 2: no finding, decided anew
    assert _judged(changed) == ([], False)
    assert evaluations["nodes"] > 0
    assert _judged(FAILING)[1] is True


def test_a_value_whose_text_may_not_tell_it_apart_keys_no_verdict(tmp_path):
    class Opaque:
        def __repr__(self) -> str:
            return "Opaque()"

    _new_process(tmp_path)
    table = startup.load_startup(TABLE)
    check = next(c for c in table.checks if "tp_size" in c.input_words)
    assert kept_verdicts.verdict_key(check, _launch(tp_size=2), "fails", ()) is not None
    assert kept_verdicts.verdict_key(check, _launch(tp_size=Opaque()), "fails", ()) is None
    # 2, 2.0 and True are three inputs
    keys = {kept_verdicts.verdict_key(check, _launch(tp_size=value), "fails", ())
            for value in (2, 2.0, True, "2")}
    assert len(keys) == 4


def test_two_processes_appending_at_once_keep_both_and_a_cut_record_is_left_out(tmp_path):
    path = str(tmp_path / "verdicts-0.bin")
    one, two = verdict_log.VerdictLog(path), verdict_log.VerdictLog(path)
    one.put(b"a" * 16, True)
    two.put(b"b" * 16, False)
    one.flush()
    two.flush()
    with open(path, "ab") as stream:
        stream.write(b"c" * 9)  # a process killed while writing
    read = verdict_log.VerdictLog(path)
    assert (read.get(b"a" * 16), read.get(b"b" * 16), read.get(b"c" * 16)) == (True, False, None)


def test_a_log_grown_too_big_is_started_again(tmp_path, monkeypatch):
    monkeypatch.setattr(verdict_log, "MOST_BYTES", 3 * verdict_log.RECORD)
    path = tmp_path / "verdicts-0.bin"
    log = verdict_log.VerdictLog(str(path))
    for index in range(4):
        log.put(bytes([index]) * 16, True)
    log.flush()
    again = verdict_log.VerdictLog(str(path))
    assert again.get(b"\x00" * 16) is None
    assert not path.exists()


def test_no_folder_keeps_nothing():
    verdict_log.keep_in(None)
    assert verdict_log.log() is None
    verdict_log.flush()


LAUNCH_FILE = ("import sglang as sgl\n\n"
               "engine = sgl.Engine(model_path='m', enable_dp_attention=True, tp_size=4, dp_size=3)\n")


def test_the_command_keeps_verdicts_beside_its_results_and_none_with_no_cache(tmp_path, capsys):
    source = tmp_path / "launch.py"
    source.write_text(LAUNCH_FILE)
    kept, not_kept = tmp_path / "kept", tmp_path / "not-kept"
    assert main(["--cache-dir", str(kept), "--sglang-version", "0.5.23", str(source)]) == 1
    first = capsys.readouterr().out
    assert "SGL012 enable_dp_attention=True with tp_size=4 and dp_size=3" in first
    (log,) = kept.glob("verdicts-*.bin")
    assert log.stat().st_size > 0
    source.write_text(LAUNCH_FILE + "# edited\n")  # the file changed, its launch did not
    startup._VERDICTS.clear()
    assert main(["--cache-dir", str(kept), "--sglang-version", "0.5.23", str(source)]) == 1
    assert capsys.readouterr().out == first
    assert main(["--no-cache", "--cache-dir", str(not_kept), "--sglang-version", "0.5.23", str(source)]) == 1
    assert capsys.readouterr().out == first
    assert not list(not_kept.glob("verdicts-*"))


def test_another_build_of_the_linter_keeps_its_own_log_and_the_oldest_go(tmp_path, monkeypatch):
    """The log is named by the package's source files: an upgraded or edited sglang-lint,
    which may evaluate otherwise, never reads another's verdicts; the two newest logs stay."""
    import os

    for age, name in enumerate(("verdicts-old1.bin", "verdicts-old2.bin", "verdicts-old3.bin")):
        (tmp_path / name).write_bytes(b"")
        os.utime(tmp_path / name, ns=(10**18 - age * 10**9,) * 2)
    (tmp_path / "notes.txt").write_text("kept")
    names = set()
    for stamp in ("module.py 10 1", "module.py 11 2"):
        monkeypatch.setattr(verdict_log, "package_stamp", lambda stamp=stamp: stamp)
        verdict_log.keep_in(None)
        verdict_log.keep_in(tmp_path)
        log = verdict_log.log()
        names.add(Path(log.path).name)
        log.put(b"k" * 16, True)
        verdict_log.flush()
    assert len(names) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, "notes.txt"])
