"""The held-out set of launch flags set as a test class's attribute (heldout.json), written
before the check: its confirmation with each release's real parser or start-up, and what
sglang-lint catches of it.

    python tests/launch_classes/heldout.py confirm    sglang's verdict on each case, both ways
    python tests/launch_classes/heldout.py measure    caught (the case's code on its line) and false alarms
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "startup"))
sys.path.insert(0, str(HERE.parent))
CASES = HERE / "heldout.json"


def _verdict(case: dict, side: str) -> str:
    """argparse's message, or the start-up error ("" where sglang takes the launch)."""
    if case["how"] == "parser":
        from parser_types import parser_verdicts

        return parser_verdicts(case["release"], [case[f"argv_{side}"]])[0]
    import harness

    found = harness.run(case["release"], case[f"argv_{side}"])
    return "" if found["outcome"] == "passed" else f"{found.get('exception')}: {found.get('message')}"


def confirm() -> int:
    from heldout_kit import confirm as confirmed

    return confirmed(CASES, _verdict)


def measure() -> int:
    from heldout_kit import case_texts, measure as measured

    measured(json.loads(CASES.read_text())["cases"], case_texts,
             lambda d: d.code[:4] == "SGL0")  # (the server-argument rules; the kit checks the line)
    return 0


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": measure}[sys.argv[1]]())
