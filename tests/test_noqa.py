"""``# noqa`` works the same in the command and in flake8: on the reported line, on the
first or last line of a multi-line call, by code prefix, and for a whole file."""

from __future__ import annotations

import pytest

from conftest import run

HEAD = (
    "from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.sana_wm"
    ".streaming_refiner import set_capture_flag_on_blocks\n"
)
BODY = (
    "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"  # 2: reported
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL001\n"  # 3
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa: SGL004\n"  # 4: reported
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # NOQA\n"  # 5
    "set_capture_flag_on_blocks(t, 'pre', enable=True)  # noqa:SGL00\n"  # 6: a prefix
    "set_capture_flag_on_blocks(\n"  # 7
    "    t,\n"
    "    'post',  # noqa: SGL001\n"  # 9: the argument's line
    "    enable=True,\n"
    ")\n"
    "set_capture_flag_on_blocks(  # noqa: SGL001\n"  # 12: the call's first line
    "    t,\n"
    "    'post',\n"
    "    enable=True,\n"
    ")\n"
    "set_capture_flag_on_blocks(\n"  # 17
    "    t,\n"
    "    'post',\n"
    "    enable=True,\n"
    ")  # noqa: SGL001\n"  # 21: the call's last line
    "set_capture_flag_on_blocks(\n"  # 22
    "    t,\n"
    "    'post',\n"  # 24: reported (the noqa below names another code)
    "    enable=True,\n"
    ")  # noqa: E501\n"
)
EXPECTED = ["bad.py:2:31: SGL001", "bad.py:4:31: SGL001", "bad.py:24:5: SGL001"]


def through_both(tmp_path, source: str) -> tuple[list[str], list[str]]:
    (tmp_path / "bad.py").write_text(source)
    ours = run("-m", "sglang_lint", "--no-cache", "bad.py", cwd=tmp_path)
    theirs = run("-m", "flake8", "--isolated", "--select", "SGL", "bad.py", cwd=tmp_path)

    def places(output):
        return [line.split(" ")[0] + " " + line.split(" ")[1] for line in output.splitlines()]
    return places(ours.stdout), places(theirs.stdout)


def test_the_same_noqa_in_the_command_and_in_flake8(tmp_path):
    ours, theirs = through_both(tmp_path, HEAD + BODY)
    assert ours == theirs == EXPECTED


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("# sglang-lint: noqa\n", []),
        ("  # Sglang-Lint: NOQA  \n", []),
        ("# sglang-lint: noqa: SGL001\n", []),
        ("# sglang-lint: noqa: SGL004\n", EXPECTED),
        ("x = 1  # sglang-lint: noqa\n", EXPECTED),  # not on a line of its own
        ("# flake8: noqa\n", []),
    ],
)
def test_whole_file_noqa(tmp_path, comment, expected):
    ours, theirs = through_both(tmp_path, HEAD + comment + BODY)
    shifted = [
        f"bad.py:{int(e.split(':')[1]) + 1}:{e.split(':', 2)[2]}" for e in expected
    ]
    assert ours == theirs == shifted
