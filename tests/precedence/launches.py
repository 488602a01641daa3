"""Held-out launches for which sglang 0.5.23's start-up validation certainly fails two or more
checks, and the one it raises first, confirmed by sglang's own validation run from the wheel
(tests/startup/harness.py).

``python tests/precedence/launches.py`` remakes ``launches.json``: pairs of the bad launches of
the start-up held-out set (tests/startup/heldout.json, its release group 0.5.20-0.5.23) drawn
with a fixed seed and joined into one launch, beside a few launches that fail several checks of
one sglang function (written by hand before the linter was changed), each run through the
harness at 0.5.23 (``first``: the message of what it raises). Kept: those the harness sees raise
and for which the linter as it was before this set (every certain check reported) reports two
or more checks (``failing``: their messages, in no order)."""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "startup"))

import harness  # noqa: E402

RELEASE = "0.5.23"
SEED = 15
PAIRS = 16
MODEL = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
BY_HAND = [
    (["--enable-return-aux-hidden-states"], {}),
    (["--enable-return-aux-hidden-states", "--pp-size", "2"], {}),
    (["--enable-return-aux-hidden-states", "--speculative-algorithm", "DFLASH", "--pp-size", "2"], {}),
    (["--return-aux-hidden-state-layer-ids", "1", "--schedule-conservativeness", "-0.5"], {}),
    (["--enable-lora", "--max-lora-rank", "16", "--lora-target-modules", "all", "q_proj", "--tp", "6",
      "--attn-cp-size", "4"], {}),
]


def candidates() -> list[tuple[list[str], dict]]:
    held = json.loads((HERE.parent / "startup" / "heldout.json").read_text(encoding="utf-8"))
    bad = [(c["bad"]["argv"][2:], c["bad"]["env"]) for c in held["cases"] if c["group"] == "0.5.20-0.5.23"]
    rng = random.Random(SEED)
    pairs = []
    while len(pairs) < PAIRS:
        (a, env_a), (b, env_b) = rng.sample(bad, 2)
        if set(a) & set(b) & {w for w in a + b if w.startswith("--")}:
            continue  # a flag both set: one launch cannot say both
        pairs.append((a + b, {**env_a, **env_b}))
    return [(MODEL + argv, env) for argv, env in BY_HAND + pairs]


def certain(argv: list[str], env: dict, linter: str) -> list[str]:
    """The messages of the SGL012 findings ``linter`` (a command) reports for the launch."""
    inline = "".join(f"{k}={shlex.quote(v)} " for k, v in env.items())
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "launch.sh"
        script.write_text(f"{inline}python -m sglang.launch_server {shlex.join(argv)}\n", encoding="utf-8")
        out = subprocess.run([*shlex.split(linter), "--no-cache", "--sglang-version", RELEASE, str(script)],
                             capture_output=True, text=True).stdout
    return [line.split(" at start-up ", 1)[1] for line in out.splitlines() if " SGL012 " in line]


def main() -> None:
    linter = sys.argv[1]  # the linter before this set: every certain check reported
    cases = []
    for argv, env in candidates():
        failing = certain(argv, env, linter)
        if len(failing) < 2:
            continue
        verdict = harness.run(RELEASE, argv, env)
        if verdict["outcome"] != "raised":
            continue
        cases.append({"argv": argv, "env": env, "first": verdict["message"], "site": verdict["site"],
                      "failing": failing})
        print(len(cases), verdict["message"][:90], file=sys.stderr)
    (HERE / "launches.json").write_text(json.dumps({"release": RELEASE, "seed": SEED, "cases": cases}, indent=1)
                                        + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
