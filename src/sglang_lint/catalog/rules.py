"""Load and validate the rule catalog: one TOML file per catalog entry.

A rule file says which sglang raise site it mirrors and how a call that would reach
that raise is recognised (one or more ``[[check]]`` tables, each of a known check kind).
Every field is validated here, before any file is linted; a malformed file raises
:class:`RuleFileError`, which names the file and the field.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from sglang_lint.core.gcpolicy import few_collections
from sglang_lint.core.model import CRASH_CODE, SEVERITIES
from sglang_lint.core.rulefile import Fields, RuleFileError, read_toml, read_tomls
from sglang_lint.core.versions import version_key  # noqa: F401  (the rule files' releases are ordered by it)

CODE_PATTERN = re.compile(r"^SGL[0-9]{3,4}$")
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DOTTED_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
IDENTIFIER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Codes the engine itself uses; no rule file may take them.
RESERVED_CODES = frozenset({CRASH_CODE})


@dataclass(frozen=True)
class Target:
    """One callable a check applies to, and where the checked argument sits in it.

    ``kind`` is ``function`` or ``class`` (matched by qualified name through imports),
    ``method`` (matched by method name on a receiver) or ``attribute`` (a property read).
    """

    kind: str
    name: str
    argument: str | None = None
    position: int | None = None
    receivers: tuple[str, ...] = ()
    # a class or static method: its receiver may be the class itself (``Platform.method(...)``)
    on_class: bool = False
    # calling an instance runs the method (``forward`` of an ``nn.Module``, ``__call__``): a call
    # ``m(...)`` of a name bound to a call of one of ``receivers`` is a call of it
    called: bool = False
    # a method or attribute judged on any receiver (a name only sglang's classes use, which sglang
    # itself calls on objects of unknown class); otherwise ``receivers`` are required
    any_receiver: bool = False
    via: str | None = None
    fields: bool = False  # a dataclass-like class: its fields' defaults (and a subclass's) are arguments
    # fields of launch flags: the class's method that launches with them (a subclass that defines
    # it again launches its own way)
    launched_in: str = ""
    omitted: bool = False  # the parameter's default fails the check: a call that leaves it out fails
    # What the call hands on, for launch entry points (server-args checks): "flags" (a list of
    # launch flags), "command" (a whole command line, launcher included), "shell" (a command
    # string the shell splits: os.system), "keywords" (its
    # keywords, but for ``exclude``, are the engine's), "mapping" (the argument is a dict of
    # the engine's keywords). None: as the check reads its targets.
    takes: str | None = None
    exclude: tuple[str, ...] = ()
    # takes = "keywords": the server whose arguments they are ("" the LLM server's ServerArgs,
    # "diffusion" the diffusion server's), and the keywords whose presence stops the hand-off
    # (``from_pretrained(server_args=...)`` ignores its other keywords): such a call is not judged.
    server: str = ""
    unless: tuple[str, ...] = ()
    lends: bool = False  # it hands them to another call first, which may take some out (launchers.toml)
    # takes = "flags": the program they are handed to, as the word that names it after the
    # launcher (flags.Launch.after): "" the server launcher, "serve" or "generate" the ``sglang``
    # command's, a module run with ``python -m`` (``sglang.bench_one_batch``: its own parser).
    # Set for the helpers of a linted file (engine/reach.py) or project (frontends/project.py).
    program: str = ""

    @property
    def last_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def display(self) -> str:
        return self.last_name

    @property
    def handed_as(self) -> str:
        """How the call hands on server arguments (``takes``, or where a rule leaves it out,
        read from the target: its keywords, a command line for ``subprocess``, else flags)."""
        if self.takes:
            return self.takes
        if self.argument is None and self.position is None:
            return "keywords"
        return "command" if self.name.startswith("subprocess.") else "flags"


TARGET_KINDS = ("function", "class", "method", "attribute")
TAKES = ("flags", "command", "shell", "keywords", "mapping")
SERVERS = ("", "diffusion")  # whose ServerArgs a target's keywords build: the LLM server's, the diffusion server's


def parse_target(fields: Fields) -> Target:
    kinds = [k for k in TARGET_KINDS if k in fields.table]
    if len(kinds) != 1:
        raise fields.error(
            "function", f"a target names exactly one of {', '.join(TARGET_KINDS)}"
        )
    kind = kinds[0]
    name_pattern = DOTTED_PATTERN if kind in ("function", "class") else IDENTIFIER_PATTERN
    name = fields.str(kind, pattern=name_pattern)
    if kind in ("function", "class") and "." not in name:
        raise fields.error(kind, "must be a qualified name (module.name)")
    target = Target(
        kind=kind,
        name=name,
        argument=fields.str("argument", required=False, pattern=IDENTIFIER_PATTERN),
        position=fields.int("position", required=False),
        receivers=fields.strings("receivers", required=False, pattern=DOTTED_PATTERN) or (),
        on_class=fields.bool("on_class", required=False) or False,
        called=fields.bool("called", required=False) or False,
        any_receiver=fields.bool("any_receiver", required=False) or False,
        via=fields.str("via", required=False),
        fields=fields.bool("fields", required=False) or False,
        launched_in=fields.str("launched_in", required=False, pattern=IDENTIFIER_PATTERN) or "",
        omitted=fields.bool("omitted", required=False) or False,
        takes=fields.str("takes", required=False),
        exclude=tuple(fields.strings("exclude", required=False, pattern=IDENTIFIER_PATTERN) or ()),
        server=fields.str("server", required=False) or "",
        unless=tuple(fields.strings("unless", required=False, pattern=IDENTIFIER_PATTERN) or ()),
        lends=fields.bool("lends", required=False) or False,
    )
    if target.takes is not None and target.takes not in TAKES:
        raise fields.error("takes", f"must be one of {', '.join(TAKES)}, got {target.takes!r}")
    if target.exclude and target.takes != "keywords":
        raise fields.error("exclude", "only a target that takes keywords keeps some of them for itself")
    if (target.server or target.unless or target.lends) and target.takes != "keywords":
        raise fields.error("server", "only a target that takes keywords hands them to a server")
    if target.server not in SERVERS:
        raise fields.error("server", f"must be one of {', '.join(repr(s) for s in SERVERS)}, got {target.server!r}")
    if target.takes in ("flags", "command", "shell", "mapping") and target.argument is None and target.position is None:
        raise fields.error("takes", f"takes = {target.takes!r} needs the argument or position that holds it")
    if kind in ("method", "attribute") and not target.receivers and not target.any_receiver:
        raise fields.error(kind, "a method or attribute target names its receivers (the sglang classes whose "
                                 "instances run it), or says any_receiver = true")
    if target.any_receiver and (kind not in ("method", "attribute") or target.receivers):
        raise fields.error("any_receiver", "only a method or attribute target without receivers takes any receiver")
    if target.called and (kind != "method" or not target.receivers):
        raise fields.error("called", "only a method target with receivers is run by calling an instance")
    if target.fields and (kind != "class" or target.argument is None):
        raise fields.error("fields", "only a class target with an argument has fields")
    unnamed = target.argument is None and target.position is None
    if target.omitted and (kind == "attribute" or target.fields or unnamed):
        raise fields.error("omitted", "only a call target with an argument or a position can be left out")
    fields.done()
    return target


@dataclass(frozen=True)
class Condition:
    """A test another argument of the call must pass for the check to apply (sglang's guard
    runs only then): ``holds`` is ``in`` / ``not in`` ``values`` (None among them with
    ``none``), ``truthy`` or ``falsy``; ``default``: what an omitted argument is."""

    argument: str | None
    position: int | None
    holds: str
    values: tuple = ()
    has_default: bool = False
    default: Any = None


CONDITION_TESTS = ("in", "not in", "truthy", "falsy")


def parse_condition(fields: Fields) -> Condition:
    holds = fields.str("holds")
    if holds not in CONDITION_TESTS:
        raise fields.error("holds", f"must be one of {', '.join(CONDITION_TESTS)}, got {holds!r}")
    values = tuple(fields.any("values", required=False) or ())
    if fields.bool("none", required=False):
        values += (None,)
    if holds in ("in", "not in") and not values:
        raise fields.error("values", f"a condition that holds {holds!r} needs values")
    default = fields.any("default", required=False)
    default_none = fields.bool("default_none", required=False) or False
    condition = Condition(
        argument=fields.str("argument", required=False, pattern=IDENTIFIER_PATTERN),
        position=fields.int("position", required=False),
        holds=holds, values=values, has_default=default is not None or default_none, default=default,
    )
    if condition.argument is None and condition.position is None:
        raise fields.error("argument", "a condition names its argument, its position or both")
    fields.done()
    return condition


@dataclass(frozen=True)
class Check:
    kind: str
    params: Any
    targets: tuple[Target, ...]
    index: int
    # The releases this check is sglang's for, where the raise site checked something else in
    # others (one [[check]] per run of releases); unset: every release of the raise site.
    since: str | None = None
    until: str | None = None

    @property
    def ranged(self) -> bool:
        return bool(self.since or self.until)

    # Tests other arguments of the call must pass for the check to apply (all of them).
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class RaiseSite:
    module: str
    function: str
    exception: str
    message: str
    line: int | None
    sglang_version: str
    parameter: str | None = None  # the guarded parameter, where the guard tests one
    # The sglang releases that have this raise: from ``since`` (inclusive) to ``until``
    # (exclusive); unset means every release. ``sglang-version`` in the configuration picks.
    since: str | None = None
    until: str | None = None

    def applies_to(self, version: str) -> bool:
        return in_releases(self.since, self.until, version)


def in_releases(since: str | None, until: str | None, version: str) -> bool:
    """Is ``version`` from ``since`` (included) to ``until`` (excluded)? An unset or empty end
    is open. The one reading of a release range, for rules and the server-argument table."""
    wanted = version_key(version)
    return (not since or version_key(since) <= wanted) and (not until or wanted < version_key(until))


VERSION_PATTERN = re.compile(r"^[0-9]+(\.[0-9]+)*(\.?[a-z]+[0-9]*)?$")


@dataclass(frozen=True)
class Docs:
    why: str
    bad: str
    good: str
    fix: str | None = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    title: str
    catalog_id: str
    raise_site: RaiseSite
    checks: tuple[Check, ...]
    docs: Docs
    path: Path
    seed: str | None = None
    related: tuple[str, ...] = field(default_factory=tuple)
    derived_key: str | None = None  # set for rules written by `catalog derive`
    constraint: str | None = None
    fix_safety: str = ""  # how ``sglang-lint --fix`` fixes its findings ("" when it cannot)
    severity: str = "error"  # its findings' unless a check says otherwise (core.model.SEVERITIES)


SEVERITY_PATTERN = re.compile("^(" + "|".join(SEVERITIES) + ")$")


def parse_rule(data: dict, path: Path, kinds: Mapping[str, Any]) -> Rule:
    """One rule file's table. ``kinds``: the check kinds by name (``checks.CHECK_KINDS``),
    which validate their own parameters and say how their findings are fixed."""
    top = Fields(data, path)
    code = top.str("code", pattern=CODE_PATTERN)
    if code in RESERVED_CODES:
        raise top.error("code", f"{code} is reserved for the engine")
    name = top.str("name", pattern=NAME_PATTERN)
    title = top.str("title")
    catalog_id = top.str("catalog_id", pattern=re.compile(r"^[0-9a-f]{16}$"))
    seed = top.str("seed", required=False)
    related = top.strings("related", required=False) or ()
    severity = top.str("severity", required=False, pattern=SEVERITY_PATTERN) or "error"

    site = top.sub("raise_site")
    raise_site = RaiseSite(
        module=site.str("module", pattern=DOTTED_PATTERN),
        function=site.str("function", pattern=DOTTED_PATTERN),
        exception=site.str("exception", pattern=IDENTIFIER_PATTERN),
        message=site.str("message"),
        line=site.int("line", required=False, minimum=1),
        sglang_version=site.str("sglang_version"),
        parameter=site.str("parameter", required=False, pattern=IDENTIFIER_PATTERN),
        since=site.str("since", required=False, pattern=VERSION_PATTERN),
        until=site.str("until", required=False, pattern=VERSION_PATTERN),
    )
    site.done()
    derived = top.sub("derived", required=False)
    derived_key = constraint = None
    if derived is not None:
        derived_key = derived.str("key")
        constraint = derived.str("constraint")
        derived.done()

    checks = []
    for index, check_fields in enumerate(top.subs("check")):
        kind_name = check_fields.str("kind")
        kind = kinds.get(kind_name)
        if kind is None:
            raise check_fields.error(
                "kind", f"unknown check kind {kind_name!r}; known: {', '.join(sorted(kinds))}"
            )
        targets = tuple(parse_target(t) for t in check_fields.subs("target", required=False))
        table_name = check_fields.str("targets_table", required=False)
        if table_name:
            targets += targets_table(path.parent / table_name, check_fields)
        if kind.site == "call" and not targets:
            raise check_fields.error("target", "is missing: a call check needs at least one target")
        check_since = check_fields.str("since", required=False, pattern=VERSION_PATTERN)
        check_until = check_fields.str("until", required=False, pattern=VERSION_PATTERN)
        if check_since and check_until and version_key(check_since) >= version_key(check_until):
            raise check_fields.error("until", f"{check_until} is not after since = {check_since}")
        conditions = tuple(parse_condition(c) for c in check_fields.subs("condition", required=False))
        params = kind.parse(check_fields, targets)
        check_fields.done()
        checks.append(Check(kind=kind_name, params=params, targets=targets, index=index,
                            since=check_since or None, until=check_until or None, conditions=conditions))

    doc = top.sub("docs")
    docs = Docs(
        why=doc.str("why"),
        bad=doc.str("bad"),
        good=doc.str("good"),
        fix=doc.str("fix", required=False),
    )
    doc.done()
    top.done()
    return Rule(
        code=code,
        name=name,
        title=title,
        catalog_id=catalog_id,
        raise_site=raise_site,
        checks=tuple(checks),
        docs=docs,
        path=path,
        seed=seed,
        related=tuple(related),
        derived_key=derived_key,
        constraint=constraint,
        fix_safety=next((text for text in (kinds[c.kind].fix_safety(c) for c in checks) if text), ""),
        severity=severity,
    )


def load_rule_file(path: Path, kinds: Mapping[str, Any]) -> Rule:
    return parse_rule(read_toml(path), path, kinds)


def load_rule_files(paths: Iterable[Path], folder: Path, kinds: Mapping[str, Any],
                    aliases: Mapping[str, tuple[str, ...]] | None = None,
                    tables: Sequence[Mapping | None] | None = None) -> tuple[Rule, ...]:
    """These rule files of ``folder`` (a rule folder, whose ``exports.toml`` tables apply:
    ``aliases``, when the caller has read them already), read as :func:`load_rules` reads them.
    ``tables``: each file's table where the caller has it already (the index's rule data;
    None: the file is read)."""
    aliases = exports(Path(folder)) if aliases is None else aliases
    paths = list(paths)
    tables = list(tables) if tables is not None else [None] * len(paths)
    unread = [path for path, table in zip(paths, tables) if table is None]
    read = iter(read_tomls(unread) if unread else ())
    return tuple(with_aliases(parse_rule(table if table is not None else next(read), path, kinds), aliases)
                 for path, table in zip(paths, tables))


def load_rules(dirs: Iterable[Path], kinds: Mapping[str, Any]) -> tuple[Rule, ...]:
    """Load every rule file (``SGL*.toml``) under the given folders."""
    with few_collections():  # some 5,000 rules, each many small objects, none of them garbage
        return _load_rules(dirs, kinds)


def _load_rules(dirs: Iterable[Path], kinds: Mapping[str, Any]) -> tuple[Rule, ...]:
    folders = [Path(d) for d in dirs]
    rules: list[Rule] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        if not folder.is_dir():
            raise RuleFileError(folder, "", "rule folder does not exist")
        # Rule files are named after their code; other TOML files there are data tables.
        paths = sorted(folder.rglob("SGL*.toml"))
        aliases = exports(folder)
        for path, data in zip(paths, read_tomls(paths)):
            rule = with_aliases(parse_rule(data, path, kinds), aliases)
            if rule.code in seen:
                raise RuleFileError(
                    path, "code", f"{rule.code} is already used by {seen[rule.code]}"
                )
            seen[rule.code] = path
            rules.append(rule)
    return tuple(sorted(rules, key=lambda r: r.code))


EXPORTS_TABLE = "exports.toml"


def targets_table(path: Path, check_fields: Fields) -> tuple[Target, ...]:
    """The ``[[entry_point]]`` targets of a table file a check names (``targets_table``): the
    launch entry points ``catalog derive`` finds in sglang's source (launchers.toml)."""
    if not path.is_file():
        raise check_fields.error("targets_table", f"{path} does not exist (run `sglang-lint catalog derive`)")
    table = Fields(read_toml(path), path)
    found = []
    for entry in table.subs("entry_point", required=False):
        entry.str("evidence", required=False)  # where sglang launches with it: for readers
        found.append(parse_target(entry))
    # (its other tables are the check kind's to read: server-args the flags of other backends,
    # api-signature the signatures)
    return tuple(found)


def exports(folder: Path) -> dict[str, tuple[str, ...]]:
    """The names each targeted class or function is also imported by (``exports.toml``, written
    by ``catalog derive`` from sglang's package re-exports), for every such table in the folder."""
    found: dict[str, tuple[str, ...]] = {}
    for path in sorted(folder.rglob(EXPORTS_TABLE)):
        table = Fields(read_toml(path), path)
        listed = table.sub("exports")
        for name in listed.table:
            found[name] = found.get(name, ()) + tuple(listed.strings(name, pattern=DOTTED_PATTERN))
        listed.done()
        table.done()
    return found


def with_aliases(rule: Rule, aliases: Mapping[str, tuple[str, ...]]) -> Rule:
    """The rule with, beside each function or class target, a target for every name sglang
    re-exports it by (same argument and position): a call through any of them is judged; a
    method's receivers, likewise, under every name of their classes."""
    if not aliases:
        return rule
    checks = []
    for check in rule.checks:
        targets = list(check.targets)
        for index, target in enumerate(check.targets):
            if target.kind in ("function", "class"):
                targets += [dataclasses.replace(target, name=alias) for alias in aliases.get(target.name, ())]
            elif any(receiver in aliases for receiver in target.receivers):
                # a receiver made through a name sglang re-exports its class by is one of its class
                receivers = tuple(dict.fromkeys(
                    [*target.receivers, *(a for r in target.receivers for a in aliases.get(r, ()))]))
                targets[index] = dataclasses.replace(target, receivers=receivers)
        unique = tuple(dict.fromkeys(targets))
        checks.append(check if unique == check.targets else dataclasses.replace(check, targets=unique))
    return rule if all(a is b for a, b in zip(checks, rule.checks)) else dataclasses.replace(rule, checks=tuple(checks))
