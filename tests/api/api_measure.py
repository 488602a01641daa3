"""How much of the API held-out set (heldout.json) sglang-lint catches today.

    python tests/api/api_measure.py [--verbose]

Each case's two calls (bad and good) are written as users write them, one line each, in one
Python file per release: an ``Engine`` method on ``engine = sgl.Engine(model_path=...)``, a
helper imported from its module, the frontend through ``import sglang as sgl``, a
``RuntimeEndpoint`` built with ``sgl.RuntimeEndpoint(...)``, a ``Runtime`` with
``sgl.Runtime(...)``, sampling parameters in turn in ``engine.generate(..., sampling_params=...)``
and in the JSON body of ``requests.post(f"{URL}/generate", ...)``. Each release's file is
linted with ``sglang-lint --no-cache --isolated --sglang-version <release> --format json``. A
bad call is *caught* when any finding lies on its line; a good one is *flagged* when a finding
of SGL006, SGL007, SGL009, SGL013 or SGL014 does (what the harness confirms of a good call: it
binds, its parameters pass sglang's validation, its launch flags parse). Printed: caught and flagged, per surface.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HELDOUT = HERE / "heldout.json"
# The codes that judge whether a call's arguments bind (what the harness confirms of a good call):
# a finding of another rule on a good call (an assert in its body that its literal arguments
# fail) is counted apart, as "other".
BINDING_CODES = ("SGL006", "SGL007", "SGL009", "SGL013", "SGL014")
PREAMBLE = [
    "import subprocess",
    "import sys",
    "",
    "import requests",
    "import sglang as sgl",
    "import sglang.utils",
    "import sglang.test.test_utils",
    "",
    'engine = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct")',
    'endpoint = sgl.RuntimeEndpoint("http://127.0.0.1:30000")',
    'URL = "http://127.0.0.1:30000"',
]


def _arguments(call: dict) -> str:
    parts = [repr(a) for a in call["args"]] + [f"{k}={v!r}" for k, v in call["kwargs"].items()]
    return ", ".join(parts)


def line_of(case: dict, which: str) -> str:
    if case["reach"] == "launch":
        argv = ", ".join(repr(word) for word in case[which]["argv"])
        return f'subprocess.Popen([sys.executable, "-m", "sglang.launch_server", {argv}])'

    if case["reach"] == "sampling":  # (in turn: an Engine's generate, a request to a server's /generate)
        params = case[which]["sampling"]
        if int(case["id"]) % 2 == 0:
            return f'engine.generate("Hello", sampling_params={params!r})'
        return f'requests.post(f"{{URL}}/generate", json={{"text": "Hello", "sampling_params": {params!r}}})'
    call = case[which]
    name, arguments = call["name"], _arguments(call)
    reach = case["reach"]
    if reach == "engine":
        return f"engine.{name}({arguments})"
    if reach == "endpoint":
        return f"sgl.RuntimeEndpoint({arguments})" if not name else f"endpoint.{name}({arguments})"
    if reach == "runtime":
        return f"sgl.Runtime({arguments})"
    if reach == "sgl":
        return f"sgl.{name}({arguments})"
    return f"{case['module']}.{name}({arguments})"


def write_calls(cases: list[dict], folder: Path) -> dict:
    """One file per release; returns {(path, line): (case id, "bad" | "good")}."""
    where = {}
    by_release = defaultdict(list)
    for case in cases:
        by_release[case["release"]].append(case)
    for release, group in by_release.items():
        path = folder / f"calls_{release.replace('.', '_')}.py"
        lines = list(PREAMBLE)
        for case in group:
            for which in ("bad", "good"):
                lines.append(line_of(case, which))
                where[(str(path), len(lines))] = (case["id"], which)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return where


def measure(cases: list[dict]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        where = write_calls(cases, folder)
        hits = set()
        for path in sorted(folder.glob("*.py")):
            release = next(c["release"] for c in cases if path.name == f"calls_{c['release'].replace('.', '_')}.py")
            done = subprocess.run([sys.executable, "-m", "sglang_lint", "--no-cache", "--isolated", "--sglang-version",
                                   release, "--format", "json", str(path)], capture_output=True, text=True, cwd=ROOT)
            for finding in json.loads(done.stdout or "[]"):
                key = (str(path), finding["line"])
                if key in where:
                    hits.add((*where[key], finding["code"] in BINDING_CODES))
    return {"caught": {c["id"] for c in cases if {(c["id"], "bad", True), (c["id"], "bad", False)} & hits},
            "flagged": {c["id"] for c in cases if (c["id"], "good", True) in hits},
            "other": {c["id"] for c in cases if (c["id"], "good", False) in hits}}


def main() -> None:
    cases = json.loads(HELDOUT.read_text(encoding="utf-8"))["cases"]
    result = measure(cases)
    by_surface = defaultdict(lambda: [0, 0, 0])
    for case in cases:
        row = by_surface[case["surface"]]
        row[0] += 1
        row[1] += case["id"] in result["caught"]
        row[2] += case["id"] in result["flagged"]
    for surface, (total, caught, flagged) in sorted(by_surface.items()):
        print(f"{surface:20s} caught {caught}/{total}, flagged {flagged}")
    print(f"{'all':20s} caught {len(result['caught'])}/{len(cases)}, flagged {len(result['flagged'])}/{len(cases)}"
          f" (other rules on good calls: {len(result['other'])})")
    if "--verbose" in sys.argv:
        for case in cases:
            mark = "caught" if case["id"] in result["caught"] else "MISSED"
            print(mark, case["id"], case["release"], case["kind"], line_of(case, "bad"))
            if case["id"] in result["flagged"] | result["other"]:
                label = "FLAGGED" if case["id"] in result["flagged"] else "other rule on good"
                print(label, case["id"], line_of(case, "good"))


if __name__ == "__main__":
    main()
