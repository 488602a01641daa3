"""The held-out set of launch-flag words the launcher cannot convert (heldout.json), written
before the check: its confirmation with each release's real parser, and what sglang-lint
catches of it.

    python tests/flag_types/heldout.py confirm    argparse's verdict on each case, both ways
    python tests/flag_types/heldout.py measure    caught (SGL008 on the bad flag's line) and false alarms

A case: the release, how the launch is written (shell, Markdown, YAML, a Python argv list or
shell string, sglang's test helper), the file with the bad launch and its good twin, the line
of the bad word, and the words after ``python -m sglang.launch_server`` both ways, with
argparse's message on the bad ones (``confirmed``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "startup"))
sys.path.insert(0, str(HERE.parent))
CASES = HERE / "heldout.json"


def confirm() -> int:
    from heldout_kit import confirm as confirmed
    from parser_types import parser_verdicts

    return confirmed(CASES, lambda case, side: parser_verdicts(case["release"], [case[f"argv_{side}"]])[0])


def measure() -> int:
    from heldout_kit import case_texts, measure as measured

    measured(json.loads(CASES.read_text())["cases"], case_texts,
             lambda d: d.code == "SGL008")
    return 0


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": measure}[sys.argv[1]]())
