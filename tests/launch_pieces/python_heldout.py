"""The held-out set of sglang launches built in pieces in Python (python_heldout.json): a
literal argv list that starts with sglang's launcher wherever it stands, a builder class
growing ``self.cmd``, flags kept in a string chosen in branches and split into the argv, and a
triple-quoted f-string command run by a helper or the shell; written before the reading was
built. Its confirmation with each release's real parser, and what sglang-lint finds of it.

    python tests/launch_pieces/python_heldout.py confirm    argparse's verdict on each case, both ways
    python tests/launch_pieces/python_heldout.py measure    caught (the code on the bad word's line) and false alarms

A case: the release, the shape and the project file it is modelled on, the file with the bad
launch and its good twin, the line and code of the finding expected (``expect`` "caught"), or
none on either side (``expect`` "silent": ``why`` says why), and the words after the launcher
both ways, with argparse's message on the bad ones (``confirmed``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "startup"))
sys.path.insert(0, str(HERE.parent))
CASES = HERE / "python_heldout.json"


def confirm() -> int:
    """argparse's verdict on each caught case both ways (a silent case's list is not sglang's:
    nothing to ask it), written into the set."""
    from parser_types import parser_verdicts

    data = json.loads(CASES.read_text())
    wrong = 0
    for case in data["cases"]:
        if case["expect"] == "silent":
            continue
        bad, good = parser_verdicts(case["release"], [case["argv_bad"], case["argv_good"]])
        ok = bool(bad) and not good
        wrong += not ok
        case["confirmed"] = bad
        print(f"{'ok ' if ok else 'BAD'} {case['release']:<13} {case['id']:<26} {(bad or good)[:110]}")
    CASES.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if wrong else 0


def measure() -> tuple[list[str], list[str], list[str]]:
    """(caught, silent as expected, good twins flagged), each a list of case ids."""
    from heldout_kit import case_texts, measure as measured

    data = json.loads(CASES.read_text())
    cases = data["cases"]
    loud = [case for case in cases if case["expect"] == "caught"]
    caught, alarms = [], []
    for case in loud:  # (one at a time: the finding asked for is the case's own code on its line)
        found = measured([case], case_texts,
                         lambda d, code=case["code"]: d.code == code)
        caught += found[0]
        alarms += found[1]
    quiet = [dict(case, good="", line=0) for case in cases if case["expect"] == "silent"]
    _, noisy = measured([dict(case, good=case["bad"]) for case in quiet],
                        case_texts, lambda d: True)
    silent = [case["id"] for case in quiet if case["id"] not in noisy]
    print(f"python launches built in pieces: caught {len(caught)}/{len(loud)}, silent as expected "
          f"{len(silent)}/{len(quiet)}, good twins flagged {len(alarms)}")
    return caught, silent, alarms


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": lambda: measure() and 0}[sys.argv[1]]())
