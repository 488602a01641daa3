"""The held-out set of start-up checks that need the platform or the GPU (heldout.json): its
confirmation with each release's own start-up on a faked host of the case's GPU, and what
sglang-lint catches of it when the project declares that GPU.

    python tests/platform_checks/heldout.py confirm    sglang's verdict on each launch, both ways
    python tests/platform_checks/heldout.py measure    caught (SGL012 on the bad line on the declared
                                                       GPU), false alarms (the good twin on its GPU,
                                                       or the bad launch with nothing declared)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "startup"), str(HERE.parent)]
CASES = HERE / "heldout.json"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def verdict(case: dict, side: str) -> str:
    """sglang's words on one side, on a host of that side's GPU: the raise of its start-up, else ""."""
    import harness

    found = harness.run(case["release"], ["--model-path", MODEL, *case[f"argv_{side}"]], gpu=case[f"gpu_{side}"])
    if found["outcome"] != "raised":
        return ""
    return f"{found['exception']}: {found.get('message') or found.get('site')}"


def declared(case: dict, side: str):
    """The machine the case's project declares for one side."""
    from sglang_lint.catalog.platforms import declared_machine

    return declared_machine(None, case[f"declare_{side}"]["gpu"])


def wanted(d) -> bool:
    """A finding the set asks for."""
    return d.code == "SGL012"


def measure() -> tuple[list, list]:
    from heldout_kit import case_texts, measure as measured

    return measured(json.loads(CASES.read_text())["cases"], case_texts, wanted, machine=declared)


if __name__ == "__main__":
    from heldout_kit import confirm

    if sys.argv[1] == "confirm":
        sys.exit(confirm(CASES, verdict))
    measure()
