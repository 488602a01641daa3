"""The recall benchmark: how many real bad calls into sglang 0.5.23 the linter flags.

Every ``cases/NNN_*.py`` is a small piece of user code with one call that raises in sglang
(``# recall: bad``) and one call of the same callable that does not (``# recall: good``); its first
line names the raise site (``# raise: <module>:<function> line <N> (<skip reason>)``), its second
says why the bad call raises. The cases were drawn at random from the raise sites the deriver made
no rule from (see pick.py and README.md).

    .venv/bin/python tests/recall/recall.py [CASES_DIR]

lints every case with the default rule set and prints, per case, whether each marked call got a
finding, then the totals. A call gets a finding when one is reported on any line of the statement
the marker starts. Exit status 0, or 2 when a case file is malformed.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases"
CASE_NAME = re.compile(r"^(?P<number>\d{3})_[a-z0-9_]+\.py$")
# A long header may end with flake8's "# noqa: E501": the header itself is the first comment.
HEADER = re.compile(
    r"^# raise: (?P<module>[\w.]+):(?P<function>[\w.]+) line (?P<line>\d+) \((?P<reason>.+)\)(?:  # noqa: E501)?$"
)
MARKER = re.compile(r"^#\s*recall:\s*(?P<kind>\w+)\s*$")
KINDS = ("bad", "good")


class MalformedCase(Exception):
    """A case file the benchmark cannot read: the message says which file and why."""


@dataclass(frozen=True)
class Case:
    path: Path
    number: int
    module: str
    function: str
    line: int
    reason: str
    spans: dict  # "bad"/"good" -> (first line, last line) of the marked statement

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class CaseResult:
    case: Case
    bad_codes: tuple  # the codes reported on the bad statement
    good_codes: tuple  # the codes reported on the good statement

    @property
    def flagged(self) -> bool:
        return bool(self.bad_codes)

    @property
    def false_alarm(self) -> bool:
        return bool(self.good_codes)


def case_files(directory: Path = CASES) -> list[Path]:
    return sorted(directory.glob("*.py"))


def _markers(path: Path, text: str) -> dict:
    """The line of each ``# recall: <kind>`` comment, by kind (comments only, never strings)."""
    found: dict = {kind: [] for kind in KINDS}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise MalformedCase(f"{path.name}: cannot tokenize: {exc}") from exc
    for token in tokens:
        if token.type != tokenize.COMMENT or token.start[0] == 1:
            continue
        match = MARKER.match(token.string)
        if match is None:
            if "recall:" in token.string:
                raise MalformedCase(f"{path.name}:{token.start[0]}: unreadable marker {token.string!r}")
            continue
        if match["kind"] not in KINDS:
            raise MalformedCase(f"{path.name}:{token.start[0]}: unknown marker kind {match['kind']!r}")
        found[match["kind"]].append(token.start[0])
    return found


def _statement_span(path: Path, tree: ast.Module, line: int) -> tuple[int, int]:
    """The lines of the innermost statement that starts on ``line`` (where its marker is)."""
    starting = [node for node in ast.walk(tree) if isinstance(node, ast.stmt) and node.lineno == line]
    if not starting:
        raise MalformedCase(f"{path.name}:{line}: the marker is not on the first line of a statement")
    innermost = min(starting, key=lambda node: node.end_lineno - node.lineno)
    return innermost.lineno, innermost.end_lineno


def parse_case(path: Path) -> Case:
    """Read one case file; :class:`MalformedCase` when it is not one."""
    name = CASE_NAME.match(path.name)
    if name is None:
        raise MalformedCase(f"{path.name}: case files are named NNN_<slug>.py (lowercase slug)")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    header = HEADER.match(lines[0]) if lines else None
    if header is None:
        raise MalformedCase(f"{path.name}:1: first line must be '# raise: <module>:<function> line <N> (<reason>)'")
    if len(lines) < 2 or not lines[1].startswith("# ") or len(lines[1]) < 10:
        raise MalformedCase(f"{path.name}:2: second line must be a comment saying why the bad call raises")
    try:
        tree = ast.parse(text, filename=path.name)
    except SyntaxError as exc:
        raise MalformedCase(f"{path.name}: not valid Python: {exc}") from exc
    markers = _markers(path, text)
    spans = {}
    for kind in KINDS:
        if len(markers[kind]) != 1:
            raise MalformedCase(f"{path.name}: needs exactly one '# recall: {kind}' marker, has {len(markers[kind])}")
        spans[kind] = _statement_span(path, tree, markers[kind][0])
    return Case(path, int(name["number"]), header["module"], header["function"], int(header["line"]),
                header["reason"], spans)


def load_cases(directory: Path = CASES) -> list[Case]:
    cases = [parse_case(path) for path in case_files(directory)]
    if not cases:
        raise MalformedCase(f"no case files in {directory}")
    numbers = [case.number for case in cases]
    if len(set(numbers)) != len(numbers):
        raise MalformedCase("two case files share a number")
    return cases


def _codes_in(findings, span: tuple[int, int]) -> tuple:
    first, last = span
    return tuple(sorted({d.code for d in findings if first <= d.line <= last}))


def run_case(case: Case) -> CaseResult:
    from sglang_lint import lint

    findings = lint(case.path.read_text(encoding="utf-8"), case.path.name, noqa=False)
    return CaseResult(case, _codes_in(findings, case.spans["bad"]), _codes_in(findings, case.spans["good"]))


def measure(directory: Path = CASES) -> tuple[int, int, int, list[CaseResult]]:
    """(bad calls flagged, cases, good calls flagged, the result of each case); raises
    :class:`MalformedCase` when a case file is malformed."""
    per_case = [run_case(case) for case in load_cases(directory)]
    flagged = sum(result.flagged for result in per_case)
    false_alarms = sum(result.false_alarm for result in per_case)
    return flagged, len(per_case), false_alarms, per_case


def _shown(codes: tuple) -> str:
    return ",".join(codes) if codes else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", type=Path, default=CASES,
                        help="the folder of case files (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        flagged, total, false_alarms, per_case = measure(args.cases)
    except MalformedCase as exc:
        print(f"malformed case: {exc}", file=sys.stderr)
        return 2
    width = max(len(result.case.name) for result in per_case)
    print(f"{'case':<{width}}  {'bad':<12} {'good':<12} raise site")
    for result in per_case:
        case = result.case
        bad = ("flagged " if result.flagged else "missed ") + _shown(result.bad_codes)
        good = ("ALARM " + _shown(result.good_codes)) if result.false_alarm else "clean"
        print(f"{case.name:<{width}}  {bad:<12} {good:<12} {case.module}:{case.function} line {case.line}")
    print()
    print(f"recall: {flagged}/{total} bad calls flagged ({100 * flagged / total:.1f}%)")
    print(f"false alarms: {false_alarms}/{total} good calls flagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
