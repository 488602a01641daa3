"""Load and validate the rule catalog: one TOML file per catalog entry.

A rule file says which sglang raise site it mirrors and how a call that would reach
that raise is recognised (one or more ``[[check]]`` tables, each of a known check kind).
Every field is validated here, before any file is linted; a malformed file raises
:class:`RuleFileError`, which names the file and the field.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CODE_PATTERN = re.compile(r"^SGL[0-9]{3}$")
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DOTTED_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
IDENTIFIER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Codes the engine itself uses; no rule file may take them.
CRASH_CODE = "SGL900"
RESERVED_CODES = frozenset({CRASH_CODE})


class RuleFileError(Exception):
    """A rule file that cannot be used; names the file and the offending field."""

    def __init__(self, path: Path | str, field_name: str, problem: str):
        self.path = Path(path)
        self.field_name = field_name
        self.problem = problem
        where = f"field '{field_name}'" if field_name else "file"
        super().__init__(f"{self.path}: {where}: {problem}")


class Fields:
    """Typed, named access to one TOML table; every error names file and field path."""

    def __init__(self, table: Any, path: Path, prefix: str = ""):
        if not isinstance(table, dict):
            raise RuleFileError(path, prefix, f"must be a table, got {type(table).__name__}")
        self.table = table
        self.path = path
        self.prefix = prefix
        self.used: set[str] = set()

    def where(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def error(self, key: str, problem: str) -> RuleFileError:
        return RuleFileError(self.path, self.where(key), problem)

    def _get(self, key: str, required: bool) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                raise self.error(key, "is missing")
            return None
        return self.table[key]

    def str(self, key: str, required: bool = True, pattern: re.Pattern | None = None) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        if pattern is not None and not pattern.match(value):
            raise self.error(key, f"{value!r} does not match {pattern.pattern}")
        return value

    def int(self, key: str, required: bool = True, minimum: int = 0) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error(key, f"must be an integer >= {minimum}, got {value!r}")
        return value

    def bool(self, key: str, required: bool = True) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, got {value!r}")
        return value

    def strings(self, key: str, required: bool = True, pattern: re.Pattern | None = None) -> Any:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise self.error(key, f"must be a non-empty list of strings, got {value!r}")
        for item in value:
            if not isinstance(item, str) or not item:
                raise self.error(key, f"must contain only non-empty strings, got {item!r}")
            if pattern is not None and not pattern.match(item):
                raise self.error(key, f"{item!r} does not match {pattern.pattern}")
        if len(set(value)) != len(value):
            raise self.error(key, "lists a value twice")
        return tuple(value)

    def any(self, key: str, required: bool = True) -> Any:
        return self._get(key, required)

    def sub(self, key: str, required: bool = True) -> "Fields | None":
        value = self._get(key, required)
        if value is None:
            return None
        return Fields(value, self.path, self.where(key))

    def subs(self, key: str, required: bool = True) -> list["Fields"]:
        value = self._get(key, required)
        if value is None:
            return []
        if not isinstance(value, list) or not value:
            raise self.error(key, "must be a non-empty array of tables")
        return [Fields(item, self.path, f"{self.where(key)}[{i}]") for i, item in enumerate(value)]

    def done(self) -> None:
        """Reject keys nobody asked for: a typo in a rule file must not pass silently."""
        unknown = sorted(set(self.table) - self.used)
        if unknown:
            raise self.error(unknown[0], "is not a known field")


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
    via: str | None = None
    fields: bool = False  # a dataclass-like class: its fields' defaults (and a subclass's) are arguments

    @property
    def last_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def display(self) -> str:
        return self.last_name


TARGET_KINDS = ("function", "class", "method", "attribute")


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
        via=fields.str("via", required=False),
        fields=fields.bool("fields", required=False) or False,
    )
    if target.fields and (kind != "class" or target.argument is None):
        raise fields.error("fields", "only a class target with an argument has fields")
    fields.done()
    return target


@dataclass(frozen=True)
class Check:
    kind: str
    params: Any
    targets: tuple[Target, ...]
    index: int


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
        wanted = version_key(version)
        return (self.since is None or version_key(self.since) <= wanted) and (
            self.until is None or wanted < version_key(self.until)
        )


VERSION_PATTERN = re.compile(r"^[0-9]+(\.[0-9]+)*([a-z]+[0-9]*)?$")


def version_key(version: str) -> tuple:
    """``0.5.23`` -> (0, 5, 23); a pre-release suffix sorts before the release."""
    match = re.match(r"^([0-9.]+?)\.?([a-z]+[0-9]*)?$", version)
    numbers = tuple(int(part) for part in (match.group(1) if match else version).split(".") if part.isdigit())
    return numbers + ((0,) if match and match.group(2) else (1,))


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

    @property
    def fix_safety(self) -> str:
        """How ``sglang-lint --fix`` can fix this rule's findings ("" when it cannot)."""
        from sglang_lint.checks import CHECK_KINDS

        found = [CHECK_KINDS[check.kind].fix_safety(check) for check in self.checks]
        return next((text for text in found if text), "")


def parse_rule(data: dict, path: Path) -> Rule:
    from sglang_lint.checks import CHECK_KINDS  # the kinds validate their own parameters

    top = Fields(data, path)
    code = top.str("code", pattern=CODE_PATTERN)
    if code in RESERVED_CODES:
        raise top.error("code", f"{code} is reserved for the engine")
    name = top.str("name", pattern=NAME_PATTERN)
    title = top.str("title")
    catalog_id = top.str("catalog_id", pattern=re.compile(r"^[0-9a-f]{16}$"))
    seed = top.str("seed", required=False)
    related = top.strings("related", required=False) or ()

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
        kind = CHECK_KINDS.get(kind_name)
        if kind is None:
            raise check_fields.error(
                "kind", f"unknown check kind {kind_name!r}; known: {', '.join(sorted(CHECK_KINDS))}"
            )
        targets = tuple(parse_target(t) for t in check_fields.subs("target", required=False))
        if kind.site == "call" and not targets:
            raise check_fields.error("target", "is missing: a call check needs at least one target")
        params = kind.parse(check_fields, targets)
        check_fields.done()
        checks.append(Check(kind=kind_name, params=params, targets=targets, index=index))

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
    )


def load_rule_file(path: Path) -> Rule:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleFileError(path, "", f"cannot be read: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RuleFileError(path, "", f"is not UTF-8: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(path, "", f"is not valid TOML: {exc}") from exc
    return parse_rule(data, path)


def default_rules_dir() -> Path:
    """The catalog shipped in the wheel, or the repository's rules/ when run from source."""
    here = Path(__file__).resolve().parent
    shipped = here / "rules"
    if shipped.is_dir():
        return shipped
    return here.parent.parent / "rules"


def load_rules(dirs: Iterable[Path] | None = None) -> tuple[Rule, ...]:
    """Load every ``*.toml`` under the given folders (default: the shipped catalog)."""
    folders = [Path(d) for d in dirs] if dirs is not None else [default_rules_dir()]
    rules: list[Rule] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        if not folder.is_dir():
            raise RuleFileError(folder, "", "rule folder does not exist")
        # Rule files are named after their code; other TOML files there are data tables.
        for path in sorted(folder.rglob("SGL*.toml")):
            rule = load_rule_file(path)
            if rule.code in seen:
                raise RuleFileError(
                    path, "code", f"{rule.code} is already used by {seen[rule.code]}"
                )
            seen[rule.code] = path
            rules.append(rule)
    return tuple(sorted(rules, key=lambda r: r.code))


@lru_cache(maxsize=None)
def default_rules() -> tuple[Rule, ...]:
    return load_rules()
