"""The held-out set of `sglang serve` lines whose own flags decide the server (heldout.json),
written before the check: its confirmation with each release's real parsers and start-up, and
what sglang-lint catches of it.

    python tests/serve_lines/heldout.py confirm    sglang's verdicts, both ways
    python tests/serve_lines/heldout.py measure    caught (a finding on the bad line) and false alarms

A case: the release, the server the line's flags decide ("llm": a flag the diffusion server
refuses; "diffusion": one the LLM server refuses), the words after ``sglang serve`` of the bad
line and its good twin. Confirmed: the diffusion server's verdict on each flag (sglang's own
parser, tests/real_parsers.py), and the LLM server's on the whole line (its start-up with the
host faked, tests/startup/harness.py): an "llm" case fails there and its twin passes; a
"diffusion" case's LLM-only flag is one the diffusion server refuses, its twin takes all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "startup"))
sys.path.insert(0, str(HERE.parent))
CASES = HERE / "heldout.json"


def _probes(argv: list[str]) -> list[str]:
    """``--x=v`` for a flag with a value, ``--x`` for one alone (real_parsers.py's probe)."""
    found = []
    for index, word in enumerate(argv):
        if word.startswith("--") and word != "--model-path":
            following = argv[index + 1] if index + 1 < len(argv) else None
            found.append(f"{word}={following}" if following is not None and not following.startswith("--") else word)
    return found


def _diffusion(release: str, probes: list[str]) -> dict:
    from sglang_lint.derive.source.wheels import fetch_tree

    script = ROOT / "tests" / "real_parsers.py"
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(script), str(fetch_tree(release)), "serve", "probe",
                           *probes], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def confirm() -> int:
    import harness

    data = json.loads(CASES.read_text())
    wrong = 0
    for case in data["cases"]:
        release = case["release"]
        diffusion = _diffusion(release, _probes(case["argv_bad"]) + _probes(case["argv_good"]))
        llm_bad = harness.run(release, case["argv_bad"])
        llm_good = harness.run(release, case["argv_good"])
        refused = sorted({flag.split("=")[0] for flag, verdict in diffusion.items() if verdict == "rejected"})
        good_refused = [p.split("=")[0] for p in _probes(case["argv_good"]) if diffusion[p] == "rejected"]
        if case["server"] == "llm":
            ok = bool(refused) and llm_bad["outcome"] in ("raised", "argparse") and llm_good["outcome"] == "passed"
        else:
            ok = bool(refused) and not good_refused and llm_bad["outcome"] == "argparse"
        wrong += not ok
        shown = {k: llm_bad.get(k) for k in ("outcome", "exception", "message", "site")}
        case["confirmed"] = {"diffusion_refuses": refused, "llm_bad": shown, "llm_good": llm_good["outcome"]}
        print(f"{'ok ' if ok else 'BAD'} {release:<8} {case['id']:<24} {case['confirmed']}")
    CASES.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if wrong else 0


def measure() -> int:
    from heldout_kit import measure as measured

    def texts(case):
        bad, good = ("#!/bin/bash\nsglang serve " + " ".join(case[f"argv_{side}"]) + "\n" for side in ("bad", "good"))
        return "serve.sh", bad, good, 2

    measured(json.loads(CASES.read_text())["cases"], texts, lambda d: True)
    return 0


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": measure}[sys.argv[1]]())
