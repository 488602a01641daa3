"""``sglang-lint``: lint files and folders, list the rules.

Exit status: 0 clean, 1 findings, 2 usage error or a file that could not be read or parsed.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Iterator, Sequence

from sglang_lint.core.version import __version__

from sglang_lint.analysis.source import decode_with_encoding
from sglang_lint.catalog.platforms import MachineError, declared_machine
from sglang_lint.catalog.target import TargetRelease, release_argument
from sglang_lint.core import verdict_log
from sglang_lint.core.model import FileResult, SourceError
from sglang_lint.core.places import default_rules_dir
from sglang_lint.core.rulefile import RuleFileError
from sglang_lint.engine.fixes import WriteError, fix_bytes, write_atomically
from sglang_lint.engine.ruletable import RuleSet, default_rules, load_rules
from sglang_lint.frontends import output
from sglang_lint.frontends.cache import ResultCache, default_cache_dir, ruleset_fingerprint
from sglang_lint.frontends.config import (
    Config, ConfigError, find_config, known_for, load_config, ruleset_for, target_for,
)
from sglang_lint.frontends.indexes import new_run
from sglang_lint.frontends.inputs import Skipped, inputs
from sglang_lint.frontends.runner import Job, default_workers, lint_jobs
from sglang_lint.frontends.subcommands import SUBCOMMANDS, subcommand

CODE_PREFIX = re.compile(r"^SGL[0-9]{0,4}$")


class UsageError(Exception):
    pass


def code_prefixes(text: str) -> list[str]:
    prefixes = [part.strip().upper() for part in text.split(",") if part.strip()]
    for prefix in prefixes:
        if not CODE_PREFIX.match(prefix):
            raise argparse.ArgumentTypeError(f"{prefix!r} is not a code prefix like SGL or SGL001")
    return prefixes


def list_rules(stream) -> int:
    for rule in default_rules():
        fix = rule.fix_safety.partition(":")[0] or "no fix"
        stream.write(f"{rule.code}  {rule.name:<32}  {fix:<15}  {rule.title}\n")
    return 0


def server_command(argv: Sequence[str], err) -> int:
    """``server``: the language server, over stdio (needs pygls: ``sglang-lint[server]``)."""
    if argv:
        err.write("sglang-lint: error: `server` takes no arguments (it speaks LSP on stdin/stdout)\n")
        return 2
    try:
        from sglang_lint.frontends.server import main as serve
    except ImportError as exc:
        err.write(f"sglang-lint: error: the language server needs pygls ({exc}); pip install 'sglang-lint[server]'\n")
        return 2
    return serve()


def explain_command(argv: Sequence[str], out, err) -> int:
    """``explain CODE [--markdown]``: one rule's docs."""
    from sglang_lint.frontends import docs

    parser = argparse.ArgumentParser(prog="sglang-lint explain", description="Print a rule's documentation.")
    parser.add_argument("code", help="a rule code, e.g. SGL001, or a rule name")
    parser.add_argument("--markdown", action="store_true", help="Markdown, as in docs/rules.md")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    wanted = args.code.strip()
    for rule in default_rules():
        if rule.code == wanted.upper() or rule.name == wanted:
            out.write(docs.rule_markdown(rule) if args.markdown else docs.rule_text(rule))
            return 0
    err.write(f"sglang-lint: error: no rule {wanted!r} (`sglang-lint rules` lists them)\n")
    return 2


def catalog_command(argv: Sequence[str], out, err) -> int:
    """``catalog derive`` / ``catalog verify``: the catalog against an sglang tree."""
    from sglang_lint.derive.drift import verify
    from sglang_lint.derive.sites import derive_sites
    from sglang_lint.derive.tree import UNKNOWN_VERSION, locate_sglang, sglang_version
    from sglang_lint.derive.writing import DERIVED_DIR, catalog_history, write_catalog, write_over_history

    parser = argparse.ArgumentParser(prog="sglang-lint catalog", description="Derive or verify the rule catalog.")
    parser.add_argument("action", choices=["derive", "verify", "docs"])
    parser.add_argument("--output", metavar="FILE", type=Path, default=None,
                        help="docs: write here (default: stdout); the repository keeps docs/rules.md")
    parser.add_argument(
        "--sglang", metavar="PATH", help="the folder holding the sglang package (default: the installed one)"
    )
    parser.add_argument(
        "--rules", metavar="DIR", type=Path, default=None, help="the rules folder (default: the shipped one)"
    )
    parser.add_argument(
        "--wheel", metavar="FILE", default=None,
        help="the wheel the tree was unpacked from: names the release where the tree has no "
        "sglang-*.dist-info and no sglang/_version.py",
    )
    parser.add_argument(
        "--release", metavar="X", default=None,
        help="instead of --sglang: the tree of sglang release X, fetched through pip into the cache "
        "(derive over a merged catalog merges a release newer than its newest into it)",
    )
    parser.add_argument(
        "--releases", metavar="SPEC", default=None,
        help="derive: merge these sglang releases (0.5.1..0.5.23, or 0.5.22,0.5.23), each fetched through pip "
        "into the cache; the rules come from the newest, with the release each starts in, and the "
        "server-argument table records the releases of every field, choice and flag",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    rules_dir = args.rules or default_rules_dir()
    if args.action == "docs":
        from sglang_lint.frontends.docs import catalog_markdown

        text = catalog_markdown(load_rules([rules_dir]))
        if args.output is None:
            out.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
        return 0
    if args.releases is not None:
        if args.action != "derive" or args.sglang or args.wheel or args.release:
            err.write("sglang-lint: error: --releases goes with `catalog derive` alone (it fetches each tree)\n")
            return 2
        return _derive_releases(args.releases, rules_dir, out, err)
    if args.release is not None and (args.sglang or args.wheel):
        err.write("sglang-lint: error: --release fetches its own tree: not with --sglang or --wheel\n")
        return 2
    try:
        root, wheel = _fetched(args.release) if args.release else (locate_sglang(args.sglang), args.wheel)
    except (FileNotFoundError, RuntimeError) as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    verifying = args.action == "verify"  # (verify compares no fails-when rule: their paths are not derived)
    # A catalog merged over releases keeps what it records of them: its newest release's tree
    # is written over it (each file as it was, on the tree it was made from), a newer release
    # is merged into it (derive/merge.py), an older one it merges changes nothing.
    history = catalog_history(rules_dir) if args.action == "derive" else None
    version = sglang_version(root, wheel)
    merging = None  # the catalog's releases, read back, where the tree's release is merged into them
    if history is not None and version != history.releases[-1]:
        from sglang_lint.derive import merge

        first, last = history.releases[0], history.releases[-1]
        if version in history.releases:
            out.write(f"sglang {version} is one of the {len(history.releases)} releases the catalog merges "
                      f"({first} to {last}), not its newest: nothing to write\n")
            return 0
        try:
            merge.release_to_add(version, history.releases)
            merging = merge.catalog_facts(rules_dir)
        except ValueError as exc:
            err.write(f"sglang-lint: error: {exc}\n")
            return 2
    derivation = derive_sites(root, index_raises=verifying, wheel=wheel, paths=not verifying)
    if args.action == "derive":
        try:
            if history is None and derivation.version != UNKNOWN_VERSION:  # (first: SGL013 reads its targets)
                from sglang_lint.derive.api_table import merge_api
                from sglang_lint.derive.sampling_table import merge_sampling

                merge_api(rules_dir, derivation.version, root, alone=True)
                merge_sampling(rules_dir, derivation.version, root, alone=True)
            if merging is not None:
                written, skipped = merge.merge_release(root, derivation, rules_dir, merging)
            elif history is not None:  # (its launch subcommands' table, merged too, stays as it is)
                written, skipped = write_over_history(derivation, rules_dir, history)
            else:
                written, skipped = write_catalog(derivation, rules_dir)
        except ValueError as exc:
            err.write(f"sglang-lint: error: {root}: {exc}\n")
            return 2
        if history is None:
            from sglang_lint.derive.serve import write_commands

            write_commands(rules_dir / DERIVED_DIR, {derivation.version: derivation.commands})
            if derivation.scripts:
                from sglang_lint.derive.scripts_table import write_scripts

                write_scripts(rules_dir / DERIVED_DIR, {derivation.version: derivation.scripts})
            from sglang_lint.derive.startup_table import merge_startup

            merge_startup(rules_dir, derivation.version, root, alone=True)
        if merging is not None and args.release:  # (a release from pip's index: its upload day is there)
            from sglang_lint.derive.release_dates import write_release_dates

            write_release_dates(rules_dir)
        if merging is not None:
            out.write(f"sglang {derivation.version} merged into the catalog of sglang {first} to {last}: "
                      f"{len(merging) + 1} releases ({first} to {derivation.version}); rules from "
                      f"{derivation.version}\n")
        found = len(derivation.sites)
        out.write(f"sglang {derivation.version} at {root}: {found} raise sites guarded by a parameter\n")
        out.write(f"{written} rules written to {rules_dir / DERIVED_DIR}\n")
        out.write(f"{sum(skipped.values())} skipped:\n")
        for reason, count in skipped.most_common():
            out.write(f"  {count:5d}  {reason}\n")
        return 0
    drift = verify(list(load_rules([rules_dir])), derivation)
    out.write("".join(line + "\n" for line in drift.report(derivation.version)))
    return 1 if drift.any else 0


def _fetched(release: str) -> tuple[Path, Path | None]:
    """``--release X``: its tree, fetched through pip into the cache, and the wheel it came from."""
    import subprocess

    from sglang_lint.derive.releases import cache_dir, fetch_tree

    try:
        root = fetch_tree(release)
    except (subprocess.CalledProcessError, OSError) as exc:
        raise RuntimeError(f"sglang {release} could not be fetched through pip ({exc})") from None
    return root, next((cache_dir() / "wheels").glob(f"sglang-{release}-*.whl"), None)


def _derive_releases(spec: str, rules_dir: Path, out, err) -> int:
    """``catalog derive --releases SPEC``: every release's tree (pip, cached), merged."""
    from sglang_lint.derive import releases as history
    from sglang_lint.derive.api_table import write_api
    from sglang_lint.derive.merge import release_facts, write_merged
    from sglang_lint.derive.release_dates import write_release_dates
    from sglang_lint.derive.sampling_table import write_sampling
    from sglang_lint.derive.sites import derive_sites
    from sglang_lint.derive.startup_table import write_startup
    from sglang_lint.derive.tree import UNKNOWN_VERSION
    from sglang_lint.derive.writing import DERIVED_DIR

    try:
        chosen = history.releases_in(spec, history.available_releases())
    except (ValueError, RuntimeError, OSError) as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    newest = chosen[-1]
    derivation = derive_sites(history.fetch_tree(newest))
    if derivation.version == UNKNOWN_VERSION:
        derivation.version = newest  # a wheel unpacked by us: its name says the release
    err.write("the public Python API of each release (cached after its first run)\n")
    write_api(rules_dir, chosen)  # (first: the signature rule reads its targets from it)
    write_sampling(rules_dir, chosen)
    facts = {}
    for release in chosen:
        err.write(f"sglang {release}: server arguments, launch subcommands and raise sites\n")
        facts[release] = release_facts(release, rules=release != newest)
    written, _ = write_merged(derivation, rules_dir, facts)
    err.write("start-up validation of each release (cached after its first run)\n")
    write_startup(rules_dir, chosen)
    write_release_dates(rules_dir)  # the day each release reached PyPI: it dates nightly images
    out.write(f"{len(chosen)} sglang releases merged ({chosen[0]} to {newest}); rules from {newest}\n")
    out.write(f"{written} rules written to {rules_dir / DERIVED_DIR}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sglang-lint",
        usage="sglang-lint [check] [OPTIONS] [PATH ...]\n       sglang-lint {rules,explain,server,catalog} ...",
        description="Find what makes an sglang launch or call fail, before it runs: launch flags, "
        "Engine(...) keywords, start-up checks, sampling parameters, API calls, judged against the "
        "sglang release the project pins.",
        epilog="subcommands:\n" + "".join(f"  {name:<10}{text}\n" for name, text in SUBCOMMANDS.items())
        + "\nA first word that names a file or folder here is linted as a path; `--rules`, `--explain`, "
        "`--server`, `--catalog` run the subcommand whatever is here.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .); - reads stdin")
    parser.add_argument("--select", type=code_prefixes, default=None, metavar="CODES",
                        help="only these codes or prefixes, comma-separated (e.g. SGL001,SGL00)")
    parser.add_argument("--ignore", type=code_prefixes, default=None, metavar="CODES",
                        help="skip these codes or prefixes, comma-separated")
    parser.add_argument("--extend-select", type=code_prefixes, default=None, metavar="CODES",
                        help="codes or prefixes to add to the selection (the configuration's or --select's)")
    parser.add_argument("--config", type=Path, default=None, metavar="FILE",
                        help="the pyproject.toml to read [tool.sglang-lint] from (default: the nearest above the path)")
    parser.add_argument("--isolated", action="store_true", help="read no configuration file")
    parser.add_argument("--sglang-version", type=release_argument, default=None, metavar="X",
                        help="judge every file against this sglang release (default: the configuration's "
                        "sglang-version, else the installed sglang, else the project's pin, else its image; "
                        "see --verbose)")
    parser.add_argument("--platform", default=None, metavar="NAME",
                        help="the platform the launches run on (cuda, rocm, npu, ...): judge the start-up checks "
                        "that depend on it (default: the configuration's platform, else none)")
    parser.add_argument("--gpu", default=None, metavar="NAME",
                        help="the GPU the launches run on (H100, B200, MI300X, ...; an unknown name lists the "
                        "known ones): judge the start-up checks that depend on it (default: the configuration's gpu)")
    parser.add_argument("--stdin-filename", default=None, metavar="PATH",
                        help="the path to report (and to resolve relative imports) when reading stdin")
    parser.add_argument("--format", choices=output.FORMATS, default="text",
                        help="text (default; flake8's), json, sarif (2.1.0) or github (workflow annotations)")
    parser.add_argument("--statistics", action="store_true", help="count the findings by code at the end")
    parser.add_argument("--fix", action="store_true",
                        help="apply safe fixes in place (files), or print the fixed buffer (stdin)")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff, also apply fixes that are only the nearest spelling")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff and write nothing (exit 1 if there are any)")
    parser.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                        help="worker processes for the files that must be parsed (default: one per core)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the result cache (nor the kept verdicts of launches)")
    parser.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                        help="where the result cache lives (default: ~/.cache/sglang-lint/results)")
    parser.add_argument("--verbose", action="store_true",
                        help="say on stderr which sglang release(s) each project was judged against and why, "
                        "and how many files were parsed, skipped and why, or taken from the cache")
    parser.add_argument("--version", action="version", version=f"sglang-lint {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # ``sglang-lint rules | head``: the reader left, not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    new_run()  # (an edited rule file takes effect on the next run, in this process too)
    out, err = sys.stdout, sys.stderr
    try:
        name, argv, note = subcommand(argv)
        if note:
            err.write(note)
        if name == "catalog":
            return catalog_command(argv, out, err)
        if name == "server":
            return server_command(argv, err)
        if name == "explain":
            return explain_command(argv, out, err)
        if name == "rules":
            if argv:
                err.write("sglang-lint: error: `rules` takes no arguments\n")
                return 2
            return list_rules(out)
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
            if args.diff and args.format in ("json", "sarif"):
                parser.error(f"--diff prints a patch: it takes no --format {args.format}")
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
            return int(exc.code or 0)
        config = _configuration(args)
        ruleset = _ruleset(args, config, *_codes_needed(args, config))
        known = known_for(config)
    except ConfigError as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    except MachineError as exc:  # (--platform, --gpu)
        err.write(f"sglang-lint: error: --{exc.key}: {exc}\n")
        return 2
    except RuleFileError as exc:
        err.write(f"sglang-lint: error: bad rule file: {exc}\n")
        return 2

    run = Run(args, ruleset, out, err, config)
    jobs = []
    for path, problem in inputs(args.paths or ["."]):
        display = args.stdin_filename if path == "-" and args.stdin_filename else path
        if (path != "-" or args.stdin_filename) and config.excluded(display):
            if path == "-" and (args.fix or args.diff):
                data = sys.stdin.buffer.read()  # an excluded buffer comes back unchanged
                if args.fix:
                    sys.stdout.buffer.write(data)
            continue
        if isinstance(problem, Skipped):
            run.warn(display, problem)
        elif problem is not None:
            run.failed(display, problem)
        elif path == "-":
            jobs.append(Job(path, display, sys.stdin.buffer.read()))
        else:
            jobs.append(Job(path, display))
    targets = [target_for(config, _target_path(job, args), known, args.sglang_version) for job in jobs]
    try:
        run.ruleset = _with_project(run.ruleset, [job.path for job in jobs if job.data is None])
        results, rulesets, caches = run.lint_by_target(jobs, targets)
    except RuleFileError as exc:  # read when a file first needed it (validated with the index before)
        err.write(f"sglang-lint: error: bad rule file: {exc}\n")
        return 2
    for job, result, job_ruleset in zip(jobs, results, rulesets):
        try:
            run.file(job, result, job_ruleset)
        except BrokenPipeError:
            raise  # the reader of our output left (``| head``): stop, quietly (see main)
        except OSError as exc:
            run.failed(job.display, f"cannot read: {exc.strerror or exc}")
        except WriteError as exc:
            run.failed(job.display, str(exc))
        except SourceError as exc:
            run.source_error(job.display, exc.message, exc.line, exc.col)
        except Exception as exc:  # a bug of ours: name the file, keep linting the others
            run.failed(job.display, f"sglang-lint failed on this file ({type(exc).__name__}: {exc})")
        run.give_back(job)
    for cache in caches:
        cache.save()
    return run.finish()


class Run:
    """One command run over its files: lint, fix in place, or show the fixes as a diff."""

    def __init__(self, args, ruleset: RuleSet, out, err, config: Config | None = None):
        self.args = args
        self.config = config or Config()
        self.ruleset = ruleset
        self.out = out
        self.err = err
        self.mode = "diff" if args.diff else ("fix" if args.fix else "lint")
        self.found = 0  # findings left
        self.errors = 0
        self.fixed = 0
        self.fixed_files = 0
        self.stages: Counter[str] = Counter()
        self.collected: list = []  # (path, diagnostic) for the formats written at the end
        self.targets: Counter[TargetRelease] = Counter()  # files per release target
        self.rulesets: dict[tuple[str, ...], RuleSet] = {}  # the rule set of each release target
        self.given_back: set[int] = set()  # the stdin jobs (ids) whose buffer is printed (--fix -)

    def ruleset_for(self, target: TargetRelease) -> RuleSet:
        """The run's rules for the release(s) of ``target``, made once per distinct releases."""
        if target.releases not in self.rulesets:
            self.rulesets[target.releases] = self.ruleset.for_releases(target.releases)
        return self.rulesets[target.releases]

    def lint_by_target(self, jobs: list[Job], targets: list[TargetRelease]):
        """Each job's result and rule set, the files grouped by the release(s) they are judged
        against (one rule set and one result cache per group); the caches, to save."""
        groups: dict[tuple[str, ...], list[int]] = {}
        for index, target in enumerate(targets):
            if target not in self.targets and target.newer_than_catalog:
                self.err.write(f"sglang-lint: warning: {target.reason}\n")
            self.targets[target] += 1
            groups.setdefault(target.releases, []).append(index)
        results: list = [None] * len(jobs)
        rulesets: list = [None] * len(jobs)
        caches = []
        for releases, indices in groups.items():
            ruleset = self.ruleset_for(TargetRelease(releases))
            cache = None
            if not self.args.no_cache:
                fingerprint = ruleset_fingerprint(ruleset, releases)
                folder = self.args.cache_dir or default_cache_dir()
                cache = ResultCache(folder, fingerprint)
                caches.append(cache)
                verdict_log.keep_in(folder)  # (the launches' verdicts beside the results: cold with them)
            found = lint_jobs([jobs[i] for i in indices], ruleset, cache, self.args.jobs or default_workers(), releases)
            for index, result in zip(indices, found):
                results[index], rulesets[index] = result, ruleset
        return results, rulesets, caches

    def failed(self, where: str, problem: str) -> None:
        self.err.write(f"{where}: error: {problem}\n")
        self.errors += 1

    def warn(self, where: str, problem: str) -> None:
        self.err.write(f"{where}: warning: {problem}\n")

    def give_back(self, job: Job) -> None:
        """``--fix -``: an editor replaces its buffer with what we print, so a buffer we could
        not fix (it does not parse, a rule of ours failed) comes back unchanged."""
        if job.path == "-" and self.mode == "fix" and id(job) not in self.given_back:
            sys.stdout.buffer.write(job.data)
            self.given_back.add(id(job))

    def source_error(self, display: str, message: str, line: int, col: int) -> None:
        self.failed(f"{display}:{line}:{col + 1}" if line else display, message)

    def file(self, job: Job, result: FileResult, ruleset: RuleSet | None = None) -> None:
        if result.failed:
            self.failed(job.display, result.message)
            return
        if result.status == FileResult.SOURCE_ERROR:
            self.source_error(job.display, result.message, result.line, result.col)
            return
        diagnostics = list(result.diagnostics)
        self.stages[result.stage] += 1
        diagnostics = self.config.drop_ignored(job.display, diagnostics)
        fixable = [d for d in diagnostics if d.fix is not None and (d.fix.safe or self.args.unsafe_fixes)]
        if self.mode == "lint" or (not fixable and job.path != "-"):
            # (--diff: the patch alone on stdout; what it leaves is said on stderr)
            self.report(job.display, diagnostics, self.err if self.mode == "diff" else self.out)
            return
        data = job.data if job.data is not None else Path(job.path).read_bytes()
        self.fix(job.path, job.display, data, ruleset, diagnostics)
        if job.path == "-":
            self.given_back.add(id(job))

    def fix(self, path: str, display: str, data: bytes, ruleset: RuleSet | None = None,
            found: list | None = None) -> None:
        """Fix one file (``found``: its findings as linted, reported whole when the fixed
        file cannot be written)."""
        ruleset = ruleset if ruleset is not None else self.ruleset
        new_data, result = fix_bytes(data, display, ruleset, unsafe=self.args.unsafe_fixes)
        if self.mode == "diff":
            if result.changed:
                old_text, _ = decode_with_encoding(data)
                self.out.writelines(unified_diff(old_text, result.text, display))
                self.fixed += len(result.fixed)
                self.fixed_files += 1
            self.report(display, result.remaining, self.err)
            return
        if path == "-":
            # An editor sends the buffer and takes the fixed buffer back on stdout.
            sys.stdout.buffer.write(new_data)
            self.report(display, result.remaining, self.err)
        else:
            if result.changed:
                try:
                    write_atomically(path, new_data)
                except (OSError, WriteError) as exc:
                    # nothing was fixed: every finding stands, and the count says so
                    self.report(display, found if found is not None else result.fixed + result.remaining, self.out)
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    raise WriteError(f"cannot write: {reason}; nothing fixed") from exc
            self.report(display, result.remaining, self.out)
        for diagnostic in result.fixed:
            self.err.write(
                f"{display}:{diagnostic.line}:{diagnostic.col + 1}: {diagnostic.code} fixed "
                f"({diagnostic.fix.describe()})\n"
            )
        self.fixed += len(result.fixed)
        self.fixed_files += result.changed

    def report(self, display: str, diagnostics, stream) -> None:
        fmt = self.args.format
        for diagnostic in diagnostics:
            self.collected.append((display, diagnostic))
            if fmt == "github" and stream is self.out:
                stream.write(output.github(display, diagnostic) + "\n")
            elif fmt == "text" or stream is not self.out:
                stream.write(diagnostic.format(display) + "\n")
        self.found += len(diagnostics)

    def finish(self) -> int:
        if self.args.format == "json":
            self.out.write(output.render_json(self.collected))
        elif self.args.format == "sarif":
            self.out.write(output.render_sarif(self.collected, self.ruleset.rules))
        if self.args.statistics:
            stream = self.out if self.args.format in ("text", "github") else self.err
            for line in output.statistics(self.collected, self.ruleset.rules):
                stream.write(line + "\n")
        self.out.flush()
        if self.args.verbose:
            for target, files in self.targets.items():
                self.err.write(f"sglang-lint: {_count(files, 'file')} judged against {target.label}: {target.reason}\n")
            total = sum(self.stages.values())
            parts = ", ".join(f"{count} {stage}" for stage, count in self.stages.most_common())
            self.err.write(f"sglang-lint: {total} file{'' if total == 1 else 's'}: {parts}\n")
        if self.mode == "diff":
            would = f"{_count(self.fixed, 'finding')} in {_count(self.fixed_files, 'file')}"
            self.err.write(f"sglang-lint: would fix {would}, {self.found} remaining\n")
        elif self.mode == "fix":
            self.err.write(
                f"sglang-lint: fixed {_count(self.fixed, 'finding')} in {_count(self.fixed_files, 'file')}, "
                f"{self.found} remaining\n"
            )
        if self.errors:
            return 2
        # --diff: 1 when the patch is not empty or findings remain that it does not fix (ruff's
        # check --diff and gofmt -d exit 1 on a patch; a finding left is a failure as well)
        return 1 if self.found or (self.mode == "diff" and self.fixed) else 0


def _configuration(args) -> Config:
    """``--config FILE``, else the nearest pyproject.toml with [tool.sglang-lint] above the
    first linted path (for stdin, above --stdin-filename), else none (``--isolated``: none);
    ``--platform``/``--gpu`` in place of its declaration where given."""
    config = _configuration_file(args)
    if args.platform is None and args.gpu is None:
        return config
    return dataclasses.replace(config, machine=declared_machine(args.platform, args.gpu))


def _configuration_file(args) -> Config:
    if args.isolated:
        return Config()
    if args.config is not None:
        return load_config(args.config)
    paths = [p for p in (args.paths or ["."]) if p != "-"]
    start = args.stdin_filename if (not paths and args.stdin_filename) else (paths[0] if paths else ".")
    found = find_config(Path(start))
    return load_config(found) if found is not None else Config()


def _ruleset(args, config: Config, codes: frozenset[str] | None = None, index=None) -> RuleSet:
    """The configuration's rules, selected by the command line where it says, for every
    release (each file's are picked by :meth:`Run.ruleset_for`); ``codes``: only these (read
    through ``index``)."""
    return ruleset_for(config, args.select, args.ignore, args.extend_select, releases=(), codes=codes, index=index)


FEW_FILES = 16  # up to this many Python files named on the command line, only their rules are read


def _codes_needed(args, config: Config) -> tuple[frozenset[str] | None, object]:
    """For a run over a few Python files named one by one (an editor, a pre-commit hook on the
    changed files): the rules whose triggers they hold (catalog/index.py ``codes_for``), the only ones
    that can fire there; reading those instead of the whole catalog is most of a one-file run.
    None (read every rule) for anything else: a folder, stdin, a shell script, Markdown or
    YAML file, a file that cannot be read, more files. With the codes, the index that named
    them (the rules are found through it)."""
    from sglang_lint.frontends.indexes import rule_index
    from sglang_lint.screen.prefilter import index_screen
    from sglang_lint.text.pynames import module_name_for

    paths = args.paths or ["."]
    if len(paths) > FEW_FILES or any(not path.endswith(".py") or not os.path.isfile(path) for path in paths):
        return None, None
    index = rule_index([default_rules_dir(), *config.extra_rules])
    screen = index_screen(index)
    codes: set[str] = set()
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None, None
        codes |= screen.codes_for(data, module_name_for(path)[0])
    return frozenset(codes), index


def _with_project(ruleset: RuleSet, paths: list[str]) -> RuleSet:
    """The rule set with the project's own launch helpers (frontends/project.py) as targets."""
    if len(paths) < 2:
        return ruleset  # one file: its own helpers are followed by the engine
    from sglang_lint.frontends.indexes import rule_index
    from sglang_lint.frontends.project import project_targets  # only a run over several files needs it

    # sglang's entry points: read only when a file outside sglang is there
    return ruleset.with_project_targets(project_targets(paths, lambda: ruleset.launch_targets(rule_index)))


def _target_path(job: Job, args) -> str | None:
    """Where a file's release is looked for: its path (stdin: --stdin-filename, else the
    working folder)."""
    if job.path == "-":
        return args.stdin_filename
    return job.path


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def unified_diff(old: str, new: str, display: str) -> Iterator[str]:
    """A patch ``git apply`` takes (``a/``, ``b/`` for relative paths); a last line without a
    newline is marked as diff marks it."""
    relative = not os.path.isabs(display)
    if relative:
        display = Path(os.path.normpath(display)).as_posix()  # ./src/x.py: git apply refuses a/./src/x.py
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        f"a/{display}" if relative else display, f"b/{display}" if relative else display,
    )
    for line in lines:
        if line.endswith(("\n", "\r")):
            yield line
        else:
            yield line + "\n\\ No newline at end of file\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
