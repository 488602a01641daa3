"""Lint many files: the result cache first, then the files it does not know, spread over
``-j`` worker processes when there are enough of them to pay for the workers."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from sglang_lint.catalog.frameworks import project_frameworks
from sglang_lint.core import verdict_log
from sglang_lint.core.gcpolicy import keep_for_good
from sglang_lint.core.model import FileResult, SourceError
from sglang_lint.engine.lint import analyse
from sglang_lint.engine.ruletable import RuleSet, load_rule_file
from sglang_lint.frontends.cache import ResultCache, file_key
from sglang_lint.frontends.indexes import rule_index
from sglang_lint.launch.paths import is_launch_file
from sglang_lint.screen.prefilter import index_screen
from sglang_lint.text.pynames import module_name_for

FROM_CACHE = "from the cache"
MIN_FILES_PER_WORKER = 16  # below this, starting workers costs more than it saves


@dataclass
class Job:
    path: str  # what to read ("-": the bytes are given)
    display: str  # the name reported, and what the module name is taken from
    data: bytes | None = None


def lint_one(display: str, data: bytes, ruleset: RuleSet) -> FileResult:
    """The file's diagnostics; a source error for a file that cannot be decoded or parsed;
    a crash for a bug of ours (never cached)."""
    try:
        diagnostics, stage = analyse(data, display, ruleset)
    except SourceError as exc:
        return FileResult.source_error(exc)
    except Exception as exc:  # a bug of ours: name the file, keep linting the others
        return FileResult(FileResult.CRASH, message=f"sglang-lint failed on this file ({type(exc).__name__}: {exc})")
    return FileResult.ok(diagnostics, stage)


_WORKER_RULESET: RuleSet | None = None


def _start_worker(rule_files: tuple[str, ...] | None, screen: bool, releases: tuple[str, ...] = (),
                  project_targets: tuple = (), prefixes: tuple = (), verdicts: str | None = None,
                  machine=None) -> None:
    """Under ``spawn`` (no fork), load the same rule files again in the worker, narrowed to
    the same sglang releases, with the same project helpers, configured prefixes and declared
    machine, keeping verdicts where the parent does."""
    global _WORKER_RULESET
    verdict_log.keep_in(verdicts)
    if rule_files is not None:
        rules = [load_rule_file(Path(path)) for path in rule_files]
        _WORKER_RULESET = RuleSet(rules, screen, (), project_targets).for_releases(releases).with_prefixes(
            prefixes).on_machine(machine)


def _work(item: tuple) -> tuple[FileResult, bool]:
    return _lint_item(item, _WORKER_RULESET)


def _lint_item(item: tuple, ruleset: RuleSet) -> tuple[FileResult, bool]:
    """:func:`lint_one` of a file to lint (display, path, its bytes where they were given, else
    None: read here, and the stamp of the first reading), and whether the bytes linted are
    those the result is to be kept under (a file changed since is linted, not kept)."""
    display, path, data, stamp = item
    if data is not None:
        return lint_one(display, data, ruleset), True
    try:
        data, again = _read(path)
    except OSError as exc:
        return FileResult(FileResult.UNREADABLE, message=f"cannot read: {exc.strerror or exc}"), False
    return lint_one(display, data, ruleset), again == stamp


def _read(path: str) -> tuple[bytes, tuple]:
    """The file's bytes, and its size and change time as it was read."""
    with open(path, "rb") as stream:
        status = os.fstat(stream.fileno())
        return stream.read(), (status.st_size, status.st_mtime_ns)


def lint_jobs(
    jobs: Sequence[Job], ruleset: RuleSet, cache: ResultCache | None, workers: int, releases: Sequence[str] = ()
) -> list[FileResult]:
    """One result per job, in order: those of :func:`lint_one`, or an unreadable file.
    ``releases``: those ``ruleset`` was narrowed to (``for_releases``), for spawned workers.

    A file is read twice: once for its cache key and the rules its text triggers, and again
    where it is linted (the system keeps it, and a tree's text is not held at once)."""
    global _WORKER_RULESET
    results: list[FileResult | None] = [None] * len(jobs)
    todo: list[tuple[int, bytes | None, tuple]] = []  # (job, cache key, the stamp of its reading)
    triggers = Triggers(ruleset)
    for index, job in enumerate(jobs):
        data, stamp = job.data, None
        if data is None:
            try:
                data, stamp = _read(job.path)
            except OSError as exc:
                results[index] = FileResult(FileResult.UNREADABLE, message=f"cannot read: {exc.strerror or exc}")
                continue
        key = file_key(data, _keyed(job.display, data)) if cache is not None else None
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            results[index] = dataclasses.replace(cached, stage=FROM_CACHE) if cached.status == FileResult.OK else cached
            continue
        triggers.add(job.display, data)
        todo.append((index, key, stamp))

    items = [(jobs[index].display, jobs[index].path, jobs[index].data, stamp) for index, _, stamp in todo]
    if items:
        ruleset = triggers.ruleset()
        ruleset.compiled()  # read the rules once, here, not in each worker (nor at all when the cache knew every file)
        keep_for_good(collect=False)  # (nothing to free yet but what the imports left)
    workers = max(1, min(workers, len(items) // MIN_FILES_PER_WORKER))
    if workers > 1:
        fork = "fork" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if fork else "spawn")
        _WORKER_RULESET = ruleset
        rule_files = None if fork else tuple(str(rule.path) for rule in ruleset.rules)
        initargs = (rule_files, ruleset.screen, tuple(releases), ruleset.project_targets, ruleset.prefixes,
                    verdict_log.folder(), ruleset.machine)
        # Biggest files first, in small chunks: a worker left with one long chunk of big
        # files (sglang's models sit together) at the end could keep the others waiting.
        sizes = [len(item[2]) if item[2] is not None else item[3][0] for item in items]
        order = sorted(range(len(items)), key=lambda at: -sizes[at])
        with context.Pool(workers, _start_worker, initargs) as pool:
            done = pool.map(_work, [items[at] for at in order], chunksize=max(1, min(16, len(items) // (workers * 8))))
        outcomes = [None] * len(items)
        for at, outcome in zip(order, done):
            outcomes[at] = outcome
    else:
        outcomes = [_lint_item(item, ruleset) for item in items]
    for (index, key, _), (outcome, same) in zip(todo, outcomes):
        results[index] = outcome
        if cache is not None and same and outcome.cacheable:
            cache.put(key, outcome)
    return results


def _keyed(display: str, data: bytes) -> tuple:
    """What a file's result depends on besides its bytes and the rules: its module name, and for
    a launch file the frameworks its project is (whose prefixed flags it reads: catalog/frameworks.py)."""
    module = module_name_for(display)
    return (module, sorted(project_frameworks(display))) if is_launch_file(display, data[:256]) else module


def triggered(ruleset: RuleSet, items: Sequence[tuple[str, bytes]]) -> RuleSet:
    """The rule set narrowed to the rules these files trigger (:class:`Triggers`)."""
    triggers = Triggers(ruleset)
    for display, data in items:
        triggers.add(display, data)
    return triggers.ruleset()


class Triggers:
    """The rules a run's files trigger, gathered file by file (``RuleSet.only``): those whose
    triggers a Python file's text holds, and for a launch file (shell, Markdown, YAML) the
    rules that judge launch flags. The same findings as the whole set: a rule none of them
    triggers finds nothing in them."""

    def __init__(self, ruleset: RuleSet):
        self.whole = ruleset
        self.folders = ruleset.unread_folders
        self.index = self.screen = None  # (read with the first file: a run the cache answers needs neither)
        self.codes: set[str] = set()

    def add(self, display: str, data: bytes) -> None:
        if self.folders is None:
            return
        if self.index is None:
            self.index = rule_index(self.folders)
            self.screen = index_screen(self.index)
            # the project's launch helpers are targets of the launch rules, named by no trigger of the index
            if self.whole.project_targets:
                self.codes.update(self.index.launch_codes)
        if is_launch_file(display, data[:256]):  # (as engine/lint.py tells a launch file)
            self.codes.update(self.index.launch_codes)
        else:
            self.codes.update(self.screen.codes_for(data, module_name_for(display)[0]))

    def ruleset(self) -> RuleSet:
        """The rules the files added trigger (none added: the set as it is)."""
        return self.whole if self.index is None else self.whole.only(self.codes, self.index)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
