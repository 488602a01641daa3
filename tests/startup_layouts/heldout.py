"""The held-out set of start-up checks a later layout of sglang still has but the derivation
lost (heldout.json): its confirmation with each release's own start-up, and what sglang-lint
catches of it.

    python tests/startup_layouts/heldout.py confirm    sglang's verdict on each launch, both ways
    python tests/startup_layouts/heldout.py measure    caught (SGL012 on the bad line) and false alarms
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "startup"), str(HERE.parent)]
CASES = HERE / "heldout.json"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def verdict(case: dict, side: str) -> str:
    """sglang's words on one side: the raise of its start-up, else ""."""
    import harness

    found = harness.run(case["release"], ["--model-path", MODEL, *case[f"argv_{side}"]])
    if found["outcome"] != "raised":
        return ""
    return f"{found['exception']}: {found.get('message') or found.get('site')}"


def wanted(d) -> bool:
    """A finding the set asks for."""
    return d.code == "SGL012"


if __name__ == "__main__":
    from heldout_kit import set_command

    sys.exit(set_command(sys.argv, CASES, verdict, wanted))
