"""api-signature: a call of sglang's public Python API that does not bind to what the target
release's callable takes (``rules/derived/api.toml``): a keyword it has no parameter for, more
arguments by position than it takes, one argument given twice, a required one left out, or a
method its class does not have in that release. Python raises ``TypeError`` (or
``AttributeError``) there, often after minutes of loading a model.

A method is judged only on a receiver shown to be of its class (the receivers of its target);
a call whose ``*args``/``**kwargs`` the file does not show whole is judged on what it shows
(no missing argument is claimed then)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.analysis.built import dict_versions
from sglang_lint.checks.api_table import ApiTable, Call, Problem, load_api_table, parse_signature, problems
from sglang_lint.checks.base import CheckKind, rename_hint, target_trigger
from sglang_lint.core.model import Finding


MAX_LISTED = 8  # a signature's keywords are listed in the message up to this many


@dataclass(frozen=True)
class ApiSignatureCheck:
    table: ApiTable

    def for_releases(self, releases) -> "ApiSignatureCheck":
        return ApiSignatureCheck(self.table.for_releases(releases))


def parse(fields, targets):
    path = fields.path.parent / fields.str("table")
    if not path.is_file():
        raise fields.error("table", f"{path} does not exist (run `sglang-lint catalog derive`)")
    return ApiSignatureCheck(load_api_table(path))


def callable_of(target) -> str:
    """The table's name of what the target calls: a method under its class's public name (its
    first receiver), a function or class under its own."""
    return f"{target.receivers[0]}.{target.name}" if target.kind == "method" else target.name


def shown(name: str, target) -> str:
    parts = name.split(".")
    return ".".join(parts[-2:]) if target.kind == "method" else parts[-1]


def verdicts(table: ApiTable, name: str, call: Call) -> list[list[Problem]] | None:
    """For each judged release, what the call does wrong there (``Problem("absent")``: the
    callable is not there and its class says so); None where some release takes the call."""
    owner = name.rpartition(".")[0]
    found = []
    for release in table.targets:
        text = table.signature_at(name, release)
        if text is None:
            if not table.closed_at(owner, release) or owner in table.modules:
                return None
            found.append([Problem("absent")])
            continue
        wrong = problems(parse_signature(text), call)
        if not wrong:
            return None
        found.append(wrong)
    return found or None


def _call_of(site) -> tuple[Call, dict]:
    """What the call passes, and the node each keyword is written at."""
    positional, keywords, where = 0, [], {}
    more_positional = more_keywords = False
    first_extra = []
    for arg in site.node.args:
        if arg.star == "*":
            more_positional = True
        elif arg.star == "**":
            versions = dict_versions(site.model, arg.value, site.scope, site.where)
            if not versions or any(v.open for v in versions):
                more_keywords = True
            every = [{key for key, entry in v.entries.items() if entry.certain} for v in versions]
            sure = set.intersection(*every) if every else set()
            if any(set(v.entries) != sure for v in versions):
                more_keywords = True
            for key in sorted(sure):
                keywords.append(key)
                where.setdefault(key, versions[0].entries[key].key_node)
        elif arg.keyword is not None:
            keywords.append(arg.keyword.value)
            where.setdefault(arg.keyword.value, arg.keyword)
        else:
            positional += 1
            first_extra.append(arg.value)
    where[None] = first_extra
    return Call(positional, tuple(keywords), more_positional, more_keywords), where


def run(site, rule, check, target):
    if site.partial is not None:
        return  # (functools.partial splits the arguments between two calls)
    table: ApiTable = check.params.table
    name = callable_of(target)
    call, where = _call_of(site)
    found = verdicts(table, name, call)
    if found is None:
        return
    common = [p for p in found[-1] if all(p in wrong for wrong in found)] or found[-1][:1]
    label = shown(name, target)
    newest = table.targets[-1]
    for problem in common:
        yield _finding(site, table, name, label, problem, where, newest)


def _finding(site, table: ApiTable, name: str, label: str, problem: Problem, where: dict, newest: str) -> Finding:
    version = table.version
    if problem.kind == "absent":
        func = site.node.func
        return Finding(func.attr if hasattr(func, "attr") else func,
                       f"{label}() is not in sglang {version}{table.change(name)}: calling it raises AttributeError")
    signature = parse_signature(table.signature_at(name, newest))
    if problem.kind == "keyword":
        node = where.get(problem.name)
        hint, fix = rename_hint(problem.name, sorted(signature.keywords), node)
        change = table.keyword_change(name, problem.name)
        takes = [*(p for p in signature.positional if p in signature.keywords),
                 *sorted(signature.keywords - set(signature.positional))]
        listed = f"; it takes {', '.join(takes)}" if not hint and 0 < len(takes) <= MAX_LISTED else ""
        return Finding(node or site.node, f"{label}() takes no keyword {problem.name!r} in sglang {version}"
                                          f"{change}{hint}{listed}", fix)
    if problem.kind == "twice":
        return Finding(where.get(problem.name) or site.node,
                       f"{label}() gets {problem.name!r} twice, by position and by keyword: TypeError")
    if problem.kind == "positional":
        extra = where[None][len(signature.positional)] if len(where[None]) > len(signature.positional) else site.node
        most = len(signature.positional)
        return Finding(extra, f"{label}() takes {most} argument{'s' if most != 1 else ''} by position in sglang "
                              f"{version}, {problem.count} given")
    return Finding(site.node, f"{label}() is missing its argument {problem.name!r} (required in sglang {version})")


def _screen(table: ApiTable, name: str):
    """A call may fail where its written arguments (``**d`` and ``*x`` as anything) do not
    bind in the judged releases, or its callable is not there."""

    def may_fail(call: ast.Call, facts) -> bool:
        if any(k.arg is None for k in call.keywords):
            return True  # (a ** dict: its keys are the engine's to read)
        written = Call(sum(not isinstance(a, ast.Starred) for a in call.args),
                       tuple(k.arg for k in call.keywords if k.arg is not None),
                       any(isinstance(a, ast.Starred) for a in call.args))
        return verdicts(table, name, written) is not None

    return may_fail


def triggers(check):
    table: ApiTable = check.params.table
    return [target_trigger(target, screen=_screen(table, callable_of(target))) for target in check.targets]


FIX_SAFETY = ("safe/unsafe fix: a misspelt keyword renamed to the real one: safe where they differ only by case, "
              "'-'/'_' or as a prefix (`sglang-lint --fix`), unsafe where it is only the unique nearest spelling "
              "(`--fix --unsafe-fixes`)")
KIND = CheckKind(name="api-signature", site="call", parse=parse, run=run, triggers=triggers,
                 fix_safety=lambda check: FIX_SAFETY)
