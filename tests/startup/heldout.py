"""The held-out set of start-up checks: which checks (picked at random with a fixed seed from
the inventory's linter-judgeable ones), and the re-confirmation of its cases with sglang's
real validation (harness.py).

    python tests/startup/heldout.py pick [N]      the first N picks of each group, in order
    python tests/startup/heldout.py confirm       run every case of heldout.json again, both ways

The pick: per release group, the judgeable checks of each family in a random order
(``random.Random(SEED)``, the checks sorted by id first), the families interleaved in a
random order (one of each in turn, so that the set spreads over the families), and for
each check one of the group's releases that has it, at random. Cases were written for the
picks in that order; a pick the harness could not confirm is listed in heldout.json's
``dropped`` with the reason, and the next pick was taken.

A case holds: the release, the bad launch (argv after ``python -m sglang.launch_server``,
and the environment it sets inline, ``SGLANG_X=1 python -m ...``), the good launch (as close
to the bad one as the check allows), what the bad one raises (exception, a fragment of the
message, the site ``file:line`` in that release), and the verdicts the harness gave.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SEED = 20260427
HELDOUT = HERE / "heldout.json"
INVENTORY = HERE / "inventory.json"
FAMILIES = ("combination", "divisibility", "range", "string form", "env var")


def load(path: Path = HELDOUT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def picks(inventory: dict, seed: int = SEED) -> dict[str, list[dict]]:
    """Per group, the judgeable checks in the order they were taken, each with its release."""
    rng = random.Random(seed)
    out = {}
    for name, group in inventory["groups"].items():
        by_family = {f: sorted((c for c in group["checks"] if c["class"] == "judgeable" and c["family"] == f),
                               key=lambda c: c["id"]) for f in FAMILIES}
        for checks in by_family.values():
            rng.shuffle(checks)
        order = list(FAMILIES)
        rng.shuffle(order)
        taken = []
        while any(by_family.values()):
            for family in order:
                if by_family[family]:
                    check = by_family[family].pop(0)
                    taken.append({**check, "release": rng.choice(check["releases"])})
        out[name] = taken
    return out


def verdict_matches(verdict: dict, expect: dict) -> bool:
    """The bad launch's verdict is the check's: raised (not argparse, not unclear), the same
    exception class, the message fragment in the message, at the site."""
    return (verdict.get("outcome") == "raised" and verdict.get("exception") == expect["exception"]
            and expect["fragment"] in verdict.get("message", "") and verdict.get("site") == expect["site"])


def good_holds(verdict: dict, expect: dict) -> bool:
    """The good launch passes, or at least neither raises this check nor anything certain."""
    if verdict.get("outcome") == "passed":
        return True
    return verdict.get("outcome") == "unclear" and verdict.get("site") != expect["site"]


def confirm_case(case: dict) -> tuple[dict, dict]:
    import harness

    gpu = case.get("gpu", harness.DEFAULT_GPU)
    bad = harness.run(case["release"], case["bad"]["argv"], case["bad"].get("env"), gpu=gpu)
    good = harness.run(case["release"], case["good"]["argv"], case["good"].get("env"), gpu=gpu)
    return bad, good


def _short(verdict: dict) -> dict:
    return {k: verdict[k] for k in ("outcome", "exception", "message", "site", "detail") if k in verdict}


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "pick"
    if command == "pick":
        count = int(sys.argv[2]) if len(sys.argv) > 2 else 20
        for name, taken in picks(json.loads(INVENTORY.read_text(encoding="utf-8"))).items():
            print(f"== {name}")
            for index, check in enumerate(taken[:count]):
                print(f"{index:3d} {check['id']} [{check['family']}] {check['release']} "
                      f"{check['file']}:{check['function']}:{check['lines'][check['release']]} "
                      f"{check['exception']}: {check['message'][:150]!r} fields={check['fields']} env={check['env']}")
        return
    if command == "confirm":
        data = load()
        failed = 0
        for case in data["cases"]:
            bad, good = confirm_case(case)
            ok = verdict_matches(bad, case["expect"]) and good_holds(good, case["expect"])
            failed += not ok
            print(f"{'ok ' if ok else 'BAD'} {case['id']} {case['release']} bad={_short(bad)} good={_short(good)}"
                  if not ok else f"ok  {case['id']} {case['release']}")
        print(f"{len(data['cases']) - failed}/{len(data['cases'])} cases confirmed")
        raise SystemExit(1 if failed else 0)
    raise SystemExit(f"unknown command {command!r}: pick or confirm")


if __name__ == "__main__":
    main()
