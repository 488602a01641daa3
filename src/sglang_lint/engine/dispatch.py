"""Dispatch: each recorded site is matched against the rule-table entries filed under its
name, and the entry's check kind runs on it.

A function or class target matches by qualified name, a method or attribute by name (with
receiver evidence where the rule asks for it). A check that raises is reported once per rule
(SGL900, see engine/diagnostics.py) and the other rules go on. Checks that follow values through
wrappers queue the wrapper's own calls (engine/reach.py), each wrapper once per rule.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import Callable

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.guards import GuardCollector, deliberate
from sglang_lint.analysis.site import Site
from sglang_lint.analysis.sites import SiteCollector
from sglang_lint.analysis.standing import builder_program, shrunk
from sglang_lint.catalog.rules import Target
from sglang_lint.checks.base import conditions_hold, omitted_at
from sglang_lint.core.model import Fix
from sglang_lint.engine.precedence import Place, place, preempted
from sglang_lint.engine.reach import calls_of, field_sites, parameter_wrapper, subclass_calls, wrapper_at
from sglang_lint.engine.ruletable import Entry, RuleSet


@dataclass(frozen=True)
class Reported:
    """A finding of one rule at one site, before positions are known."""

    node: cst.CSTNode
    code: str
    message: str
    fix: Fix | None
    call: cst.CSTNode  # the call (or class) it is in: where a ``# noqa`` also counts
    severity: str = "error"
    place: Place | None = None  # where the rule's raise is in sglang (engine/precedence.py)


@dataclass(frozen=True)
class Job:
    """One check to run: an entry's check on a site, as a call of ``target`` (the entry's own,
    or a wrapper's); ``via`` says how the value got there."""

    entry: Entry
    target: Target | None
    site: Site
    via: str | None = None


class Dispatcher:
    def __init__(self, ruleset: RuleSet, sites: SiteCollector, guards: GuardCollector):
        self.ruleset = ruleset
        self.sites = sites
        self.guards = guards
        self.reported: list[Reported] = []
        self.crashed: dict[str, str] = {}  # rule code -> the error its check raised
        self._followed: set[tuple[int, str | None, str]] = set()  # (wrapper, argument, rule code)

    def run(self) -> None:
        # Calls of the rules' targets; then, through wrappers defined in this file, calls of
        # those wrappers (transitively, each wrapper once per rule).
        queue: deque[Job] = deque()
        sites = self.sites
        aliased = [(name, site) for local, name in sites.aliases.items() for site in sites.calls_by_name.get(local, ())]
        for name, site in sites.call_sites + aliased:
            table = self.ruleset.attributes if isinstance(site.node, cst.Attribute) else self.ruleset.calls
            for entry in table.get(name, ()):
                target = self._guarded(entry, effective_target, entry.target, site)
                if target is not None:
                    queue.append(Job(entry, target, site))
        if self.ruleset.instances:
            queue.extend(self._instance_calls())
        while queue:
            job = queue.popleft()
            self._guarded(job.entry, self._check, job)
            if job.entry.kind.through_wrappers or job.entry.kind.wrappers is not None:
                queue.extend(self._guarded(job.entry, self._wrapper_jobs, job) or ())
        for site in sites.class_sites:
            for entry in self.ruleset.classes:
                self._guarded(entry, self._check, Job(entry, None, site))
            for entry in self.ruleset.fields:
                self._guarded(entry, self._check_fields, entry, site)
        if sites.launch_lists or sites.launch_steps:
            self._standing()
        self.reported = preempted(self.reported)  # what sglang raises first, of each call

    def _instance_calls(self) -> list[Job]:
        """``m(x)`` where ``m`` is a name bound once to a call of a class whose method runs when
        an instance is called (``forward`` of an ``nn.Module``): a call of that method, with
        ``m`` its receiver."""
        jobs = []
        for name, sites in self.sites.calls_by_name.items():
            if "." in name:
                continue
            for site in sites:
                made = site.model.constructor_call(site.node.func, site.scope)
                entries = made and self.ruleset.instances.get(site.model.qualify(made.func, site.scope) or "", ())
                if entries:
                    called = dataclasses.replace(site, receiver=site.node.func)
                    jobs += [Job(entry, entry.target, called) for entry in entries]
        return jobs

    def _guarded(self, entry: Entry, action: Callable, *args):
        """``action(*args)``, unless this entry's rule already crashed on the file; a crash is
        recorded under the rule."""
        code = entry.rule.code
        if code in self.crashed:
            return None
        try:
            return action(*args)
        except Exception as exc:  # a broken check must not stop the others
            self.crashed[code] = f"{type(exc).__name__}: {exc}"
            return None

    def _check(self, job: Job) -> None:
        entry, site = job.entry, job.site
        if entry.check.conditions and (job.via is not None or not conditions_hold(site, entry.check.conditions)):
            return  # sglang's guard runs only when other arguments pass their tests
        for finding in entry.kind.run(site, entry.rule, entry.check, job.target):
            if deliberate(self.guards, site):
                return
            self._found(entry, finding, f"{finding.message} ({job.via})" if job.via else finding.message, site.node)
        target = job.target
        if target is not None and target.omitted and job.via is None and omitted_at(site, target):
            if deliberate(self.guards, site):
                return
            summary = getattr(entry.check.params, "summary", "")
            prefix = "." if target.kind == "method" else ""
            message = f"{prefix}{target.display}(...): omitting `{target.argument or target.position}` fails: {summary}"
            self.reported.append(Reported(site.node, entry.rule.code, message, None, site.node,
                                          entry.rule.severity, place(entry.rule, entry.check)))

    def _found(self, entry: Entry, finding, message: str, call) -> None:
        """A check's finding reported under its rule, at the call it was found at."""
        self.reported.append(Reported(finding.node, entry.rule.code, message, finding.fix, call,
                                      finding.severity or entry.rule.severity, place(entry.rule, entry.check)))

    def _wrapper_jobs(self, job: Job) -> list[Job]:
        kind = job.entry.kind
        if kind.wrappers is not None:
            wrappers = [parameter_wrapper(job.target, job.site, name, takes, program)
                        for name, takes, program in kind.wrappers(job.site, job.entry.check, job.target)]
        else:
            wrappers = [wrapper_at(job.target, job.site)]
        jobs = []
        for wrapper in wrappers:
            if wrapper is None:
                continue
            key = (id(wrapper.function), wrapper.target.argument, wrapper.target.program, job.entry.rule.code)
            if key in self._followed:
                continue
            self._followed.add(key)
            jobs += [Job(job.entry, wrapper.target, call, wrapper.target.via) for call in calls_of(wrapper, self.sites)]
        return jobs

    def _standing(self) -> None:
        """Argv lists that start sglang's launcher, judged where they stand as a command line,
        and the words a builder class's method adds to one, as flags of its program
        (analysis/standing.py); a word a call that runs the list judged already is not said again."""
        sites = self.sites
        steps = [(site, attribute, added, program) for site, attribute, added in sites.launch_steps
                 if (program := builder_program(site.model, site.scope, attribute)) is not None]
        if not sites.launch_lists and not steps:
            return
        changed = shrunk(sites.model.module.code)
        # (a list no name holds may be changed under any: judged where the file changes none)
        launches = [(site, site.node, None) for site, _, name in sites.launch_lists
                    if (name not in changed if name is not None else not changed)]
        launches += [(site, added, program) for site, attribute, added, program in steps if attribute not in changed]
        said = {(r.code, _place(sites.model, r.node)) for r in self.reported}
        for entry in self.ruleset.standing:
            for site, words, program in launches:
                target = entry.target if program is None else dataclasses.replace(
                    entry.target, takes="flags", program=program)
                call = cst.Call(func=cst.Name(target.last_name), args=[cst.Arg(words)])
                standing = dataclasses.replace(site, node=call)
                for finding in self._guarded(entry, lambda: list(entry.kind.run(
                        standing, entry.rule, entry.check, target))) or ():
                    key = (entry.rule.code, _place(site.model, finding.node))
                    if key in said or deliberate(self.guards, site):
                        continue
                    said.add(key)
                    self._found(entry, finding, finding.message, site.node)

    def _check_fields(self, entry: Entry, site: Site) -> None:
        for target, field_site in field_sites(entry.target, site) + subclass_calls(entry.target, site, self.sites):
            self._check(Job(entry, target, field_site))


def _place(model, node) -> tuple:
    """Where a finding is (line, column), to tell one word said twice; a node the engine made
    up (a config field's call) is only itself."""
    try:
        where = model.position(node)
    except KeyError:
        return (id(node),)
    return where.start.line, where.start.column


def effective_target(target: Target, site: Site) -> Target | None:
    """The target as it applies at this site, or None when the site is not a call of it.

    Functions and classes match by qualified name; methods and attributes by name, with
    receiver evidence where the rule asks for it."""
    node = site.node
    model = site.model
    if site.partial is not None and model.qualify(site.partial.func, site.scope) != "functools.partial":
        return None
    if target.kind in ("function", "class"):
        if not isinstance(node, cst.Call):
            return None
        return target if model.qualify(node.func, site.scope) == target.name else None
    if target.kind == "method":
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return None
    elif not isinstance(node, cst.Attribute):
        return None
    # (a method of a subclass of the file that defines it again is not the rule's)
    method = target.name if target.kind == "method" else None
    wanted = frozenset(target.receivers)
    if wanted and not (model.instance_of(site.receiver, site.scope, wanted, method)
                       or target.on_class and model.names_class(site.receiver, site.scope, wanted, method)):
        return None
    return target
