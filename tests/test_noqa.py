"""``# noqa`` works the same in the command and in flake8: on the reported line, on the
first or last line of a multi-line call, by code prefix, and for a whole file."""

from __future__ import annotations

import pytest

from conftest import places, run_flake8, run_lint
from snippets import CAPTURE_IMPORT as HEAD

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


WHOLE_FILE = {
    "# sglang-lint: noqa\n": [],
    "  # Sglang-Lint: NOQA  \n": [],
    "# sglang-lint: noqa: SGL001\n": [],
    "# sglang-lint: noqa: SGL004\n": EXPECTED,
    "x = 1  # sglang-lint: noqa\n": EXPECTED,  # not on a line of its own
    "# flake8: noqa\n": [],
}


@pytest.fixture(scope="module")
def through_both(tmp_path_factory) -> tuple[list[str], list[str]]:
    """The command and flake8, each run once over bad.py and one copy per whole-file comment
    (w0.py, w1.py, ...: the comment as line 2)."""
    folder = tmp_path_factory.mktemp("noqa")
    (folder / "bad.py").write_text(HEAD + BODY)
    names = ["bad.py"]
    for index, comment in enumerate(WHOLE_FILE):
        names.append(f"w{index}.py")
        (folder / names[-1]).write_text(HEAD + comment + BODY)
    ours = run_lint("--no-cache", *names, cwd=folder)
    theirs = run_flake8("--select", "SGL", *names, cwd=folder)
    return places(ours.stdout), places(theirs.stdout)


def test_the_same_noqa_in_the_command_and_in_flake8(through_both):
    ours, theirs = (
        [place for place in output if place.startswith("bad.py:")] for output in through_both
    )
    assert ours == theirs == EXPECTED


@pytest.mark.parametrize("index, comment", list(enumerate(WHOLE_FILE)), ids=list(WHOLE_FILE))
def test_whole_file_noqa(through_both, index, comment):
    ours, theirs = ([place for place in output if place.startswith(f"w{index}.py:")] for output in through_both)
    shifted = [
        f"w{index}.py:{int(e.split(':')[1]) + 1}:{e.split(':', 2)[2]}" for e in WHOLE_FILE[comment]
    ]
    assert ours == theirs == shifted
