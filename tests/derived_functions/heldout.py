"""The held-out set of calls into sglang functions that fail through a derived fails-when or
pass-through rule (heldout.json), written before the deriver read these shapes: an earlier
raise only a call's unknowns reach, before a later check the call certainly fails; a class
that hands its own argument on to another constructor past an ``if`` of its own; a wrapper
whose default (``None``) fails the check of the function it hands the argument on to.

    python tests/derived_functions/heldout.py confirm        each file run by its release's code, both ways
    python tests/derived_functions/heldout.py derive OUT     OUT/<release>: the curated rules and the
                                                             rules derived from that release's own tree
    python tests/derived_functions/heldout.py measure [OUT]  caught and false alarms, against
                                                             OUT/<release> (default: the shipped catalog)

A case: its family, release, the user file with the bad call (``bad``) and its good twin
(``good``), the line of the bad call, the start of the message sglang raises (``expect``), and
the modules of sglang stubbed for it (``stubbed``: a platform's detection at import time, which
the check does not read).
``confirm`` runs each file in a child interpreter with the release's tree on ``sys.path`` and
every other package stubbed (tests/startup/harness.py's ``setup``): the bad file must raise
an exception whose message starts with ``expect``, the good twin must raise nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS / "startup"), str(TESTS)]

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner)

CASES = TESTS / "derived_functions" / "heldout.json"


def confirm() -> int:
    from heldout_kit import confirm as confirmed

    data = json.loads(CASES.read_text())
    verdicts: dict = {}
    for release in sorted({case["release"] for case in data["cases"]}):
        mine = [case for case in data["cases"] if case["release"] == release]
        found = harness.spawn(Path(__file__), release, {"files": [
            {"text": case[side], "expect": case["expect"], "stubbed": case.get("stubbed", [])}
            for case in mine for side in ("bad", "good")]})
        said = found.get("files") or [{"fails": False, "said": f"no verdict: {found}"}] * (2 * len(mine))
        for index, case in enumerate(mine):
            verdicts[case["id"], "bad"], verdicts[case["id"], "good"] = said[2 * index], said[2 * index + 1]

    def verdict(case: dict, side: str) -> str:
        outcome = verdicts[case["id"], side]
        # the bad side counts only with the raise the case names; the good side fails on any
        return outcome["said"] if (outcome["fails"] if side == "bad" else outcome["raised"]) else ""

    return confirmed(CASES, verdict)


def _child(tree: str, payload, deps: str, gpu: str) -> dict:
    import importlib.util

    machine = harness.setup(tree, deps, gpu)
    # the registries' set's stand-ins for ``regex`` and ``typing_extensions`` (their stubs break imports)
    spec = importlib.util.spec_from_file_location("registries_heldout", TESTS / "registries" / "heldout.py")
    registries = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(registries)
    registries._standard_stand_ins()
    found = []
    for item in payload["files"]:
        registries._stub_sglang_modules(machine.rp, item["stubbed"])  # (what the check does not read)
        try:
            exec(compile(item["text"], "<case>", "exec"), {"__name__": "__case__"})  # noqa: S102 (the case's code)
        except BaseException as exc:  # noqa: BLE001
            said = f"{type(exc).__name__}: {exc}"[:300]
            found.append({"raised": True, "fails": str(exc).startswith(item["expect"]), "said": said})
            continue
        found.append({"raised": False, "fails": False, "said": "returned"})
    return {"files": found}


def derive(out: Path) -> int:
    from heldout_kit import derive_releases

    return derive_releases(out, {case["release"] for case in json.loads(CASES.read_text())["cases"]})


def measure(out: Path | None) -> tuple[list[str], list[str]]:
    from heldout_kit import case_texts, measure as measured

    data = json.loads(CASES.read_text())
    rules = (lambda release: out / release) if out is not None else None
    return measured(data["cases"], case_texts, lambda d: True, rules)


if __name__ == "__main__":
    from heldout_kit import main

    sys.exit(main(sys.argv, _child, confirm, derive, measure))
