"""The options of a lint run (``sglang-lint [check] [OPTIONS] [PATH ...]``), spelled as ruff and
flake8 users type them: one parser, read by the command (frontends/cli.py) and by the scripts
that need to know whether a command line names its own paths (scripts/lint-example)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Sequence

from sglang_lint.catalog.target import release_argument
from sglang_lint.core.version import __version__
from sglang_lint.frontends.output import FORMAT_SPELLINGS, FORMATS
from sglang_lint.frontends.subcommands import SUBCOMMANDS, subcommand

CODE_PREFIX = re.compile(r"^SGL[0-9]{0,4}$")


def code_prefixes(text: str) -> list[str]:
    prefixes = [part.strip().upper() for part in text.split(",") if part.strip()]
    for prefix in prefixes:
        if not CODE_PREFIX.match(prefix):
            raise argparse.ArgumentTypeError(f"{prefix!r} is not a code prefix like SGL or SGL001")
    return prefixes


def globs(text: str) -> list[str]:
    """``--exclude build/,gen_*.py``: comma-separated globs, as ruff and flake8 take them."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    if not found:
        raise argparse.ArgumentTypeError("expected comma-separated globs like build/,gen_*.py")
    return found


def output_format(text: str) -> str:
    """A format by its name here or by ruff's (``concise`` is the text format)."""
    name = FORMAT_SPELLINGS.get(text.strip().lower(), text.strip().lower())
    if name not in FORMATS:
        known = ", ".join([*FORMATS, *FORMAT_SPELLINGS])
        raise argparse.ArgumentTypeError(f"{text!r} is not an output format (known: {known})")
    return name


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sglang-lint",
        usage="sglang-lint [check] [OPTIONS] [PATH ...]\n       sglang-lint {rules,explain,server,catalog} ...",
        description="Find what makes an sglang launch or call fail, before it runs: launch flags, "
        "Engine(...) keywords, start-up checks, sampling parameters, API calls, judged against the "
        "sglang release the project pins.",
        epilog="subcommands:\n" + "".join(f"  {name:<10}{text}\n" for name, text in SUBCOMMANDS.items())
        + "\nA first word that names a file or folder here is linted as a path; `--rules`, `--explain`, "
        "`--server`, `--catalog` run the subcommand whatever is here.\n\nExit status: 0 no findings, "
        "1 findings (0 with --exit-zero), 2 a usage error or a file that could not be read or parsed.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .); - reads stdin")
    choosing = parser.add_argument_group("which rules")
    choosing.add_argument("--select", type=code_prefixes, default=None, metavar="CODES",
                          help="only these codes or prefixes, comma-separated (e.g. SGL001,SGL00)")
    choosing.add_argument("--ignore", type=code_prefixes, default=None, metavar="CODES",
                          help="skip these codes or prefixes, comma-separated")
    choosing.add_argument("--extend-select", type=code_prefixes, default=None, metavar="CODES",
                          help="codes or prefixes to add to the selection (the configuration's or --select's)")
    choosing.add_argument("--sglang-version", type=release_argument, default=None, metavar="X",
                          help="judge every file against this sglang release (default: the configuration's "
                          "sglang-version, else the installed sglang, else the project's pin, else its image; "
                          "see --verbose)")
    choosing.add_argument("--platform", default=None, metavar="NAME",
                          help="the platform the launches run on (cuda, rocm, npu, ...): judge the start-up "
                          "checks that depend on it (default: the configuration's platform, else none)")
    choosing.add_argument("--gpu", default=None, metavar="NAME",
                          help="the GPU the launches run on (H100, B200, MI300X, ...; an unknown name lists the "
                          "known ones): judge the start-up checks that depend on it (default: the "
                          "configuration's gpu)")

    files = parser.add_argument_group("which files")
    files.add_argument("--exclude", type=globs, default=None, metavar="GLOBS",
                       help="globs of paths not to lint, comma-separated, relative to the working folder; "
                       "replaces the configuration's exclude (folders of tools and environments are never walked)")
    files.add_argument("--extend-exclude", type=globs, default=None, metavar="GLOBS",
                       help="globs to exclude as well as the configuration's exclude (or --exclude)")
    files.add_argument("--respect-gitignore", action="store_true", default=None,
                       help="in a git work tree, do not walk into what git ignores (.gitignore, "
                       ".git/info/exclude, your global excludes file): the default")
    files.add_argument("--no-respect-gitignore", action="store_false", dest="respect_gitignore",
                       help="walk into what git ignores as well (a path named on the command line is always read)")
    files.add_argument("--config", type=Path, default=None, metavar="FILE",
                       help="the pyproject.toml to read [tool.sglang-lint] from (default: the nearest above the "
                       "path)")
    files.add_argument("--isolated", action="store_true", help="read no configuration file")
    files.add_argument("--stdin-filename", default=None, metavar="PATH",
                       help="the path to report (and to resolve relative imports) when reading stdin")

    report = parser.add_argument_group("output")
    report.add_argument("--format", "--output-format", dest="format", type=output_format, default="text",
                        metavar="FORMAT",
                        help="text (default; flake8's, ruff's concise), json, sarif (2.1.0) or github "
                        "(workflow annotations)")
    report.add_argument("-o", "--output-file", type=Path, default=None, metavar="FILE",
                        help="write the findings (or --diff's patch) to FILE instead of stdout")
    report.add_argument("--statistics", action="store_true", help="count the findings by code at the end")
    report.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (a usage error or a file that cannot be read "
                        "still exits 2)")
    talk = report.add_mutually_exclusive_group()
    talk.add_argument("-q", "--quiet", action="store_true",
                      help="print the findings and errors only: no warnings, no summary of fixes")
    talk.add_argument("-v", "--verbose", action="count", default=0,
                      help="say on stderr which sglang release(s) each project was judged against and why, "
                      "and how many files were parsed, skipped and why, or taken from the cache; given twice "
                      "(-vv), also each file and how far it went")

    fixing = parser.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true",
                        help="apply safe fixes in place (files), or print the fixed buffer (stdin)")
    fixing.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff, also apply fixes that are only the nearest spelling")
    fixing.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff and write nothing (exit 1 if there are any)")

    running = parser.add_argument_group("running")
    running.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                         help="worker processes for the files that must be parsed (default: one per core)")
    running.add_argument("--no-cache", action="store_true",
                         help="neither read nor write the result cache (nor the kept verdicts of launches)")
    running.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                         help="where the result cache lives (default: ~/.cache/sglang-lint/results)")
    parser.add_argument("--version", action="version", version=f"sglang-lint {__version__}")
    return parser


def names_paths(argv: Sequence[str]) -> bool:
    """Does this command line name what it runs on: a path (or ``-``), or a subcommand?
    (scripts/lint-example adds its example project only where it does not.)"""
    name, rest, _ = subcommand(list(argv))
    if name not in (None, "check"):
        return True
    try:
        known, _ = build_parser().parse_known_args(rest)
    except SystemExit:  # a usage error: the command itself says what
        return True
    return bool(known.paths)
