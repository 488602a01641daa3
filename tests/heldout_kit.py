"""What the held-out sets' ``measure`` share: each case's bad file and good twin linted at the
case's release, a case caught where a finding the set asks for is on the bad side's line, a
false alarm where its good twin gives any."""

from __future__ import annotations

import tempfile
from pathlib import Path


def case_texts(case: dict) -> tuple[str, str, str, int]:
    """The texts of a case that writes them out: its file name, bad text, good twin and line."""
    return case["file"], case["bad"], case["good"], case["line"]


def measure(cases: list[dict], texts, wanted, rules=None, machine=None) -> tuple[list[str], list[str]]:
    """``texts(case)``: (file name, bad text, good text, line of the bad one's finding);
    ``wanted(diagnostic)``: whether a finding counts; ``rules(release)``: the rule folder to judge
    a case of that release by (default: the shipped catalog); ``machine(case, side)``: the machine
    the project declares for a side (catalog/platforms.py), where the set has one: then the bad
    side with nothing declared must be silent too. Prints each case; returns (caught, flagged)."""
    from sglang_lint.engine.lint import lint
    from sglang_lint.engine.ruletable import RuleSet, default_ruleset, load_rules

    caught, alarms = [], []
    for case in cases:
        catalog = default_ruleset() if rules is None else RuleSet(load_rules([rules(case["release"])]))
        ruleset = catalog.for_releases((case["release"],))
        name, bad, good, line = texts(case)
        sides = [("bad", bad, "bad"), ("good", good, "good")] + ([("undeclared", bad, None)] if machine else [])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            found = {side: [d for d in lint(text.encode(), str(path), ruleset.on_machine(
                machine(case, declared) if machine and declared else None)) if wanted(d)]
                for side, text, declared in sides}
        if any(d.line == line for d in found["bad"]):
            caught.append(case["id"])
        found["good"] += found.pop("undeclared", [])
        if found["good"]:
            alarms.append(case["id"])
        print(f"{case['id']:<24} {case['release']:<13} bad: "
              f"{[d.code + ' ' + d.message for d in found['bad']] or 'missed'}"
              f"{'  GOOD TWIN FLAGGED: ' + str([d.message for d in found['good']]) if found['good'] else ''}")
    print(f"caught {len(caught)}/{len(cases)}, good twins flagged {len(alarms)}")
    return caught, alarms


def confirm(path: Path, verdict) -> int:
    """Each case of the set at ``path`` both ways: ``verdict(case, side)`` is sglang's message on
    its bad or good side ("" where sglang takes it); a case is right where the bad side fails
    and its twin does not. The bad side's message is kept in the case (``confirmed``)."""
    import json

    data = json.loads(path.read_text())
    wrong = 0
    for case in data["cases"]:
        bad, good = verdict(case, "bad"), verdict(case, "good")
        ok = bool(bad) and not good
        wrong += not ok
        case["confirmed"] = bad
        print(f"{'ok ' if ok else 'BAD'} {case['release']:<13} {case['id']:<26} {(bad or good)[:110]}")
    path.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if wrong else 0


def derive_releases(out: Path, releases, paths: bool = True) -> int:
    """For each release: the shipped folder's curated rules and tables (its merged
    server-argument table, which the curated rules read), with the derived rules of that
    release's own tree written over them (no other release's) in ``out/<release>``; ``paths``:
    the fails-when rules too."""
    import shutil

    from sglang_lint.derive.source.wheels import fetch_tree
    from sglang_lint.derive.server_args.fields import SERVER_ARGS_TABLE
    from sglang_lint.derive.sites.raise_sites import derive_sites
    from sglang_lint.derive.sites.writing import DERIVED_DIR, write_catalog

    for release in sorted(releases):
        folder = out / release
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(Path(__file__).resolve().parent.parent / "rules", folder)
        for rule in (folder / DERIVED_DIR).glob("SGL*.toml"):
            rule.unlink()
        derivation = derive_sites(fetch_tree(release), paths=paths)
        derivation.version = release
        table = (folder / DERIVED_DIR / SERVER_ARGS_TABLE).read_text(encoding="utf-8")
        written, _ = write_catalog(derivation, folder, server_args_text=table)
        print(f"sglang {release}: {written} rules in {folder}")
    return 0


def set_command(argv: list[str], path: Path, verdict, wanted) -> int:
    """The command line of a set whose cases write out their texts: ``confirm`` (``verdict``:
    sglang's words on a side, as :func:`confirm` asks) or ``measure`` (``wanted``: a finding
    the set asks for)."""
    import json

    if argv[1] == "confirm":
        return confirm(path, verdict)
    measure(json.loads(path.read_text())["cases"], case_texts, wanted)
    return 0


def main(argv: list[str], child, confirm, derive, measure) -> int:
    """A set's command line: ``confirm``, ``derive OUT``, ``measure [OUT]``; more arguments are
    the harness's child (TREE PAYLOAD DEPS GPU), which runs ``child``."""
    import harness

    if len(argv) > 4 and argv[1] not in ("confirm", "derive", "measure"):
        harness.child_main(child)
    if argv[1] == "confirm":
        return confirm()
    if argv[1] == "derive":
        return derive(Path(argv[2]))
    measure(Path(argv[2]) if len(argv) > 2 else None)
    return 0
