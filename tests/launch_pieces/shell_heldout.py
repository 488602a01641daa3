"""The held-out set of sglang launches built in pieces in shell (shell_heldout.json): bash arrays
grown with ``+=`` and run as ``"${CMD[@]}"``, args arrays and string variables expanded on a
launch line, in scripts and a Markdown block, written before the reading was built; its
confirmation with each release's real parser, and what sglang-lint finds of it.

    python tests/launch_pieces/shell_heldout.py confirm    argparse's verdict on each case, both ways
    python tests/launch_pieces/shell_heldout.py measure    caught (the code on the bad word's line) and false alarms

A case: the release, how the launch is built, the file with the bad launch and its good twin,
the line and code of the finding expected (``expect`` "caught"), or none on either side
(``expect`` "silent": ``why`` says why), and the words after ``python -m sglang.launch_server``
both ways as bash builds them, with argparse's message on the bad ones (``confirmed``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "shell_heldout.json"


def confirm() -> int:
    """argparse's verdict on each case both ways, written into the set: the confirmation of
    tests/flag_types/heldout.py, run over this set."""
    spec = importlib.util.spec_from_file_location("flag_types_heldout", HERE.parent / "flag_types" / "heldout.py")
    confirmation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(confirmation)
    confirmation.CASES = CASES
    return confirmation.confirm()


def findings(case: dict) -> dict[str, list]:
    """What sglang-lint reports on the case's bad text and on its good twin, judged against its release."""
    from sglang_lint.engine.lint import lint
    from sglang_lint.engine.ruletable import default_ruleset

    ruleset = default_ruleset().for_releases((case["release"],))
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / case["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        for side in ("bad", "good"):
            path.write_text(case[side])
            found[side] = lint(case[side], str(path), ruleset)
    return found


def measure() -> int:
    data = json.loads(CASES.read_text())
    caught, alarms, silent, expected_silent = [], [], [], 0
    for case in data["cases"]:
        found = findings(case)
        if case["expect"] == "silent":
            expected_silent += 1
            if not found["bad"]:
                silent.append(case["id"])
        elif any(d.line == case["line"] and d.code == case["code"] for d in found["bad"]):
            caught.append(case["id"])
        if found["good"]:
            alarms.append(case["id"])
        said = [f"{d.line}:{d.col + 1} {d.code} {d.message}" for d in found["bad"]]
        print(f"{case['id']:<26} {case['release']:<13} {case['expect']:<7} bad: {said or 'nothing'}"
              f"{'  GOOD TWIN FLAGGED: ' + str([d.message for d in found['good']]) if found['good'] else ''}")
    print(f"caught {len(caught)}/{len(data['cases']) - expected_silent}, silent as expected "
          f"{len(silent)}/{expected_silent}, good twins flagged {len(alarms)}")
    return 0


if __name__ == "__main__":
    sys.exit({"confirm": confirm, "measure": measure}[sys.argv[1]]())
