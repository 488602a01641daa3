"""``sglang-lint``: lint files and folders, list the rules.

Exit status: 0 clean, 1 findings, 2 usage error or a file that could not be read or parsed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Iterator, Sequence

from sglang_lint import __version__
from sglang_lint.catalog import RuleFileError, default_rules
from sglang_lint.engine import RuleSet, SourceError, default_ruleset, lint

# Folders never walked into (a path named on the command line is always linted).
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "site-packages",
        "__pypackages__", ".eggs", ".sglang_lint_cache",
    }
)
CODE_PREFIX = re.compile(r"^SGL[0-9]{0,3}$")


class UsageError(Exception):
    pass


def code_prefixes(text: str) -> list[str]:
    prefixes = [part.strip().upper() for part in text.split(",") if part.strip()]
    for prefix in prefixes:
        if not CODE_PREFIX.match(prefix):
            raise argparse.ArgumentTypeError(f"{prefix!r} is not a code prefix like SGL or SGL001")
    return prefixes


def python_files(paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """(path, error) for every file to lint; folders are walked for ``*.py``."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(root, name), None
        elif os.path.exists(path):
            yield path, None
        else:
            yield path, "no such file or directory"


def list_rules(stream) -> int:
    for rule in default_rules():
        stream.write(f"{rule.code}  {rule.name:<32}  {rule.title}\n")
    return 0


def catalog_command(argv: Sequence[str], out, err) -> int:
    """``catalog derive`` / ``catalog verify``: the catalog against an sglang tree."""
    from sglang_lint import derive
    from sglang_lint.catalog import default_rules_dir, load_rules

    parser = argparse.ArgumentParser(prog="sglang-lint catalog", description="Derive or verify the rule catalog.")
    parser.add_argument("action", choices=["derive", "verify"])
    parser.add_argument(
        "--sglang", metavar="PATH", help="the folder holding the sglang package (default: the installed one)"
    )
    parser.add_argument(
        "--rules", metavar="DIR", type=Path, default=None, help="the rules folder (default: the shipped one)"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    rules_dir = args.rules or default_rules_dir()
    try:
        root = derive.locate_sglang(args.sglang)
    except FileNotFoundError as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    derivation = derive.derive_sites(root, index_raises=args.action == "verify")
    if args.action == "derive":
        written, skipped = derive.write_catalog(derivation, rules_dir)
        found = len(derivation.sites)
        out.write(f"sglang {derivation.version} at {root}: {found} raise sites guarded by a parameter\n")
        out.write(f"{written} rules written to {rules_dir / derive.DERIVED_DIR}\n")
        out.write(f"{sum(skipped.values())} skipped:\n")
        for reason, count in skipped.most_common():
            out.write(f"  {count:5d}  {reason}\n")
        return 0
    drift = derive.verify(list(load_rules([rules_dir])), derivation)
    for label, items in (("missing", drift.missing), ("changed", drift.changed), ("new", drift.new)):
        for item in items:
            out.write(f"{label}: {item}\n")
    out.write(
        f"sglang {derivation.version}: {len(drift.missing)} missing, {len(drift.changed)} changed, "
        f"{len(drift.new)} new\n"
    )
    return 1 if drift.any else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sglang-lint",
        description="Catch sglang's runtime errors at the call site. "
        "`sglang-lint rules` lists the rules.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .); - reads stdin")
    parser.add_argument("--select", type=code_prefixes, default=None, metavar="CODES",
                        help="only these codes or prefixes, comma-separated (e.g. SGL001,SGL00)")
    parser.add_argument("--ignore", type=code_prefixes, default=None, metavar="CODES",
                        help="skip these codes or prefixes, comma-separated")
    parser.add_argument("--stdin-filename", default=None, metavar="PATH",
                        help="the path to report (and to resolve relative imports) when reading stdin")
    parser.add_argument("--version", action="version", version=f"sglang-lint {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    out, err = sys.stdout, sys.stderr
    try:
        if argv[:1] == ["catalog"]:
            return catalog_command(argv[1:], out, err)
        if argv[:1] == ["rules"]:
            if len(argv) > 1:
                err.write("sglang-lint: error: `rules` takes no arguments\n")
                return 2
            return list_rules(out)
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
            return int(exc.code or 0)
        ruleset: RuleSet = default_ruleset().select(args.select, args.ignore)
    except RuleFileError as exc:
        err.write(f"sglang-lint: error: bad rule file: {exc}\n")
        return 2

    found = 0
    failed = 0
    paths = args.paths or ["."]
    for path, problem in _inputs(paths):
        display = args.stdin_filename if path == "-" and args.stdin_filename else path
        if problem is not None:
            err.write(f"{display}: error: {problem}\n")
            failed += 1
            continue
        try:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
            diagnostics = lint(data, display, ruleset)
        except OSError as exc:
            err.write(f"{display}: error: cannot read: {exc.strerror or exc}\n")
            failed += 1
            continue
        except SourceError as exc:
            where = f"{display}:{exc.line}:{exc.col + 1}" if exc.line else display
            err.write(f"{where}: error: {exc.message}\n")
            failed += 1
            continue
        except Exception as exc:  # a bug of ours: name the file, keep linting the others
            err.write(f"{display}: error: sglang-lint failed on this file ({type(exc).__name__}: {exc})\n")
            failed += 1
            continue
        for diagnostic in diagnostics:
            out.write(diagnostic.format(display) + "\n")
        found += len(diagnostics)
    out.flush()
    if failed:
        return 2
    return 1 if found else 0


def _inputs(paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    for path in paths:
        if path == "-":
            yield "-", None
        else:
            yield from python_files([path])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
