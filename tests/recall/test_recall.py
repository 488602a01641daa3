"""The recall benchmark (tests/recall/README.md): every case file is well formed, and no good call
in them is flagged. The recall itself is measured by recall.py, not asserted here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import recall  # noqa: E402

CASE_FILES = recall.case_files()


def test_the_benchmark_has_its_cases():
    assert len(CASE_FILES) >= 45
    numbers = [path.name[:3] for path in CASE_FILES]
    assert len(set(numbers)) == len(numbers), "two case files share a number"


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda path: path.stem)
def test_case_is_well_formed(path):
    case = recall.parse_case(path)  # MalformedCase says what is wrong
    assert case.spans["bad"][1] < case.spans["good"][0] or case.spans["good"][1] < case.spans["bad"][0]
    assert case.module.startswith("sglang.") and case.line > 0


def test_no_good_call_is_flagged():
    _, total, false_alarms, per_case = recall.measure()
    alarms = [f"{result.case.name}: {', '.join(result.good_codes)}" for result in per_case if result.false_alarm]
    assert (false_alarms, alarms) == (0, [])
    assert total == len(CASE_FILES)


def test_a_malformed_case_stops_the_run(tmp_path, capsys):
    source = (recall.CASES / CASE_FILES[0].name).read_text(encoding="utf-8")
    (tmp_path / CASE_FILES[0].name).write_text(source.replace("# recall: good", "# the good call"), encoding="utf-8")
    assert recall.main([str(tmp_path)]) == 2
    assert "exactly one '# recall: good' marker" in capsys.readouterr().err


def test_a_flagged_call_counts(tmp_path):
    """The harness itself: a call the catalog has a rule for is counted, on any line of its statement."""
    (tmp_path / "001_known_rule.py").write_text(
        "# raise: sglang.srt.server_args:ServerArgs.__post_init__ line 1 (harness check)\n"
        "# why: an attention backend sglang does not know.\n"
        "from sglang.srt.server_args import ServerArgs\n"
        "\n"
        "bad = ServerArgs(  # recall: bad\n"
        "    model_path='Qwen/Qwen3-8B',\n"
        "    attention_backend='no-such-backend',\n"
        ")\n"
        "ok = ServerArgs(model_path='Qwen/Qwen3-8B', attention_backend='triton')  # recall: good\n",
        encoding="utf-8",
    )
    flagged, total, false_alarms, per_case = recall.measure(tmp_path)
    assert (flagged, total, false_alarms) == (1, 1, 0)
    assert per_case[0].bad_codes
