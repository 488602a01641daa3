"""The README's first screen and its first command: the example project (examples/) gives
exactly its golden findings; the README's example lines are among them; its first 60 lines hold
the install, both commands and that example; it stays under 400 lines; its rule table opens with
a serving user's rules. (The commands run on a fresh clone: tests/test_readme_commands.py.)"""

from __future__ import annotations

import re

from conftest import ROOT, check_golden, run_lint

EXAMPLE = "examples/serving-project"
GOLDEN = ROOT / "tests" / "fixtures" / "examples" / "serving-project.out"
README = (ROOT / "README.md").read_text(encoding="utf-8")
FINDING = re.compile(r"^\S+:\d+:\d+: SGL\d{3,4} ", re.M)


def test_the_example_project_gives_its_golden_findings(update_golden):
    result = run_lint("--no-cache", EXAMPLE, cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    check_golden(GOLDEN, result.stdout, update_golden)
    # a mistake of each kind a serving user makes, in each kind of file
    codes = {line.split()[1] for line in result.stdout.splitlines()}
    assert codes == {"SGL006", "SGL007", "SGL008", "SGL009", "SGL014"}
    files = {line.split(":")[0].rsplit("/", 1)[1] for line in result.stdout.splitlines()}
    assert files == {"launch.sh", "serve.py", "README.md", "docker-compose.yml"}


def test_the_example_s_correct_lines_give_nothing():
    # serve.py's good() and the launch lines without a mistake: no finding on their lines
    findings = {tuple(line.split(":")[:2]) for line in GOLDEN.read_text(encoding="utf-8").splitlines()}
    serve = (ROOT / EXAMPLE / "serve.py").read_text(encoding="utf-8").splitlines()
    good = next(i for i, line in enumerate(serve, 1) if line.startswith("def good("))
    assert not {(f, n) for f, n in findings if f.endswith("serve.py") and int(n) >= good}


def test_the_readme_s_example_lines_are_what_the_first_command_prints():
    printed = set(GOLDEN.read_text(encoding="utf-8").splitlines())
    shown = [line for line in README.split("## Install")[0].splitlines() if FINDING.match(line)]
    assert len(shown) >= 5
    assert [line for line in shown if line not in printed] == []
    assert [line for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line in shown] == shown  # in order
    count = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")[len(printed)]
    assert f"the first command prints {count} findings" in " ".join(README.split())


def test_the_readme_s_first_screen_holds_the_install_both_commands_and_an_example():
    first = "\n".join(README.splitlines()[:60])
    assert "./scripts/lint-example" in first and "./scripts/test" in first
    assert "pip install ./sglang-lint" in first
    assert FINDING.search(first)
    assert len(README.splitlines()) < 400


def test_the_rule_table_opens_with_a_serving_user_s_rules():
    # launch flags, Engine keywords, start-up checks, sampling, the API; then sglang's internals
    table = README.split("## What it catches", 1)[1].split("\n\n", 2)[1]
    codes = [row.split("|")[1].strip() for row in table.splitlines()[2:]]
    assert codes == [f"SGL{n:03d}" for n in (*range(6, 16), *range(1, 6))]
