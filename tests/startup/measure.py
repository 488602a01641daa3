"""How much of the held-out set (heldout.json) sglang-lint catches today.

    python tests/startup/measure.py [--verbose]

Each case's two launches (bad and good) are written twice, one line each: in a Python file,
``subprocess.Popen([sys.executable, "-m", "sglang.launch_server", *argv], env=...)``, and in a
shell script, ``SGLANG_X=1 python -m sglang.launch_server ...`` (the environment inline, as
the case sets it). The files of one release are linted together with
``sglang-lint --no-cache --isolated --sglang-version <release> --format json``. A bad launch
is *caught* when any finding lies on its line; a good launch is *flagged* when any does.
Printed: caught and flagged, per form (Python, shell, either), per release group.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HELDOUT = HERE / "heldout.json"
FORMS = ("python", "shell")


def _python_line(launch: dict) -> str:
    argv = ", ".join(repr(a) for a in launch["argv"])
    env = f", env={{**os.environ, **{launch['env']!r}}}" if launch.get("env") else ""
    return f'subprocess.Popen([sys.executable, "-m", "sglang.launch_server", {argv}]{env})'


def _shell_line(launch: dict) -> str:
    env = "".join(f"{k}={shlex.quote(v)} " for k, v in launch.get("env", {}).items())
    return f"{env}python -m sglang.launch_server {shlex.join(launch['argv'])}"


def write_launches(cases: list[dict], folder: Path) -> dict:
    """One folder per release with ``launches.py`` and ``launches.sh``; returns
    {(path, line): (case id, "bad" | "good", form)}."""
    where = {}
    by_release = defaultdict(list)
    for case in cases:
        by_release[case["release"]].append(case)
    for release, group in by_release.items():
        target = folder / release
        target.mkdir(parents=True)
        py = ["import os", "import subprocess", "import sys", ""]
        sh = ["#!/bin/sh", "set -e", ""]
        for case in group:
            for kind in ("bad", "good"):
                py.append(_python_line(case[kind]))
                where[(str(target / "launches.py"), len(py))] = (case["id"], kind, "python")
                sh.append(_shell_line(case[kind]))
                where[(str(target / "launches.sh"), len(sh))] = (case["id"], kind, "shell")
        (target / "launches.py").write_text("\n".join(py) + "\n", encoding="utf-8")
        (target / "launches.sh").write_text("\n".join(sh) + "\n", encoding="utf-8")
    return where


def lint(folder: Path, release: str) -> list[dict]:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("sglang-lint")), "--no-cache", "--isolated", "--sglang-version", release,
         "--format", "json", str(folder)],
        capture_output=True, text=True, cwd=str(folder),
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"sglang-lint failed on {folder} (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout or "[]")


def measure(cases: list[dict] | None = None) -> dict:
    """The figures: for each form and for either, the bad cases caught and the good ones
    flagged (case ids, with the codes found), and the totals."""
    if cases is None:
        cases = json.loads(HELDOUT.read_text(encoding="utf-8"))["cases"]
    hits: dict[tuple, set] = defaultdict(set)  # (case id, kind, form) -> codes
    with tempfile.TemporaryDirectory(prefix="sglang-lint-heldout-") as temp:
        folder = Path(temp)
        where = write_launches(cases, folder)
        for release in sorted({c["release"] for c in cases}):
            for finding in lint(folder / release, release):
                key = where.get((str(Path(finding["path"]).resolve()), finding["line"])) \
                    or where.get((finding["path"], finding["line"]))
                if key is None:
                    raise RuntimeError(f"a finding off every launch line: {finding}")
                hits[key].add(finding["code"])
    groups = sorted({c["group"] for c in cases})
    out = {"cases": len(cases), "by_form": {}, "by_group": {}}
    for form in (*FORMS, "either"):
        forms = FORMS if form == "either" else (form,)
        caught = {c["id"]: sorted(set().union(*(hits[(c["id"], "bad", f)] for f in forms)))
                  for c in cases if any(hits[(c["id"], "bad", f)] for f in forms)}
        flagged = {c["id"]: sorted(set().union(*(hits[(c["id"], "good", f)] for f in forms)))
                   for c in cases if any(hits[(c["id"], "good", f)] for f in forms)}
        out["by_form"][form] = {"caught": len(caught), "flagged": len(flagged),
                                "caught_cases": caught, "flagged_cases": flagged}
    either = out["by_form"]["either"]
    for group in groups:
        ids = {c["id"] for c in cases if c["group"] == group}
        out["by_group"][group] = {"cases": len(ids), "caught": len(ids & set(either["caught_cases"])),
                                  "flagged": len(ids & set(either["flagged_cases"]))}
    return out


def main() -> None:
    figures = measure()
    total = figures["cases"]
    print(f"held-out cases: {total} (each a bad and a good launch, as a Python line and a shell line)")
    for form, found in figures["by_form"].items():
        print(f"  {form:<7} bad caught {found['caught']:>3}/{total}   good flagged {found['flagged']:>3}/{total}")
    for group, found in figures["by_group"].items():
        print(f"  {group:<14} bad caught {found['caught']:>3}/{found['cases']}   good flagged "
              f"{found['flagged']:>3}/{found['cases']}  (either form)")
    if "--verbose" in sys.argv[1:]:
        for form, found in figures["by_form"].items():
            for name in ("caught_cases", "flagged_cases"):
                for case, codes in found[name].items():
                    print(f"  {form} {name[:-6]}: {case} {','.join(codes)}")


if __name__ == "__main__":
    main()
