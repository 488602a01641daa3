"""Everything the linter reports on a fixed body of code, as sorted text lines: for a
refactor that must not change behaviour, run it before and after and diff the two files.

    .venv/bin/python scripts/behaviour_snapshot.py > before.txt
    ... refactor ...
    .venv/bin/python scripts/behaviour_snapshot.py > after.txt && diff before.txt after.txt

The body: every fixture under tests/ (curated, fixes, the derived stand-in tree), every
rule's bad and good example, every planted mutation of the corpus, sglang's whole tree
(cached by scripts/sglang_corpus.py) and any extra folders given on the command line.
Each finding is one line (where, code, message, fix); each file also gives one line with
the stage it reached, with and without the call-site screen.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sglang_corpus import MUTATIONS, apply_mutation, fetch_tree  # noqa: E402
from sglang_lint.core.model import SourceError  # noqa: E402
from sglang_lint.engine.lint import analyse  # noqa: E402
from sglang_lint.engine.ruletable import RuleSet, default_ruleset  # noqa: E402

ROOT = HERE.parent


def report(label: str, source: bytes | str, display: str, rulesets: list) -> list[str]:
    lines = []
    for ruleset, mode in rulesets:
        try:
            diagnostics, stage = analyse(source, display, ruleset, noqa=False)
        except SourceError as exc:
            lines.append(f"{label} [{mode}] error {exc.line}:{exc.col} {exc.message}")
            continue
        lines.append(f"{label} [{mode}] stage {stage}")
        for d in diagnostics:
            e = d.fix
            fix = f" fix[{e.line}:{e.col}-{e.end_line}:{e.end_col} {e.old!r}->{e.new!r} {e.safe}]" if e else ""
            lines.append(f"{label} {d.line}:{d.col}-{d.end_line}:{d.end_col} {d.code} {d.message}{fix} span={d.span}")
    return lines


def main(argv: list[str]) -> int:
    screened = default_ruleset()
    both = [(screened, "screen"), (RuleSet(screened.rules, screen=False), "no-screen")]
    out: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "fixtures" in path.parts or "derive_tree" in path.parts:
            rel = path.relative_to(ROOT).as_posix()
            out += report(rel, path.read_bytes(), rel, both)
    for rule in screened.rules:
        for which, text in (("bad", rule.docs.bad), ("good", rule.docs.good)):
            out += report(f"{rule.code}:{which}", text, "example.py", both)
    tree = fetch_tree()
    with tempfile.TemporaryDirectory() as work:
        for mutation in MUTATIONS:
            mutated = apply_mutation(tree, mutation, Path(work) / mutation.name)
            out += report(f"mutation:{mutation.name}", mutated.read_bytes(), mutation.path, both)
    folders = [(tree, "sglang")] + [(Path(a), Path(a).name) for a in argv]
    for folder, name in folders:
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).as_posix()
            lines = report(f"{name}/{rel}", path.read_bytes(), rel, both[:1])
            # The whole tree: findings, and the stage only where a file was parsed.
            out += [line for line in lines if " stage " not in line or "LibCST" in line]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
