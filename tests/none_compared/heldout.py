"""The held-out set of ``None`` ordered against a number (heldout.json), written before the
derivation read such comparisons: its confirmation with each release's own code, and what
sglang-lint catches of it.

    python tests/none_compared/heldout.py confirm    sglang's verdict on each case, both ways
    python tests/none_compared/heldout.py measure    caught (SGL012/SGL014 on the bad line) and false alarms
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "startup"), str(HERE.parent / "api"), str(HERE.parent)]
CASES = HERE / "heldout.json"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
SAMPLING = "sglang.srt.sampling.sampling_params"


def verdict(case: dict, side: str) -> str:
    """sglang's words on one side: a TypeError of None ordered against a number, else ""."""
    if case["kind"] == "launch":
        import harness

        found = harness.run(case["release"], ["--model-path", MODEL, *case[f"argv_{side}"]])
    else:
        from api_harness import call

        found = call(case["release"], {"module": SAMPLING, "sampling": case[f"sampling_{side}"]})
    said = f"{found.get('exception')}: {found.get('message')}"
    return said if found.get("exception") == "TypeError" and "'NoneType'" in said else ""


def wanted(d) -> bool:
    """A finding the set asks for."""
    return d.code in ("SGL012", "SGL014") and "NoneType" in d.message


if __name__ == "__main__":
    from heldout_kit import set_command

    sys.exit(set_command(sys.argv, CASES, verdict, wanted))
