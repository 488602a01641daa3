"""Which of the checks that certainly fail one call or launch are reported: the one sglang
raises first, and a later one only where no fix of the earlier ones can make it pass
(checks/precedence.py; engine/precedence.py for the derived rules of one sglang function, the
order of the start-up table for SGL012: derive/startup/order.py).

- the analysis and the order of the table, on small cases;
- ``tests/fixtures/precedence/<release>/``: launches and calls through the command and a real
  flake8, exactly the annotated findings and the golden text;
- the held-out sets of ``tests/precedence/`` (README.md there): calls of sglang functions and
  launches, each failing several checks, with what sglang 0.5.23 raises first (read in its
  source; run by its own validation for the launches): exact figures."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, ReleaseFixtures, run_lint
from sglang_lint.checks.precedence import ALSO, first_raised
from sglang_lint.derive.startup.order import merged_order

HELD = ROOT / "tests" / "precedence"
PRECEDENCE = FIXTURES / "precedence"
RELEASES = sorted(p.name for p in PRECEDENCE.iterdir() if p.is_dir())
FIXTURES_AT = ReleaseFixtures(PRECEDENCE, "SGL")


# --- the analysis ----------------------------------------------------------------------------

READS = {"a": frozenset({"x"}), "b": frozenset({"y"}), "c": frozenset({"x", "z"}), "d": frozenset({"w"}),
         "e": None}


@pytest.mark.parametrize("failing, reported", [
    ("a", [("a", False)]),
    ("ab", [("a", False), ("b", True)]),  # b reads nothing a reads: it fails whatever fixes a
    ("ac", [("a", False)]),  # c reads x too: fixing a may make it pass
    ("cab", [("c", False), ("b", True)]),
    ("abd", [("a", False), ("b", True), ("d", True)]),
    ("aed", [("a", False)]),  # e's reads are not known: it and what follows it may share one
    ("ea", [("e", False)]),
    ("", []),
])
def test_first_raised_reports_the_first_and_the_later_ones_no_fix_reaches(failing, reported):
    assert first_raised(list(failing), READS.get) == reported


def test_merged_order_keeps_every_release_s_order():
    one, two, three = ["a", "c", "d"], ["b", "c", "e", "d"], ["a", "b"]
    order = merged_order([one, two, three], key=lambda item: (item,))
    for sequence in (one, two, three):
        assert [item for item in order if item in sequence] == sequence
    assert order == ["a", "b", "c", "d", "e"][:2] + ["c", "e", "d"]


def test_merged_order_counts_an_item_where_it_is_first_met_and_keeps_the_newer_of_opposite_orders():
    assert merged_order([["a", "b", "a"]], key=lambda item: (item,)) == ["a", "b"]
    # the newest release comes first: where an older one met two checks the other way, its order goes
    assert merged_order([["b", "a"], ["a", "b", "c"]], key=lambda item: (item,)) == ["b", "a", "c"]
    assert merged_order([["c", "a"], ["a", "b", "c"]], key=lambda item: (item,)) == ["c", "a", "b"]


# --- the fixtures ------------------------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_exactly_the_annotated_findings(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same_on_the_python_files(release):
    FIXTURES_AT.check_flake8(release)


# --- the held-out sets -------------------------------------------------------------------------

FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: (?P<code>SGL\d+) (?P<message>.*)$")
MARK = re.compile(r"#\s*sglang:\s*(.+)$")


def reported_per_line(output: str) -> dict[int, list[str]]:
    """line -> the codes reported there, ``+`` after one that says it also fails."""
    found: dict[int, list[str]] = {}
    for line in output.splitlines():
        match = FINDING.match(line)
        if match:
            found.setdefault(int(match["line"]), []).append(
                match["code"] + ("+" if f"({ALSO})" in match["message"] else ""))
    return found


def test_held_out_calls_report_what_sglang_raises_first():
    path = HELD / "calls.py"
    output = run_lint("--no-cache", "--isolated", "--sglang-version", "0.5.23", str(path), cwd=ROOT).stdout
    found = reported_per_line(output)
    right, wrong = [], []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARK.search(text)
        if match is None:
            continue
        said = match.group(1)
        want = [] if said.startswith("none") else sorted(code.strip() for code in said.split(","))
        (right if sorted(found.get(number, [])) == want else wrong).append(number)
    assert len(right) + len(wrong) == 15
    # the one left: Conv2dLayer passes in_channels on to _validate_conv_args, whose fails-when
    # rules are not passed through to it; only its padding_mode rule is, and it is reported
    assert len(wrong) == 1 and "Conv2dLayer" in path.read_text(encoding="utf-8").splitlines()[wrong[0] - 1]


def launch_line(case: dict) -> str:
    inline = "".join(f"{name}={shlex.quote(value)} " for name, value in case["env"].items())
    return f"{inline}python -m sglang.launch_server {shlex.join(case['argv'])}\n"


def quoted(text: str) -> str:
    """The sglang message a finding (or its part after "at start-up") quotes."""
    return text.split('): "', 1)[1].removesuffix('"')


def said_by(quote: str, raised: str) -> bool:
    """Is ``raised`` the message a finding quotes (a part whose value is not shown, ``<?>`` in a
    finding and ``{...}`` in the table, any text; a quote cut at 200 characters, any end)? A
    value the finding shows must be the one sglang printed."""
    quote = " ".join(quote.split())
    cut = quote.endswith("...")
    parts = re.split(r"<\?>|\{\.\.\.\}", quote.removesuffix("..."))
    pattern = ".*".join(re.escape(part) for part in parts) + (".*" if cut else "")
    return re.fullmatch(pattern, " ".join(raised.split()), re.DOTALL) is not None


def test_held_out_launches_report_what_sglang_raises_first(tmp_path: Path):
    data = json.loads((HELD / "launches.json").read_text(encoding="utf-8"))
    cases = data["cases"]
    script = tmp_path / "launches.sh"
    script.write_text("".join(launch_line(case) for case in cases), encoding="utf-8")
    output = run_lint("--no-cache", "--isolated", "--select", "SGL012", "--sglang-version", data["release"],
                      str(script), cwd=ROOT).stdout
    per_line: dict[int, list[str]] = {}
    for line in output.splitlines():
        match = FINDING.match(line)
        per_line.setdefault(int(match["line"]), []).append(match["message"])
    first_right = later_right = later = 0
    for number, case in enumerate(cases, start=1):
        messages = per_line.get(number, [])
        firsts = [m for m in messages if f"({ALSO})" not in m]
        assert len(firsts) == 1, (number, messages)
        first_right += said_by(quoted(firsts[0]), case["first"])
        for message in messages:
            if f"({ALSO})" in message:  # one of the checks the launch certainly fails
                later += 1
                later_right += any(said_by(quoted(failing), quoted(message.replace(f" ({ALSO})", "")))
                                   for failing in case["failing"])
    assert (first_right, later_right) == (len(cases), later)
