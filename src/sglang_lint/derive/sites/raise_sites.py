"""The raise sites of a whole tree at once (:func:`derive_sites` gives the
:class:`Derivation`): each function's (:mod:`.guarded_raises`), the method names several
classes define counted, one rule per function, parameter and kind, and the wrappers that
pass a constrained parameter on unchanged (:mod:`.passthrough`); with them the release's
other facts the groups below derive (its server arguments, launchers, commands, scripts) and
its fails-when paths.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from pathlib import Path

from sglang_lint.derive.commands.subcommands import read_commands
from sglang_lint.derive.server_args.deprecations import deprecated_flags, deprecated_values
from sglang_lint.derive.sites.drift_index import read_callables, raises_by_function
from sglang_lint.derive.sites.guarded_raises import GuardedRaise, analyse_function
from sglang_lint.derive.sites.passthrough import passthrough
from sglang_lint.derive.source.exports import package_exports
from sglang_lint.derive.sites.fails_when.rules import derive_paths
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.server_args.keyword_launchers import keyword_launchers
from sglang_lint.derive.commands.launchers import launch_entry_points
from sglang_lint.derive.reading.lookups import Registries
from sglang_lint.derive.commands.scripts import tree_scripts
from sglang_lint.derive.server_args.fields import (
    ServerField,
    derive_server_fields,
    manual_flags,
    server_argument_trees,
    server_args_text,
)
from sglang_lint.derive.source.tree import LazyTree, Module, method_owners, no_gc, read_modules, sglang_version


@dataclass
class Derivation:
    version: str
    sites: list[GuardedRaise]
    raises: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # for verify
    server_fields: list[ServerField] = field(default_factory=list)
    manual_flags: list[str] = field(default_factory=list)
    deprecated_flags: dict = field(default_factory=dict)  # flag -> deprecations.DeprecatedFlag
    deprecated_values: dict = field(default_factory=dict)  # field -> {old: (new, exact)}
    exports: dict = field(default_factory=dict)  # package.Name -> where it is bound (re-exports)
    launch_entry_points: list = field(default_factory=list)  # the functions that take launch flags
    keyword_launchers: list = field(default_factory=list)  # those whose ** keywords build ServerArgs
    commands: object = None  # the `sglang` command's launch subcommands (derive/commands/subcommands.py)
    scripts: tuple = ()  # the modules run with `python -m` and what they parse (derive/commands/scripts.py)
    # fails-when rules (derive/sites/fails_when/rules.py): the raise sites whose whole path is one expression
    paths: list = field(default_factory=list)
    path_skipped: Counter = field(default_factory=Counter)  # why the other raises got no fails-when rule
    # (kind, name) of a callable -> keyword arguments with which none of its fails-when checks fails
    path_passing: dict = field(default_factory=dict)
    callables: object = None  # for verify: the tree's bindings and signatures (derive/drift_targets.py)

    def server_args_text(self) -> str:
        return server_args_text(self.server_fields, self.manual_flags, self.version,
                                {flag: [(kind, "", "")] for flag, kind in self.deprecated_flags.items()},
                                self.deprecated_values)

    @property
    def rules(self) -> list[GuardedRaise]:
        return [s for s in self.sites if s.skipped is None]

    def skipped(self) -> Counter:
        """The skipped guards, by reason: those a fails-when rule checks are not skipped."""
        covered = {(p.module, p.function, p.line) for p in self.paths}
        return Counter(s.skipped for s in self.sites
                       if s.skipped is not None and (s.module, s.function, s.line) not in covered)


def derive_sites(root: Path, index_raises: bool = False, wheel: str | Path | None = None,
                 paths: bool = True, launches: bool = True) -> Derivation:
    """Every raise site of the tree under ``root`` (``wheel``: the file name of the wheel it was
    unpacked from, if known, names the release where the tree does not); ``paths=False`` leaves
    out the fails-when rules (two thirds of the work, which an older release's one-parameter
    rules, releases.release_rules, never read); ``launches=False`` the functions, commands and
    scripts that take launch flags (an eighth of the rest, which :func:`derive_to_verify`'s
    readers never read)."""
    with no_gc():
        modules = read_modules(root)
        hierarchy = Hierarchy(modules)  # (the raise sites' receivers and registries; the test base classes)
        derivation = Derivation(sglang_version(root, wheel), _derive_sites(modules, hierarchy))
        if paths:
            derivation.paths, derivation.path_skipped, derivation.path_passing = derive_paths(
                modules, derivation.rules)
        derivation.server_fields = derive_server_fields(modules)
        derivation.manual_flags = manual_flags(modules)
        arguments = server_argument_trees(modules)
        registered = frozenset(f for server in derivation.server_fields for f in server.flags)
        derivation.deprecated_flags = deprecated_flags(arguments, registered | frozenset(derivation.manual_flags)) \
            if arguments else {}
        derivation.deprecated_values = deprecated_values(arguments)
        derivation.exports = package_exports(modules)
        if launches:
            derivation.launch_entry_points = launch_entry_points(modules, hierarchy=hierarchy)
            derivation.keyword_launchers = keyword_launchers(LazyTree(root))
            derivation.commands = read_commands(modules)
            derivation.scripts = tree_scripts(root)
        if index_raises:
            derivation.raises, derivation.callables = raises_by_function(modules), read_callables(
                modules, derivation.exports)
        return derivation


def derive_to_verify(root: Path, wheel: str | Path | None = None) -> Derivation:
    """What ``catalog verify`` derives of a tree, all that drift.verify reads: the one-parameter
    sites, the raises of every function, the server arguments and the callables."""
    return derive_sites(root, index_raises=True, wheel=wheel, paths=False, launches=False)


def _derive_sites(modules: list[Module], hierarchy: Hierarchy) -> list[GuardedRaise]:
    name_owners = method_owners(modules)
    registries = Registries.of(modules, hierarchy)
    sites: list[GuardedRaise] = []
    for module in modules:
        top_level = set()
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                top_level.add(id(node))
                sites += analyse_function(module, node, None, name_owners, hierarchy, registries)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        top_level.add(id(item))
                        sites += analyse_function(module, item, node, name_owners, hierarchy, registries)
        for node in module.functions:
            if id(node) not in top_level:
                for site in analyse_function(module, node, None, name_owners, hierarchy, registries):
                    site.skipped = "a nested function: no name to call it by"
                    site.target = None
                    sites.append(site)
    _dedupe_keys(sites)
    passthrough(modules, sites)
    return sites


def _dedupe_keys(sites: list[GuardedRaise]) -> None:
    """Two rules from one function, parameter and kind (rare): keep the first."""
    seen = set()
    for site in sites:
        if site.skipped is None:
            if site.key in seen:
                site.skipped = "a second guard of the same kind on the same parameter"
            seen.add(site.key)
