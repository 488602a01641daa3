"""The held-out set of start-up checks that need the platform or the GPU (heldout.json): its
confirmation with each release's own start-up on a faked host of the case's GPU, and what
sglang-lint catches of it when the project declares that GPU.

    python tests/platform_checks/heldout.py confirm    sglang's verdict on each launch, both ways
    python tests/platform_checks/heldout.py measure    caught (SGL012 on the bad line, with the
                                                       declaration), false alarms (the good twin,
                                                       or the bad launch with no declaration)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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


def findings(case: dict, text: str, declared: dict | None) -> list[dict]:
    """The command's findings on one file of the case, in a project that declares ``declared``
    (None: declares nothing); a configuration the command refuses gives none."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".git").mkdir()
        lines = ["[tool.sglang-lint]", f'sglang-version = "{case["release"]}"']
        lines += [f'{key} = "{value}"' for key, value in (declared or {}).items()]
        (root / "pyproject.toml").write_text("\n".join(lines) + "\n")
        (root / case["file"]).write_text(text)
        done = subprocess.run([sys.executable, "-m", "sglang_lint", "--no-cache", "--format", "json", case["file"]],
                              cwd=root, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        if done.returncode not in (0, 1):
            return []
        return [f for f in json.loads(done.stdout or "[]") if f.get("code") == "SGL012"]


def measure() -> tuple[list, list]:
    cases = json.loads(CASES.read_text())["cases"]
    caught, alarms = [], []
    for case in cases:
        bad = findings(case, case["bad"], case["declare_bad"])
        good = findings(case, case["good"], case["declare_good"])
        silent = findings(case, case["bad"], None)
        if any(f["line"] == case["line"] for f in bad):
            caught.append(case["id"])
        if good or silent:
            alarms.append(case["id"])
        print(f"{case['id']:<28} {case['release']:<13} bad: {[f['message'][:150] for f in bad] or 'missed'}"
              f"{'  GOOD TWIN FLAGGED: ' + str([f['message'] for f in good]) if good else ''}"
              f"{'  FLAGGED WITH NO DECLARATION: ' + str([f['message'] for f in silent]) if silent else ''}")
    print(f"caught {len(caught)}/{len(cases)}, good twins or undeclared launches flagged {len(alarms)}")
    return caught, alarms


if __name__ == "__main__":
    from heldout_kit import confirm

    if sys.argv[1] == "confirm":
        sys.exit(confirm(CASES, verdict))
    measure()
