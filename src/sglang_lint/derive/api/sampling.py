"""The checks sglang runs on a request's sampling parameters, every release as one table
(``rules/derived/sampling.toml``): the keys ``SamplingParams`` takes, and each raise or assert
of its construction, ``normalize`` and ``verify`` that a request's literal parameters can
certainly reach, derived by the start-up run (derive/startup/run.py) over the class's fields as it
derives the server's validation over ServerArgs'.

sglang builds ``SamplingParams(**sampling_params)`` from the dict a request carries
(``Engine.generate(prompt, sampling_params={...})``, the ``/generate`` endpoint's JSON), then
calls ``normalize(tokenizer)`` and ``verify(vocab_size)``: an unknown key is a ``TypeError``,
a value out of range a ``ValueError``, both before anything is generated."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from sglang_lint.core.places import keep_file
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree
from sglang_lint.derive.startup.rules import Rule, site_rules
from sglang_lint.derive.startup.sequence import run_validation
from sglang_lint.derive.startup.table import row_rule, rule_row, table_history, table_text
from sglang_lint.derive.source.tree import LazyTree, Module, no_gc

SAMPLING_FORMAT = "v6"  # bump when the derivation changes what a release's rules hold
TABLE = "sampling.toml"
MODULE = "sglang.srt.sampling.sampling_params"
CLASS = "SamplingParams"
# What a request runs on its parameters, in order (the constructor is __init__ or, for a
# dataclass or struct, __post_init__).
ENTRY = ("__init__", "__post_init__", "normalize", "verify")
HEADER = (
    "# sglang's checks of a request's sampling parameters (SamplingParams(**params), then its",
    "# normalize and verify), one rule per raise or assert literal parameters can certainly reach:",
    "# `fails_when` over the keys of the dict, `defaults` the literal defaults of the keys it reads.",
    "# [fields]: the keys each release takes (another is a TypeError). A part several places read,",
    "# or a long one, is written once in [values] under a name made from its text. Read by SGL014.",
)


def tree_sampling(root: Path) -> tuple[list[Rule], list[str], int, tuple[str, ...]]:
    """One tree's sampling-parameter rules, why its other sites are none, how many sites, and
    the keys its ``SamplingParams`` takes (all empty: the tree has none)."""
    tree = LazyTree(root)
    module = tree.module(MODULE)
    cls = next((n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == CLASS), None) \
        if module is not None else None
    if cls is None:
        return [], [], 0, ()
    fields, defaults = _fields(cls)
    with no_gc():
        run = run_validation(_ByName(tree), MODULE, CLASS, ENTRY, fields, bind_constructor=True)
    if run is None:
        return [], [], 0, tuple(fields)
    rules, why, sites = site_rules(run, defaults)
    return rules, why, sites, tuple(fields)


def _fields(cls: ast.ClassDef) -> tuple[list[str], dict]:
    """The keys the class takes and their literal defaults: its ``__init__``'s parameters, or
    (a dataclass or struct) its annotated fields."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    defaults = {}
    if init is not None:
        args = init.args
        positional = args.args[1:]
        for arg, default in zip(reversed(positional), reversed(args.defaults)):
            if isinstance(default, ast.Constant):
                defaults[arg.arg] = default.value
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            if isinstance(default, ast.Constant):
                defaults[arg.arg] = default.value
        return [a.arg for a in (*positional, *args.kwonlyargs)], defaults
    fields = []
    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            fields.append(statement.target.id)
            if isinstance(statement.value, ast.Constant):
                defaults[statement.target.id] = statement.value.value
    return fields, defaults


class _ByName:
    """The tree's modules as the start-up run reads them: each looked up by name (``get``,
    ``in``, ``[]``) and parsed on first need. The run's scans over every module (a model's
    overrides, the platform's facts, methods found by name) are of ServerArgs' start-up and
    see no module here (``values()`` is empty): this run reads only the modules its methods
    lead to, and never parses the whole tree."""

    def __init__(self, tree: LazyTree):
        self.tree = tree

    def get(self, name: str, default=None) -> Module | None:
        found = self.tree.module(name)
        return found if found is not None else default

    def __getitem__(self, name: str) -> Module:
        found = self.tree.module(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: str) -> bool:
        return self.tree.module(name) is not None

    def values(self) -> tuple:
        return ()


def release_sampling(version: str) -> tuple:
    """A release's rules, skip reasons, sites and keys (tree_sampling), kept in the cache as JSON."""
    path = cache_dir() / "sampling" / f"{SAMPLING_FORMAT}-{version}.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    else:
        rules, why, count, fields = tree_sampling(fetch_tree(version))
        data = {"rules": [rule_row(r) for r in rules], "skipped": why, "sites": count, "fields": list(fields)}
        keep_file(path, json.dumps(data).encode())  # (whole or not at all: another worker may read it)
    rules = [row_rule(row) for row in data["rules"]]
    return rules, data["skipped"], data["sites"], tuple(data["fields"])


def write_sampling(rules: Path, releases: list[str]) -> Path:
    """derived/sampling.toml of these releases (each derived once, then read from the cache)."""
    return _write(rules, {release: release_sampling(release) for release in releases})


def merge_sampling(rules: Path, version: str, root: Path, alone: bool = False) -> Path:
    """Add the release ``version`` (its tree under ``root``) to derived/sampling.toml, the
    table's other releases as it records them (``alone``, or no table: that release only)."""
    history = {} if alone else sampling_history(rules) or {}
    history[version] = tree_sampling(root)
    return _write(rules, history)


def sampling_history(rules: Path) -> dict | None:
    """Each release of derived/sampling.toml as tree_sampling gave it; None where there is none."""
    return table_history(rules / "derived" / TABLE, HEADER)


def _write(rules: Path, per_release: dict) -> Path:
    path = rules / "derived" / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(table_text(per_release, HEADER), encoding="utf-8")
    return path
