"""The start-up table as the start-up aspect reads it: ``rules/derived/startup.toml`` (written by
derive/startup/table.py) loaded into :class:`StartupCheck` rows, narrowed to the releases a file
is judged against (:meth:`StartupTable.by_site`, :meth:`StartupTable.site_words`), kept between
runs as marshal data; and each check's condition read once: its words (to pass over a check
whose inputs a launch does not set, without parsing it), its expression and the names it reads
(:func:`parsed_condition`), and the fields it cannot fail without (:func:`needed_fields`)."""

from __future__ import annotations

import ast
import hashlib
import marshal
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

from sglang_lint.catalog.platforms import Machine
from sglang_lint.catalog.release_runs import in_runs
from sglang_lint.checks.fails_when.grammar import QUERY_PREFIX, WhenError
from sglang_lint.checks.fails_when.language import Bound, names_read, parse_when
from sglang_lint.core.places import cache_home, keep_marshal, prune_kept
from sglang_lint.core.rulefile import read_toml


@dataclass(frozen=True)
class StartupCheck:
    """One raise or assert of the validation, in the releases ``releases`` names."""

    site: str  # "module: function"
    exception: str
    message: str
    fails_when: str
    releases: tuple  # ((since, until), ...)
    defaults: dict = field(compare=False, hash=False)
    values: tuple = ()  # ((name, expression text), ...): the parts the condition reads by name
    shown: tuple = ()  # the expression each ``{...}`` of the message shows ("": not known)
    shown_values: tuple = ()  # ((name, expression text), ...): the parts those read by name
    # the fields it cannot fail without (the table's ``needs``: :func:`needed_fields`): a
    # launch that leaves one of them at its default, or unknown, is not evaluated
    needs: tuple = ()
    # the platform probes it needs answered (the table's ``platform``), and their answers on
    # the declared machine ((query name, answer), ...): without a machine it is not in the table
    platform: tuple = ()
    machine: tuple = ()
    declared: str = field(default="", compare=False)  # the declaration, as a finding names it
    # its place in the table, whose checks are in the order sglang's validation meets them in
    # every release (derive/startup/table.py): of two checks of one release, it runs the
    # one of the lower rank first
    rank: int = field(default=0, compare=False)
    table: str = field(default="", compare=False)  # the table's checksum ("": its verdicts are not kept)

    # (each computed once per check: the judge asks them of a check for every launch, and the
    # texts' memo would hash the check's values each time)
    @cached_property
    def parsed(self) -> Parsed:
        return parsed_condition(self.fails_when, self.values)

    @cached_property
    def words(self) -> frozenset:
        """Every identifier of the check's texts: a superset of the names it reads (a string
        literal's words too), read without parsing, to pass over a check whose fields and
        variables the launch does not touch before parsing it."""
        return _words(self.fails_when, self.values)

    @cached_property
    def input_words(self) -> tuple:
        """Its words that may be a field or an environment variable, sorted: what keys its
        verdict on a launch (kept_verdicts.verdict_key)."""
        return _input_words(self.fails_when, self.values)

    @cached_property
    def input_word_set(self) -> frozenset:
        return frozenset(self.input_words)

    @cached_property
    def variable_words(self) -> tuple:
        """Its input words that may name an environment variable (upper case), in order."""
        return tuple(word for word in self.input_words if word.isupper())

    @cached_property
    def may_read_a_variable(self) -> bool:
        """Is any of its words upper case (maybe an environment variable)?"""
        return any(word.isupper() for word in self.words)

    @property
    def key(self) -> tuple:
        return self.site, self.exception, self.message

    def in_release(self, release: str) -> bool:
        return in_runs(self.releases, release)


@dataclass(frozen=True)
class StartupTable:
    checks: tuple
    releases: tuple  # every release the table was derived from
    _by_site: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    _site_words: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    _sites_by_word: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def by_site(self, releases: tuple) -> dict:
        """site key -> the checks of it that any of ``releases`` has (kept per ``releases``:
        every launch of a file, and every file of a run, asks for the same few)."""
        found = self._by_site.get(releases)
        if found is None:
            found = {}
            for check in self.checks:
                if any(check.in_release(r) for r in releases):
                    found.setdefault(check.key, []).append(check)
            self._by_site[releases] = found
        return found

    def site_words(self, releases: tuple) -> list:
        """(every word its checks read, its checks) per site of :meth:`by_site`, kept per
        ``releases`` as that is: a launch that sets none of a site's words fails none of it."""
        found = self._site_words.get(releases)
        if found is None:
            found = self._site_words[releases] = [
                (frozenset().union(*(c.words for c in checks)), checks) for checks in self.by_site(releases).values()]
        return found

    def sites_reading(self, releases: tuple, *sets) -> list:
        """The checks per site of :meth:`site_words` whose words meet any of ``sets`` (the
        fields and variables a launch sets), in the table's order: found through each word's
        sites, as a launch sets a few of the hundreds of words the sites read."""
        by_word = self._sites_by_word.get(releases)
        if by_word is None:
            by_word = self._sites_by_word[releases] = {}
            for number, (words, _) in enumerate(self.site_words(releases)):
                for word in words:
                    by_word.setdefault(word, []).append(number)
        numbers = {number for names in sets for name in names for number in by_word.get(name, ())}
        sites = self.site_words(releases)
        return [sites[number][1] for number in sorted(numbers)]

    def of_releases(self, releases: tuple | None) -> tuple:
        """The checks any of ``releases`` has (None: every check of the table)."""
        if releases is None:
            return self.checks
        return tuple(check for checks in self.by_site(releases).values() for check in checks)


@lru_cache(maxsize=4)
def load_startup(path: Path, machine: Machine | None = None) -> StartupTable:
    """The table, read once per process (the conditions are parsed where a launch reads them),
    as it stands on the declared ``machine`` (None: its checks that need the platform left out).
    Its rows as :func:`_rows` makes them (each check's defaults read, the values it reads
    gathered) are kept as marshal data under the file's checksum: a run reads them back
    (some 10 ms) instead of making them again from the TOML (some 100 ms)."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        rows, releases = _rows(path)  # (read_toml names the file and says why it cannot be read)
        return _table(rows, releases, machine=machine)
    key = hashlib.blake2b(raw + f"{ROWS_FORMAT} {sys.version}".encode(), digest_size=16).hexdigest()
    kept = cache_home() / "tables" / f"startup-{key}.marshal"
    try:
        rows, releases = marshal.loads(kept.read_bytes())
        return _table(rows, releases, key, machine)
    except (OSError, ValueError, EOFError, TypeError):
        pass  # not kept yet, or by another format: made again
    rows, releases = _rows(path)
    if keep_marshal(kept, (rows, releases)):
        prune_kept(kept, "startup-", ".marshal", KEEP_TABLES)
    return _table(rows, releases, key, machine)


ROWS_FORMAT = 4  # a kept row: (site, exception, message, fails_when, releases, defaults, values, shown, shown_values,
#                  needs, platform)
KEEP_TABLES = 4  # kept start-up tables (other releases of the linter, edits), newest first


def _table(rows: list, releases: tuple, key: str = "", machine: Machine | None = None) -> StartupTable:
    """The checks of the rows; those that need the platform only on a ``machine``, each with the
    answers it reads there (one the machine answers none of is left out: it could never be
    certain). Their verdicts are kept apart per machine (the table's key names it)."""
    answers = machine.answers() if machine is not None else {}
    checks = []
    for rank, row in enumerate(rows):
        platform = row[10]
        if not platform:
            checks.append(StartupCheck(*row, rank=rank, table=key))
            continue
        known = tuple((QUERY_PREFIX + name, answers[name]) for name in platform if name in answers)
        if known:
            checks.append(StartupCheck(*row, machine=known, declared=machine.shown, rank=rank,
                                       table=key and f"{key} {machine.shown}"))
    return StartupTable(tuple(checks), tuple(releases))


def _rows(path: Path) -> tuple[list, tuple]:
    """The table's rows, each checked (ValueError naming the file and the check), and the
    releases it was derived from."""
    data = read_toml(Path(path))
    pool = data.get("values", {})
    if not isinstance(pool, dict) or not all(isinstance(v, str) for v in pool.values()):
        raise ValueError(f"{path}: values: a table of names and expressions")
    rows, inner = [], {}
    for index, row in enumerate(data.get("check", [])):
        where = f"{path}: check #{index + 1}"
        try:
            shown = tuple(row.get("shown", ()))
            if not all(isinstance(text, str) for text in shown):
                raise ValueError("shown: a list of expressions")
            needs = tuple(row.get("needs", ()))
            if not all(isinstance(name, str) for name in needs):
                raise ValueError("needs: a list of field names")
            platform = tuple(row.get("platform", ()))
            if not all(isinstance(name, str) for name in platform):
                raise ValueError("platform: a list of probe names")
            rows.append((row["site"], row["exception"], row["message"], row["fails_when"],
                         tuple(tuple(pair) for pair in row["releases"]), _defaults(row.get("defaults", "{}")),
                         value_closure(row["fails_when"], pool, inner), shown,
                         value_closure(" ".join(shown), pool, inner), needs, platform))
        except (KeyError, ValueError, SyntaxError, TypeError) as error:
            raise ValueError(f"{where}: {error}") from None
    return rows, tuple(data.get("releases", ()))


@lru_cache(maxsize=None)
def _defaults(text: str) -> dict:
    """A check's defaults, read once per text (checks of one function share theirs; never
    changed by a reader)."""
    return ast.literal_eval(text)


VALUE_NAME = re.compile(r"\b_v[0-9a-f]{10}\b")  # a value of the table's [values], read by name
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=None)
def _words(text: str, named: tuple = ()) -> frozenset:
    return _text_words(text).union(*(_text_words(part) for _, part in named))


@lru_cache(maxsize=None)
def _text_words(text: str) -> frozenset:
    return frozenset(_IDENTIFIER.findall(text))


@lru_cache(maxsize=None)
def _input_words(text: str, named: tuple = ()) -> tuple:
    return tuple(sorted(w for w in _words(text, named) if not VALUE_NAME.fullmatch(w)))


def value_closure(text: str, pool: dict, inner: dict | None = None) -> tuple:
    """The values (name, text) a condition reads, itself or through other values, sorted by
    name (ValueError naming a value the pool does not hold). ``inner``: name -> the names its
    text reads, kept across the checks of one pool."""
    inner = {} if inner is None else inner
    found: dict = {}
    todo = VALUE_NAME.findall(text)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        if name not in pool:
            raise ValueError(f"fails_when reads {name}, which [values] does not hold")
        found[name] = pool[name]
        if name not in inner:
            inner[name] = VALUE_NAME.findall(pool[name])
        todo += inner[name]
    return tuple(sorted(found.items()))


class Parsed(NamedTuple):
    """A check's condition as the evaluator reads it (None where any part is outside the grammar)."""

    expression: ast.expr | None
    names: frozenset  # its parameters: the fields and environment variables it reads, itself or by a value
    values: dict  # name -> Bound: the parts written once and read by name
    variables: frozenset  # the environment variables among the names


@lru_cache(maxsize=None)
def parsed_condition(text: str, named: tuple = ()) -> Parsed:
    parts = dict(named)
    try:
        expression = _expression(text)
        values = {name: _expression(part) for name, part in named}
    except WhenError:
        return Parsed(None, frozenset(), {}, frozenset())
    part_names = frozenset(parts)
    read = frozenset().union(names_read(expression), *(names_read(e) for e in values.values())) - part_names
    bound: dict = {}

    def bind(name: str, running: frozenset) -> Bound:
        found = bound.get(name) or _BOUND.get((name, parts[name]))
        if found is None:
            inner = names_read(values[name]) & part_names
            cyclic = bool(inner & running)
            inside = [bind(n, running | {name}) for n in sorted(inner - running)]
            # what the value means whatever its name: its text and the meanings of the values
            # it reads (None where they read each other in a circle: never shared)
            meaning = None if cyclic or any(b.meaning is None for b in inside) else _MEANINGS.setdefault(
                (parts[name], tuple((b.name, b.meaning) for b in inside)), len(_MEANINGS))
            leaves = frozenset(names_read(values[name]) - part_names).union(*(b.leaves for b in inside))
            found = Bound(name, values[name], meaning, tuple(sorted(leaves)))
            if meaning is not None:
                # no circle under it: the same part whichever check reads it (its name is its text's)
                _BOUND[name, parts[name]] = found
        bound[name] = found
        return found

    for name in sorted(parts):
        bind(name, frozenset())
    return Parsed(expression, read, bound, frozenset(n for n in read if n.isupper()))


_MEANINGS: dict[tuple, int] = {}  # a value's text and its inner values' meanings -> one number
_BOUND: dict[tuple, Bound] = {}  # (name, text) -> the part, where no circle runs under it


@lru_cache(maxsize=None)
def _expression(text: str) -> ast.expr:
    """One part of a check's condition, parsed once however many checks write it (a value
    several checks share is one tree: what it is worth in a launch is kept by its meaning)."""
    return parse_when(text, None)  # (every name it reads is a parameter of the check)
