"""``sglang-lint``: lint files and folders, list the rules.

Exit status: 0 clean, 1 findings (0 with --exit-zero), 2 usage error or a file that could not be
read or parsed. The options are frontends/options.py's.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Iterator, Sequence

from sglang_lint.analysis.source import decode_with_encoding
from sglang_lint.catalog.platforms import MachineError, declared_machine
from sglang_lint.catalog.target import TargetRelease
from sglang_lint.core import verdict_log
from sglang_lint.core.model import FileResult, SourceError
from sglang_lint.core.places import default_rules_dir
from sglang_lint.core.rulefile import RuleFileError
from sglang_lint.engine.fixes import WriteError, fix_bytes, write_atomically
from sglang_lint.engine.ruletable import RuleSet, default_rules
from sglang_lint.frontends import output
from sglang_lint.frontends.cache import ResultCache, default_cache_dir, ruleset_fingerprint
from sglang_lint.frontends.config import (
    Config, ConfigError, find_config, known_for, load_config, ruleset_for, target_for,
)
from sglang_lint.frontends.indexes import fingerprint as folders_print, new_run
from sglang_lint.frontends.gitignored import GitIgnored
from sglang_lint.frontends.inputs import Skipped, Walk
from sglang_lint.frontends.options import build_parser
from sglang_lint.frontends.runner import Job, default_workers, lint_jobs
from sglang_lint.frontends.subcommands import subcommand


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


def main(argv: Sequence[str] | None = None, *, new: bool = True) -> int:
    """The command. ``new=False``: the caller began this run (frontends/front.py), and what it
    read of the rule folders stands."""
    try:
        return _main(argv, new)
    except BrokenPipeError:  # ``sglang-lint rules | head``: the reader left, not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None, new: bool) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if new:
        new_run()  # (an edited rule file takes effect on the next run, in this process too)
    out, err = sys.stdout, sys.stderr
    try:
        name, argv, note = subcommand(argv)
        if note:
            err.write(note)
        if name == "catalog":
            from sglang_lint.frontends.catalog_command import catalog_command  # (the deriver: maintainers only)

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

    if args.output_file is not None:
        try:  # opened before anything is linted: a path that cannot be written is a usage error
            out = open(args.output_file, "w", encoding="utf-8")
        except OSError as exc:
            err.write(f"sglang-lint: error: --output-file {args.output_file}: {exc.strerror or exc}\n")
            return 2
    try:
        return _lint(args, config, ruleset, known, out, err)
    finally:
        if out is not sys.stdout:
            out.close()


def _lint(args, config: Config, ruleset: RuleSet, known, out, err) -> int:
    run = Run(args, ruleset, out, err, config)
    walk = Walk(config.excluded if config.exclusions else None,
                GitIgnored() if config.respect_gitignore else None)
    run.walk = walk
    jobs = []
    for path, problem in walk.files(args.paths or ["."]):
        display = args.stdin_filename if path == "-" and args.stdin_filename else path
        if path == "-" and args.stdin_filename and config.excluded(display):
            if args.fix or args.diff:
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
        self.file_stages: list[tuple[str, str]] = []  # (file, how far it went), for -vv
        self.collected: list = []  # (path, diagnostic) for the formats written at the end
        self.targets: Counter[TargetRelease] = Counter()  # files per release target
        self.rulesets: dict[tuple[str, ...], RuleSet] = {}  # the rule set of each release target
        self.given_back: set[int] = set()  # the stdin jobs (ids) whose buffer is printed (--fix -)
        self.walk: Walk | None = None  # what the walk left out, for --verbose
        self.talk = None if getattr(args, "quiet", False) else err  # warnings and summaries (-q: none)

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
            if target not in self.targets and target.newer_than_catalog and self.talk:
                self.talk.write(f"sglang-lint: warning: {target.reason}\n")
            self.targets[target] += 1
            groups.setdefault(target.releases, []).append(index)
        results: list = [None] * len(jobs)
        rulesets: list = [None] * len(jobs)
        caches = []
        for releases, indices in groups.items():
            ruleset = self.ruleset_for(TargetRelease(releases))
            cache = None
            if not self.args.no_cache:
                fingerprint = ruleset_fingerprint(ruleset, releases, folders_print)
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
        if self.talk:
            self.talk.write(f"{where}: warning: {problem}\n")

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
        if self.args.verbose > 1:
            self.file_stages.append((job.display, result.stage))
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
        for diagnostic in result.fixed if self.talk else ():
            self.talk.write(
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
            self.err.writelines(f"sglang-lint: {display}: {stage}\n" for display, stage in self.file_stages)
            self.err.writelines(f"sglang-lint: {line}\n" for line in self.left_out())
        if self.talk and self.mode == "diff":
            would = f"{_count(self.fixed, 'finding')} in {_count(self.fixed_files, 'file')}"
            self.talk.write(f"sglang-lint: would fix {would}, {self.found} remaining\n")
        elif self.talk and self.mode == "fix":
            self.talk.write(
                f"sglang-lint: fixed {_count(self.fixed, 'finding')} in {_count(self.fixed_files, 'file')}, "
                f"{self.found} remaining\n"
            )
        if self.errors:
            return 2
        if self.args.exit_zero:
            return 0
        # --diff: 1 when the patch is not empty or findings remain that it does not fix (ruff's
        # check --diff and gofmt -d exit 1 on a patch; a finding left is a failure as well)
        return 1 if self.found or (self.mode == "diff" and self.fixed) else 0

    def left_out(self) -> list[str]:
        """--verbose: what the walk did not read, and why."""
        walk, lines = self.walk, []
        if walk is None:
            return lines
        if walk.excluded:
            lines.append(f"{_count(len(walk.excluded), 'path')} excluded (exclude, extend-exclude): "
                         + _some(walk.excluded))
        git = walk.gitignored
        if git is None:
            lines.append("what git ignores is walked too (respect-gitignore is off)")
            return lines
        if git.skipped:
            lines.append(f"{_count(len(git.skipped), 'path')} git ignores not walked (respect-gitignore; "
                         f"--no-respect-gitignore walks them): " + _some(git.skipped))
        lines += [f"{folder}: .gitignore not read: {why}" for folder, why in git.unanswered.items()]
        return lines


def _configuration(args) -> Config:
    """``--config FILE``, else the nearest pyproject.toml with [tool.sglang-lint] above the
    first linted path (for stdin, above --stdin-filename), else none (``--isolated``: none);
    ``--platform``/``--gpu`` in place of its declaration, and the command line's exclusions and
    ``--[no-]respect-gitignore``, where given."""
    config = _configuration_file(args).with_command_line(args.exclude, args.extend_exclude, args.respect_gitignore)
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


def _some(paths: list[str], shown: int = 5) -> str:
    return ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more" if len(paths) > shown else "")


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
