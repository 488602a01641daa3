"""The held-out set of sampling parameters known by kind, not by literal (heldout.json),
written before the check: its confirmation with each release's own ``SamplingParams``, and
what sglang-lint catches of it.

    python tests/value_kinds/heldout.py confirm    sglang's verdict on each case's dict, both ways
    python tests/value_kinds/heldout.py measure    caught (SGL014 on the bad line) and false alarms
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "api"))
sys.path.insert(0, str(HERE.parent))
CASES = HERE / "heldout.json"
MODULE = "sglang.srt.sampling.sampling_params"


def confirm() -> int:
    from api_harness import call
    from heldout_kit import confirm as confirmed

    def verdict(case: dict, side: str) -> str:
        found = call(case["release"], {"module": MODULE, "sampling": case[f"sampling_{side}"]})
        return "" if found["outcome"] == "passed" else f"{found.get('exception')}: {found.get('message')}"

    return confirmed(CASES, verdict)


def measure() -> int:
    from heldout_kit import case_texts, measure as measured

    measured(json.loads(CASES.read_text())["cases"], case_texts,
             lambda d: d.code == "SGL014")
    return 0


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": measure}[sys.argv[1]]())
