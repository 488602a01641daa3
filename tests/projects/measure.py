"""Launch flags in real projects built on sglang, each checked against sglang's own parser, and
what sglang-lint reports on them: how many flags the parser rejects, how many of those the
linter finds, and every finding the parser does not bear out.

    python tests/projects/measure.py PROJECT_DIR[=RELEASE] ...
    MEASURE_LINTER_SRC=/tmp/before/src python tests/projects/measure.py ...   (an older linter)

Each PROJECT_DIR is a checkout (``git archive`` of a fixed commit, named in the closing note).
The release is the one the linter itself takes for the project (its ``--verbose`` line), unless
``=RELEASE`` names one. The flags are found without the linter: every line of a shell script,
Markdown, YAML or Python file that names ``sglang.launch_server`` (or ``sglang serve``) starts a
command, which runs on over continuation lines (a trailing backslash) and, in Python, to the
bracket that closes the line's first open one; each ``--flag`` word after the launcher in it is
a flag (``--flag=value`` split). The parser is sglang's own (``ServerArgs.add_cli_args``, built
from the release's wheel by tests/startup/parser_choices.py): a flag is rejected when it is
neither one of its option strings nor a prefix of exactly one (argparse's abbreviations).
Prefixed flags (``--sglang-x`` of slime, rules/prefixes.toml), in a project that is the prefix's
framework (catalog/frameworks.py), are every such word of a shell script, Markdown code block or
YAML file but the framework's own and those it withholds, each standing for ``--x`` (a flag a
framework may hand to the diffusion server too is not counted). Only SGL009 is compared (the
parser's own verdict).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "startup"))

from parser_choices import parser_choices  # noqa: E402

from sglang_lint.catalog.frameworks import project_frameworks  # noqa: E402
from sglang_lint.launch.prefixes import file_prefixes, shipped_prefixes  # noqa: E402

SUFFIXES = {".sh", ".bash", ".md", ".yaml", ".yml", ".py", ".slurm"}
LAUNCH = re.compile(r"sglang\.launch_server\b|\bsglang\s+serve\b")
FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)")
CODES = ("SGL006", "SGL007", "SGL008", "SGL009")
LINTER_SRC = os.environ.get("MEASURE_LINTER_SRC")  # the src folder of the linter to measure (default: this one)


def commands(path: Path):
    """(line of each flag, flag) of each launch command in the file, found by text alone."""
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    python = path.suffix == ".py"
    found, i = [], 0
    while i < len(lines):
        match = LAUNCH.search(lines[i])
        if not match:
            i += 1
            continue
        flags, j, depth = [], i, 0
        start = match.end()
        while j < len(lines):
            text = lines[j][start:] if j == i else lines[j]
            code = text.split("#", 1)[0] if not python else text
            flags += [(j + 1, f) for f in FLAG.findall(code)]
            if python:
                depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
                if depth <= 0 and j > i or depth < 0:
                    break
                if j == i and depth == 0:
                    break
            elif not lines[j].rstrip().endswith("\\"):
                break
            j += 1
        found.append(flags)
        i = j + 1
    return found


def _code_lines(path: Path):
    """(number, line) of a file's code: a Markdown file's fenced blocks, any other file whole."""
    fenced = path.suffix != ".md"
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").split("\n"), 1):
        if path.suffix == ".md" and line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced:
            yield number, line


def _flag_of(message: str) -> str:
    """The server flag an SGL009 message is about (a framework's prefix taken off)."""
    flag = re.search(r"launch flag (--\S+?):", message).group(1)
    for prefix in shipped_prefixes():
        if flag.startswith(prefix.text) and f"passes {prefix.text}*" in message:
            return prefix.server_flag(flag)
    return flag


def rejected(flag: str, options: set[str]) -> bool:
    name = flag.split("=", 1)[0]
    if name in options:
        return False
    return sum(o.startswith(name) for o in options) != 1


def lint(project: Path, release: str | None) -> tuple[str, list[tuple[str, int, str, str]]]:
    args = [sys.executable, "-m", "sglang_lint", "--no-cache", "--verbose", "--select", ",".join(CODES)]
    if release:
        args += ["--sglang-version", release]
    env = dict(os.environ, PYTHONPATH=LINTER_SRC) if LINTER_SRC else None  # another checkout's linter
    done = subprocess.run([*args, "."], cwd=project, capture_output=True, text=True, env=env)
    taken = re.search(r"judged against (?:sglang )?(\S+?)[: ]", done.stderr)  # "0.5.10", "0.5.2..0.5.6", "the"
    findings = []
    for line in done.stdout.splitlines():
        path, number, _column, rest = line.split(":", 3)
        findings.append((str(Path(path)), int(number), rest.split()[0], rest.strip()))
    return (release or (taken.group(1) if taken else "0.5.23")), findings


def measure(project: Path, release: str | None) -> dict:
    release, findings = lint(project, release)
    releases = ["0.5.23"] if release == "the" else release.split("..")  # a range: its two ends
    parsers = [{f for action in parser_choices(r)["actions"].values() for f in action["flags"]} for r in releases]
    expected = set()
    total = 0
    for path in sorted(p for p in project.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        for flags in commands(path):
            for line, flag in flags:
                total += 1
                if all(rejected(flag, options) for options in parsers):
                    expected.add((str(path.relative_to(project)), line, flag.split("=", 1)[0]))
    prefixed = 0
    for prefix in file_prefixes([], (), project_frameworks(str(project / "."))):
        if prefix.backend:
            continue  # (the diffusion server's flags: not this parser's to judge)
        withheld = {"--" + name.replace("_", "-") for name in prefix.withheld}
        for path in sorted(p for p in project.rglob("*") if p.suffix in SUFFIXES - {".py"} and p.is_file()):
            for number, line in _code_lines(path):
                for flag in FLAG.findall(line.split("#", 1)[0]):
                    if not flag.startswith(prefix.text) or flag in prefix.own or len(flag) <= len(prefix.text):
                        continue
                    server = prefix.server_flag(flag)
                    if server in withheld:
                        continue
                    prefixed += 1
                    if all(rejected(server, options) for options in parsers):
                        expected.add((str(path.relative_to(project)), number, flag))
    reported = {(f, n) for f, n, code, _ in findings if code == "SGL009"}
    found = {e for e in expected if (e[0], e[1]) in reported}
    beyond = [f for f in findings if f[2] == "SGL009" and not any((f[0], f[1]) == (e[0], e[1]) for e in expected)]
    # found where the text scan sees no launch (a Python list built elsewhere): the parser's verdict still
    wrong = [f for f in beyond if not all(rejected(_flag_of(f[3]), options) for options in parsers)]
    return {"project": project.name, "release": release, "flags": total, "prefixed flags": prefixed,
            "rejected": len(expected),
            "found": len(found), "missed": sorted(expected - found), "found beyond the scan": len(beyond) - len(wrong),
            "false alarms": wrong,
            "other findings": [f for f in findings if f[2] != "SGL009"]}


def main() -> None:
    for spec in sys.argv[1:]:
        folder, _, release = spec.partition("=")
        print(json.dumps(measure(Path(folder).resolve(), release or None), indent=1))


if __name__ == "__main__":
    main()
