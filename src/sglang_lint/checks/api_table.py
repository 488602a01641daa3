"""sglang's public Python API as the signature rule reads it (``rules/derived/api.toml``, written
by ``catalog derive``): each callable's signatures with their releases, each class's releases
and those in which its methods are all known, and :func:`problems`, the one verdict on a call's
arguments against a signature, which the check and the call-site screen both ask."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sglang_lint.catalog.release_runs import JudgedReleases, Runs, in_runs
from sglang_lint.core.rulefile import Fields, read_toml


@dataclass(frozen=True)
class Signature:
    """What a callable takes: the names that may be passed by position (in order), those that
    may be passed by keyword, the required ones, and whether ``*args``/``**kwargs`` take the rest."""

    text: str
    positional: tuple[str, ...]
    keywords: frozenset[str]
    required: tuple[str, ...]
    required_keywords: tuple[str, ...]  # keyword-only without a default
    var_positional: bool
    var_keyword: bool


@lru_cache(maxsize=None)
def parse_signature(text: str) -> Signature:
    """``(a, b=..., /, c=..., *, d, **kw)`` as written in the table."""
    args = ast.parse(f"def f{text}: pass").body[0].args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return Signature(
        text=text,
        positional=tuple(a.arg for a in positional),
        keywords=frozenset(a.arg for a in [*args.args, *args.kwonlyargs]),
        required=tuple(a.arg for a, d in zip(positional, defaults) if d is None),
        required_keywords=tuple(a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None),
        var_positional=args.vararg is not None,
        var_keyword=args.kwarg is not None,
    )


@dataclass(frozen=True)
class Call:
    """What a call passes, as far as the file shows it: how many arguments by position, the
    keywords it certainly passes, and whether more may come (``*x``, an open ``**d``)."""

    positional: int
    keywords: tuple[str, ...]
    more_positional: bool = False
    more_keywords: bool = False


@dataclass(frozen=True)
class Problem:
    kind: str  # "keyword" | "positional" | "twice" | "missing"
    name: str | None = None  # the keyword or parameter
    count: int = 0


def problems(signature: Signature, call: Call) -> list[Problem]:
    """What Python's binding of ``call`` to ``signature`` raises ``TypeError`` on (empty: it binds)."""
    found = []
    if signature.var_positional and signature.var_keyword and not signature.positional and not signature.keywords:
        return found  # (*args, **kwargs): anything binds
    if not signature.var_positional and not call.more_positional and call.positional > len(signature.positional):
        found.append(Problem("positional", count=call.positional))
    filled = set(signature.positional[:call.positional])
    for keyword in call.keywords:
        if keyword in filled and keyword in signature.keywords:
            found.append(Problem("twice", keyword))
        elif keyword not in signature.keywords and not signature.var_keyword:
            found.append(Problem("keyword", keyword))
    if not call.more_positional and not call.more_keywords:
        given = filled | set(call.keywords)
        for name in (*signature.required, *signature.required_keywords):
            if name not in given:
                found.append(Problem("missing", name))
                break  # (Python names every missing one; the first says enough)
    return found


@dataclass(frozen=True)
class ApiTable(JudgedReleases):
    """The table as a project on ``releases`` judges calls (empty: the newest release)."""

    releases: tuple[str, ...]  # every release the table records, oldest first
    signatures: dict  # callable -> ((text, runs), ...)
    present: dict  # container -> runs
    closed: dict  # container -> runs
    modules: frozenset
    judged: tuple[str, ...] = ()

    def signature_at(self, name: str, release: str) -> str | None:
        return next((text for text, runs in self.signatures.get(name, ()) if in_runs(runs, release)), None)

    def closed_at(self, container: str, release: str) -> bool:
        return in_runs(self.closed.get(container, ()), release) and in_runs(self.present.get(container, ()), release)

    def change(self, name: str) -> str:
        """`` (added in sglang X)`` / `` (removed in sglang X)`` for a callable the judged
        releases lack but another release has."""
        return self.runs_change([run for _, runs in self.signatures.get(name, ()) for run in runs])

    def keyword_change(self, name: str, keyword: str) -> str:
        """When the callable took ``keyword``, where the judged releases' signatures do not."""
        return self.runs_change([run for text, runs in self.signatures.get(name, ()) for run in runs
                                 if keyword in parse_signature(text).keywords])


def load_api_table(path: Path) -> ApiTable:
    """The table file; a malformed one is an error naming the file and the field."""
    table = Fields(read_toml(path), path)
    releases = tuple(table.strings("releases"))
    for entry in table.subs("entry_point", required=False):
        entry.any("function", required=False), entry.any("class", required=False)
        entry.any("method", required=False), entry.any("receivers", required=False)
    signatures: dict[str, list] = {}
    for entry in table.subs("callable", required=False):
        name, text = entry.str("name"), entry.str("signature")
        try:
            parse_signature(text)
        except SyntaxError:
            raise entry.error("signature", f"{text!r} is not a parameter list as Python writes one") from None
        signatures.setdefault(name, []).append((text, _runs(entry, "releases")))
        entry.done()
    present, closed, modules = {}, {}, set()
    for entry in table.subs("container", required=False):
        name = entry.str("name")
        present[name] = _runs(entry, "releases")
        if entry.table.get("closed") is not None:
            closed[name] = _runs(entry, "closed")
        if entry.bool("module", required=False):
            modules.add(name)
        entry.strings("defined", required=False)
        entry.done()
    table.done()
    return ApiTable(releases, {k: tuple(v) for k, v in signatures.items()}, present, closed, frozenset(modules))


def _runs(entry: Fields, key: str) -> Runs:
    value = entry.any(key)
    if not isinstance(value, list) or not all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
                                              for r in value):
        raise entry.error(key, "must be a list of [since, until] pairs of release names")
    return tuple((since, until) for since, until in value)
