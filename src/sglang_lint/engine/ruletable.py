"""The rule table: the catalog loaded with the check kinds, and compiled for dispatch
(entries filed under the last name of the callee they target, and the prefilter's triggers).

``default_rules()`` / ``load_rules(dirs)`` are where rule files are read; everything that lints
goes through a :class:`RuleSet`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from sglang_lint.catalog import rules as catalog
from sglang_lint.catalog.index import RuleIndex, digest, fingerprint
from sglang_lint.catalog.rule_data import rule_tables
from sglang_lint.catalog.rules import Check, Rule, Target
from sglang_lint.checks import CHECK_KINDS
from sglang_lint.checks.base import CheckKind
from sglang_lint.core.places import cache_folder, default_rules_dir, keep_file, package_stamp, prune_kept
from sglang_lint.screen.calls import conditions_screen
from sglang_lint.screen.prefilter import Prefilter


def load_rule_file(path: Path) -> Rule:
    return catalog.load_rule_file(path, CHECK_KINDS)


def load_rules(dirs: Iterable[Path] | None = None) -> tuple[Rule, ...]:
    """Every rule file under the given folders (default: the shipped catalog), validated;
    read once and kept, parsed, in the cache (:func:`kept_rules_path`): about a second of
    every run over many files was parsing 5,000 rule files again."""
    folders = [Path(d) for d in ([default_rules_dir()] if dirs is None else dirs)]
    path = kept_rules_path(folders)
    rules = _read_kept(path)
    if rules is None:
        rules = catalog.load_rules(folders, CHECK_KINDS)
        _keep(path, rules)
    return rules


KEEP_RULE_SETS = 4  # kept parsed catalogs of other folders or versions, newest first


def kept_rules_path(folders: Sequence[Path]) -> str:
    """Where the folders' parsed rules are kept: named by the index's fingerprint of the rule
    files (index.fingerprint: every TOML file, the tool's version, Python's) and by every
    source file of this package (size and time), since the kept objects are what this code
    made of the files: an edited check kind reads them again."""
    key = digest("\n".join([fingerprint(folders), sys.version, package_stamp()]).encode("utf-8", "surrogateescape"))
    return os.path.join(cache_folder(), "tables", f"parsed-{key}.pickle")


def _read_kept(path: str) -> tuple[Rule, ...] | None:
    """The kept rules, or None (none kept, or unreadable: read the files again)."""
    import pickle

    try:
        with open(path, "rb") as stream:
            rules = pickle.load(stream)
    except Exception:  # missing, cut short, made by other classes: only costs a read of the files
        return None
    return rules if isinstance(rules, tuple) and all(isinstance(rule, Rule) for rule in rules) else None


def _keep(path: str, rules: tuple[Rule, ...]) -> None:
    import pickle

    try:
        blob = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a rule that cannot be pickled: it only costs time
        return
    if keep_file(path, blob):
        prune_kept(path, "parsed-", ".pickle", KEEP_RULE_SETS)


@lru_cache(maxsize=None)
def default_rules() -> tuple[Rule, ...]:
    return load_rules()


_BY_CODE: dict[tuple, Rule] = {}  # (the index's key, code) -> the rule, read once while its files stay the same
_EXPORTS: dict[tuple, dict] = {}  # (the index's key, folder) -> its exports tables (catalog.exports)


def rules_of(codes: Iterable[str], index: RuleIndex, dirs: Sequence[Path] | None = None) -> tuple[Rule, ...]:
    """Just these rules of the folders (default: the shipped catalog), each read from its own
    file, found through the folders' compiled index (catalog/index.py): a run over a few files
    loads only the rules whose triggers they hold, not some 1,500 files. The same rules as
    :func:`load_rules`."""
    folders = tuple(Path(d) for d in (dirs or [default_rules_dir()]))
    wanted = sorted(code for code in set(codes) if (index.key, code) not in _BY_CODE)
    for folder in folders:
        mine = [code for code in wanted if Path(index.paths[code]).is_relative_to(folder)]
        paths = [Path(index.paths[code]) for code in mine]
        if not mine:
            continue
        if (index.key, folder) not in _EXPORTS:
            _EXPORTS[index.key, folder] = catalog.exports(folder)
        tables = rule_tables(index, mine)  # (kept beside the index: no TOML parsed)
        for code, rule in zip(mine, catalog.load_rule_files(paths, folder, CHECK_KINDS, _EXPORTS[index.key, folder],
                                                            tables)):
            _BY_CODE[index.key, code] = rule
    return tuple(_BY_CODE[index.key, code] for code in sorted(set(codes)))


@dataclass(frozen=True)
class Entry:
    """One check of one rule, filed under one of its targets."""

    rule: Rule
    check: Check
    target: Target | None

    @property
    def kind(self) -> CheckKind:
        return CHECK_KINDS[self.check.kind]


class RuleSet:
    """The catalog compiled for dispatch: entries keyed by callee name, and the prefilter.

    Nothing is read or compiled until it is asked for: a run the result cache answers for
    every file needs only the set's identity (what rules it holds), never the rules."""

    def __init__(self, rules: Sequence[Rule] | Callable[[], Sequence[Rule]], screen: bool = True,
                 releases: Sequence[str] = (), project_targets: Sequence[Target] = (),
                 identity: tuple[tuple[str, ...], str] | None = None, keeps: Callable[[str], bool] | None = None,
                 prefixes: Sequence[str] = (), machine=None):
        # ``rules``: every rule, of every release (or a function that reads them, called on
        # first need); those in force are the ones whose raise site the target releases all
        # have (no target: the newest, so not the rules of sites it removed).
        # ``project_targets``: the launch helpers of the linted project (frontends/project.py), judged by
        # every server-argument check as sglang's own entry points are. ``identity``: for rules
        # read lazily, the rule folders they are the catalog of and how they were picked from
        # it (codes, selection): the result cache's key without reading them (frontends/cache.py); with
        # ``keeps``, which codes of those folders it holds (None: every one). ``prefixes``: the
        # project's own prefixes of server flags a framework passes on (launch/prefixes.py).
        # ``machine``: the platform and GPU the project declares (catalog/platforms.py; None: none).
        self._given = rules
        self.machine = machine
        self.prefixes = tuple(prefixes)
        self._keeps = keeps
        self.project_targets = tuple(project_targets)
        self.releases = tuple(releases)
        self.screen = screen  # run the call-site screen (screen/calls.py) after the text prefilter
        self.identity = identity
        self._catalog_prefilter: Prefilter | None = None

    @cached_property
    def catalog(self) -> tuple[Rule, ...]:
        given = self._given() if callable(self._given) else self._given
        self._given = None
        if self.project_targets:
            return tuple(_with_targets(rule, self.project_targets) for rule in given)
        return tuple(given)

    @cached_property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(
            _rule_for_releases(rule, self.releases, self.machine) for rule in self.catalog
            if (all(rule.raise_site.applies_to(r) for r in self.releases) if self.releases
                else rule.raise_site.until is None)
        )

    @cached_property
    def _tables(self) -> "_DispatchTables":
        return _DispatchTables(self.rules)

    @property
    def calls(self) -> dict[str, list[Entry]]:
        return self._tables.calls

    @property
    def attributes(self) -> dict[str, list[Entry]]:
        return self._tables.attributes

    @property
    def classes(self) -> list[Entry]:
        return self._tables.classes

    @property
    def fields(self) -> list[Entry]:
        """Targets that are dataclass-like configs (fields = true)."""
        return self._tables.fields

    @property
    def instances(self) -> dict[str, list[Entry]]:
        """Methods run by calling an instance (``m(x)`` runs ``forward``), by the instance's class."""
        return self._tables.instances

    @property
    def standing(self) -> list[Entry]:
        """Checks of an argv list that starts sglang's launcher, where it stands, each with the
        command-line target it is judged as."""
        return self._tables.standing

    @cached_property
    def prefilter(self) -> Prefilter:
        return Prefilter(rule_triggers(self.rules), self.screen)

    def compiled(self) -> "RuleSet":
        """The set with its rules read and compiled now (before forking workers, which would
        each do it again)."""
        _ = self._tables, self.prefilter
        return self

    def skip_reason(self, source: str | bytes, module: str | None = None, tree=None,
                    is_package: bool = False) -> str | None:
        """Why the file need not be parsed, or None when it must be (see screen/prefilter.py);
        ``tree``: the file's :mod:`ast`, when the caller has it."""
        return self.prefilter.skip_reason(source, module, tree, is_package)

    def may_match(self, source: str | bytes, module: str | None = None, tree=None) -> bool:
        """Could any check fire on this text? False means: skip the file, parse nothing."""
        return self.skip_reason(source, module, tree) is None

    def may_match_any_release(self, source: str | bytes, module: str | None = None, tree=None) -> bool:
        """Could a check of any rule of the catalog, whatever the release, fire on this text?
        (What a caller asks before it knows the file's release.)"""
        if len(self.rules) == len(self.catalog):
            return self.may_match(source, module, tree)
        if self._catalog_prefilter is None:
            self._catalog_prefilter = Prefilter(rule_triggers(self.catalog), self.screen)
        return self._catalog_prefilter.skip_reason(source, module, tree) is None

    def launch_targets(self, index_of: Callable[[list[Path]], RuleIndex]) -> list[Target]:
        """The targets of the set's server-argument checks (sglang's launch entry points, where
        the project pass starts: frontends/project.py); of a set not read yet, only the rules that have
        such checks are read (the folders' index, ``index_of(folders)``, names them)."""
        rules = self.__dict__.get("catalog")
        if rules is None and self.identity is not None:
            folders = [Path(folder) for folder in self.identity[0]]
            index = index_of(folders)
            rules = [rule for rule in rules_of(index.launch_codes, index, folders)
                     if self._keeps is None or self._keeps(rule.code)]
        elif rules is None:
            rules = self.catalog
        found = {target for rule in rules for check in rule.checks if check.kind == "server-args"
                 for target in check.targets}
        return sorted(found, key=repr)

    @property
    def unread_folders(self) -> list[Path] | None:
        """The rule folders whose catalog (as selected) this set is, while its rules are not read
        yet: :meth:`only` may narrow it. None where they are read or it is no set of folders."""
        if "catalog" in self.__dict__ or self.identity is None:
            return None
        return [Path(folder) for folder in self.identity[0]]

    def only(self, codes: Iterable[str], index: RuleIndex) -> "RuleSet":
        """The set holding just these rules of its folders (``index``, the folders' compiled
        index, finds each rule's own file), as this set has them: the same releases, selection,
        project targets and prefixes. The rules a run's files trigger are the only ones that
        can fire there (screen/prefilter.py ``IndexScreen.codes_for``); reading them alone spares
        reading the whole catalog. The set itself where it has no :attr:`unread_folders`."""
        folders = self.unread_folders
        if folders is None:
            return self
        keeps = self._keeps
        mine = frozenset(code for code in codes if keeps is None or keeps(code))
        picked = f" codes {','.join(sorted(mine))}"
        return RuleSet(lambda: rules_of(mine, index, folders), self.screen, self.releases, self.project_targets,
                       (self.identity[0], self.identity[1] + picked), keeps, self.prefixes, self.machine)

    def _derived(self, rules, releases, targets, picked: str = "", keeps=None) -> "RuleSet":
        """A set made from this one's catalog (read when the new set needs it)."""
        identity = None if self.identity is None else (self.identity[0], self.identity[1] + picked)
        mine = self._keeps
        both = mine if keeps is None else (keeps if mine is None else (lambda code: mine(code) and keeps(code)))
        return RuleSet(rules, self.screen, releases, targets, identity, both, self.prefixes, self.machine)

    def with_prefixes(self, prefixes: Sequence[str]) -> "RuleSet":
        """The rule set with the project's own prefixes of server flags (``prefixes`` in the
        configuration) beside the shipped ones."""
        if not prefixes:
            return self
        derived = self._derived(lambda: self.catalog, self.releases, self.project_targets)
        derived.prefixes = tuple(prefixes)
        return derived

    def on_machine(self, machine) -> "RuleSet":
        """The rule set of a project that declares this machine (catalog/platforms.py ``Machine``):
        its start-up checks that need the platform are judged there."""
        if machine is None:
            return self
        derived = self._derived(lambda: self.catalog, self.releases, self.project_targets)
        derived.machine = machine
        return derived

    def for_releases(self, releases: Sequence[str]) -> "RuleSet":
        """The rules as they stand for a project on these sglang releases (one pinned release,
        or every release of a pinned range): a rule is on only where its raise site exists in
        every one of them, so that a finding means the call fails on all of them."""
        if not releases:
            return self
        return self._derived(lambda: self.catalog, releases, self.project_targets)

    def with_project_targets(self, targets: Sequence[Target]) -> "RuleSet":
        """The rule set with the project's launch helpers as targets of the server-argument checks."""
        if not targets:
            return self
        return self._derived(lambda: self.catalog, self.releases, targets)

    def select(self, select: Iterable[str] | None, ignore: Iterable[str] | None) -> "RuleSet":
        """A rule set limited by code prefixes, as ``--select``/``--ignore`` ask."""
        select = tuple(select or ())
        ignore = tuple(ignore or ())
        if not select and not ignore:
            return self

        def keeps(code: str) -> bool:
            return (not select or code.startswith(select)) and not (ignore and code.startswith(ignore))

        def picked() -> list[Rule]:
            return [rule for rule in self.catalog if keeps(rule.code)]

        return self._derived(picked, self.releases, self.project_targets,
                             f" select {','.join(select)} ignore {','.join(ignore)}", keeps)


class _DispatchTables:
    """The rules' checks filed for dispatch: by the last name of the callee (or attribute)
    they target, class-level checks, config fields, and methods run by calling an instance."""

    def __init__(self, rules: Sequence[Rule]):
        self.calls: dict[str, list[Entry]] = {}
        self.attributes: dict[str, list[Entry]] = {}
        self.classes: list[Entry] = []
        self.fields: list[Entry] = []
        self.instances: dict[str, list[Entry]] = {}
        self.standing: list[Entry] = []  # checks of argv lists where they stand (analysis/standing.py)
        for rule in rules:
            for check in rule.checks:
                kind = CHECK_KINDS[check.kind]
                standing = kind.standing(check) if kind.standing is not None else None
                if standing is not None:
                    self.standing.append(Entry(rule, check, standing))
                if kind.site == "class":
                    self.classes.append(Entry(rule, check, None))
                    continue
                for target in check.targets:
                    table = self.attributes if target.kind == "attribute" else self.calls
                    table.setdefault(target.last_name, []).append(Entry(rule, check, target))
                    if target.fields:
                        self.fields.append(Entry(rule, check, target))
                    if target.called:
                        for receiver in target.receivers:
                            self.instances.setdefault(receiver, []).append(Entry(rule, check, target))


def _with_targets(rule: Rule, targets: tuple[Target, ...]) -> Rule:
    """The rule with ``targets`` added to its server-argument checks (each once)."""
    if not any(check.kind == "server-args" for check in rule.checks):
        return rule
    checks = tuple(
        dataclasses.replace(check, targets=tuple(dict.fromkeys(check.targets + targets)))
        if check.kind == "server-args" else check for check in rule.checks
    )
    return dataclasses.replace(rule, checks=checks)


def rule_triggers(rules: Sequence[Rule]) -> list:
    """What a file must contain for any check of these rules to fire (the prefilter's table);
    the call-site screen of a conditional check also reads its conditions."""
    found = []
    for rule in rules:
        for check in rule.checks:
            for trigger in CHECK_KINDS[check.kind].triggers(check):
                if check.conditions and trigger.screen is not None:
                    trigger = dataclasses.replace(trigger, screen=conditions_screen(check.conditions, trigger.screen))
                found.append(trigger)
    return found


def _rule_for_releases(rule: Rule, releases: Sequence[str], machine=None) -> Rule:
    """The rule as sglang has it in those releases (none: the newest), on the declared machine:
    the checks of those releases, and the table a check reads (server arguments, the public
    API) as they have it."""
    checks = tuple(
        dataclasses.replace(check, params=check.params.for_releases(releases))
        if releases and hasattr(check.params, "for_releases") else check
        for check in _checks_in_force(rule.checks, releases)
    )
    if machine is not None:
        checks = tuple(dataclasses.replace(check, params=check.params.on_machine(machine))
                       if hasattr(check.params, "on_machine") else check for check in checks)
    same = len(checks) == len(rule.checks) and all(a is b for a, b in zip(checks, rule.checks))
    return rule if same else dataclasses.replace(rule, checks=checks)


def _checks_in_force(checks: tuple[Check, ...], releases: Sequence[str]) -> tuple[Check, ...]:
    """A rule's checks for a project on these releases. A check with a release range (the raise
    site checked something else before or after) is on where it covers them; where the releases
    span several such checks, one that fails only where all of them fail stands for them (none,
    when their kind cannot say, or a release is covered by none of them)."""
    ranged = [c for c in checks if c.ranged]
    if not ranged:
        return checks
    kept = [c for c in checks if not c.ranged]
    if not releases:
        return tuple(kept + [c for c in ranged if not c.until])
    covering = [c for c in ranged if any(catalog.in_releases(c.since, c.until, r) for r in releases)]
    every_release = all(any(catalog.in_releases(c.since, c.until, r) for c in covering) for r in releases)
    if covering and every_release:
        if len(covering) == 1:
            kept += covering
        else:
            same_kind = len({c.kind for c in covering}) == 1
            merged = CHECK_KINDS[covering[0].kind].across_releases(covering) if same_kind else None
            kept += [merged] if merged is not None else []
    return tuple(sorted(kept, key=lambda c: c.index))


@lru_cache(maxsize=None)
def default_ruleset() -> RuleSet:
    """The shipped catalog (read on first need)."""
    return RuleSet(default_rules, identity=((str(default_rules_dir()),), "all"))
