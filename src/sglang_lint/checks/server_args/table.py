"""sglang's server-argument table (``rules/derived/server_args.toml``, written by ``catalog
derive``) as the server-args check reads it: each field with its type, choices and flags, the
releases each of them is in, and the spellings and values sglang deprecated; the table of any
release or range of releases (:meth:`Table.for_releases`), and the words that say when a name
came or went. Beside it, the parsers of the ``sglang`` command's subcommands (``serve.toml``:
:func:`load_commands`), narrowed to the same releases."""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from sglang_lint.catalog.release_runs import EVERY_RELEASE, change, in_runs, life, named
from sglang_lint.catalog.rules import in_releases, version_key
from sglang_lint.core.memo import by_identity, per_object
from sglang_lint.core.rulefile import Fields, read_toml


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    optional: bool
    choices: tuple
    extensible: bool
    flags: tuple
    # The releases that have the field (since included, until excluded; "" leaves an end
    # open), and those of each choice and flag that is not in every release of the field.
    range: tuple = EVERY_RELEASE
    choice_ranges: tuple = ()  # ((choice, (since, until)), ...)
    flag_ranges: tuple = ()
    # The releases where the field has no fixed choices (a list a plugin or platform fills at
    # run time): nothing of its choices is judged there. ((since, until), ...)
    open_choices: tuple = ()
    # The releases whose list a plugin may extend, where ``extensible`` holds in some only.
    extensible_runs: tuple = ()
    nargs: str | None = None  # "*" or "+": the words after the flag are its items (argparse's nargs)
    item: str | None = None  # what each item is converted to ("int", "float"), where not a string
    parse: str | None = None  # "json": the flag's text is parsed by json.loads
    # What argparse converts the flag's word with in the table's releases ("int", "float",
    # "json", "str": any text, "other": sglang's own converter), and each one's runs of
    # releases where they do not all agree: ((word, ((since, until), ...)), ...).
    words: tuple = ()
    word_ranges: tuple = ()

    def refuses(self, value) -> bool:
        """A text outside the field's choices (SGL006/SGL007 report it)."""
        return bool(self.choices) and isinstance(value, str) and value not in self.choices


@by_identity
def with_launchers(table: "Table", commands: "Commands | None", scripts: "Scripts | None") -> "Table":
    """The table with these subcommands and scripts: one object for the rules that share
    them, so that it is narrowed to a project's releases once (``Table.for_releases``)."""
    return dataclasses.replace(table, commands=commands, scripts=scripts)


def flags_beginning(ordered: tuple, prefix: str) -> list:
    """The flags of ``ordered`` (sorted) that ``prefix`` begins: one run of them, found by bisection."""
    start = end = bisect.bisect_left(ordered, prefix)
    while end < len(ordered) and ordered[end].startswith(prefix):
        end += 1
    return list(ordered[start:end])


def _span_of(ranges: tuple, item) -> tuple:
    return next((span for key, span in ranges if key == item), EVERY_RELEASE)


@dataclass(frozen=True)
class Table:
    """sglang's server arguments as one or more releases have them (``version`` names them).
    ``history``: every field of every release the table was derived from, with its ranges;
    :meth:`for_releases` gives the table of other releases, and :meth:`change` tells when a
    name came or went."""

    version: str
    fields: dict
    by_flag: dict
    manual_flags: frozenset
    known_flags: frozenset  # every flag the launcher registers (the fields' and the hand-registered)
    releases: tuple = ()  # the releases this table stands for (empty: the one of ``version``)
    history: dict = field(default_factory=dict, compare=False)  # name -> Field, every release
    manual_ranges: dict = field(default_factory=dict, compare=False)  # flag -> (since, until)
    manual_everywhere: frozenset = frozenset()  # hand-registered flags of every release
    # flag -> its Deprecation runs, oldest first: the spellings sglang deprecates, in the releases that do
    deprecated: dict = field(default_factory=dict, compare=False)
    # field -> {value -> ValueDeprecation}: values sglang still takes but rewrites to another
    deprecated_values: dict = field(default_factory=dict, compare=False)
    # the `sglang` command's subcommands (serve's backends, generate) in these releases
    commands: "Commands | None" = field(default=None, compare=False)
    derived_from: tuple = field(default=(), compare=False)  # every release the table was derived from
    # the modules run with `python -m` (scripts.toml) in these releases
    scripts: "Scripts | None" = field(default=None, compare=False)
    aliases: dict = field(default_factory=dict, compare=False)  # flag -> its argument, for flags of no field

    @cached_property
    def sorted_flags(self) -> tuple:
        return tuple(sorted(self.known_flags))

    def flags_beginning(self, prefix: str) -> list:
        """The known flags ``prefix`` begins, in order (argparse's abbreviations)."""
        return flags_beginning(self.sorted_flags, prefix)

    @per_object
    def for_releases(self, releases) -> "Table":
        """The table of a project on these releases (one pinned release, or all of a range):
        a field, choice or flag is there if any of them has it, so that a finding means the
        call fails on every one."""
        releases = tuple(releases)
        if not releases:
            return self
        commands = self.commands.for_releases(releases) if self.commands is not None else None
        scripts = self.scripts.for_releases(releases) if self.scripts is not None else None
        if not self.history:
            return dataclasses.replace(self, commands=commands, scripts=scripts)

        def present(span: tuple) -> bool:
            return any(in_releases(*span, release) for release in releases)

        fields = {}
        for name, full in self.history.items():
            if not present(full.range):
                continue
            if not (full.choice_ranges or full.flag_ranges or full.open_choices or full.extensible_runs
                    or full.word_ranges):
                fields[name] = full  # every choice and flag of it in every release that has it
                continue
            fixed = not any(present(span) for span in full.open_choices)
            fields[name] = dataclasses.replace(
                full,
                choices=tuple(c for c in full.choices if fixed and present(_span_of(full.choice_ranges, c))),
                flags=tuple(f for f in full.flags if present(_span_of(full.flag_ranges, f))),
                extensible=full.extensible and (not full.extensible_runs
                                                or any(present(span) for span in full.extensible_runs)),
                words=tuple(w for w, runs in full.word_ranges if any(map(present, runs))) if full.word_ranges
                else full.words,
            )
        manual = self.manual_everywhere | frozenset(f for f, span in self.manual_ranges.items() if present(span))
        by_flag = {flag: f for f in fields.values() for flag in f.flags}
        ordered = sorted(releases, key=version_key)
        version = named(ordered)
        return Table(version, fields, by_flag, manual, frozenset(by_flag) | manual, tuple(ordered),
                     self.history, self.manual_ranges, self.manual_everywhere, self.deprecated,
                     self.deprecated_values, commands, self.derived_from, scripts)

    @property
    def targets(self) -> tuple:
        """The releases judged: those the table stands for, else the one of ``version``."""
        return self.releases or (self.version,)

    def deprecation(self, flag: str) -> "Deprecation | None":
        """How sglang last deprecated the flag, if it did in some release."""
        runs = self.deprecated.get(flag)
        return runs[-1] if runs else None

    def deprecates(self, flag: str) -> "Deprecation | None":
        """The deprecation, when every release of this table registers the flag as deprecated:
        as the newest of them does, its effect where all of them agree ("" otherwise)."""
        releases = self.targets
        runs = [run for run in self.deprecated.get(flag, ()) if any(in_releases(*run.range, r) for r in releases)]
        if not runs or not all(any(in_releases(*run.range, r) for run in runs) for r in releases):
            return None
        effects = {run.effect for run in runs}
        return dataclasses.replace(runs[-1], effect=runs[-1].effect if len(effects) == 1 else "")

    def first_release(self) -> str:
        """The oldest release the table was derived from."""
        return self.derived_from[0] if self.derived_from else self.version

    def value_deprecation(self, name: str, value) -> "ValueDeprecation | None":
        """How sglang deprecated this value of the field, if it did in some release."""
        return self.deprecated_values.get(name, {}).get(value) if isinstance(value, str) else None

    def deprecates_value(self, name: str, value) -> "ValueDeprecation | None":
        """The value's deprecation, when every release of this table deprecates it."""
        return self._in_every_release(self.value_deprecation(name, value))

    def _in_every_release(self, found):
        if found is None or not all(in_releases(*found.range, release) for release in self.targets):
            return None
        return found

    def change(self, span: tuple) -> str:
        """`` (removed in sglang X)`` / `` (added in sglang X)`` for something this table's
        releases lack but another release has; "" otherwise."""
        return change(span, self.targets)

    def field_change(self, name: str) -> str:
        full = self.history.get(name)
        return self.change(full.range) if full is not None else ""

    def flag_change(self, flag: str) -> str:
        """When the flag came or went: the widest of its lives as a field's flag, as a flag
        registered by hand, and as a deprecated spelling (a flag often lives on as the last)."""
        spans = [
            _span_of(full.flag_ranges, flag) if _span_of(full.flag_ranges, flag) != EVERY_RELEASE else full.range
            for full in self.history.values() if flag in full.flags
        ]
        if flag in self.manual_ranges:
            spans.append(self.manual_ranges[flag])
        elif flag in self.manual_everywhere:
            spans.append(EVERY_RELEASE)
        if flag in self.deprecated:
            spans.append(self.deprecated[flag][0].span)
        return self.change(life(spans))

    def choice_change(self, name: str, choice) -> str:
        full = self.history.get(name)
        if full is None or choice not in full.choices:
            return ""
        return self.change(_span_of(full.choice_ranges, choice))


@dataclass(frozen=True)
class Deprecation:
    """A flag sglang deprecates, in a run of releases that deprecate it alike: the action that
    registers it (a ``Deprecated...Action``, or the plain one of a flag whose help or warning
    says it is deprecated), the replacement it names (``new_flag=``), what it does with the
    flag (``effect``: "stops" the launch, "ignored", or "" it still sets its value), sglang's
    words on what to do instead where it names no ``new_flag`` (``says``), the releases of the
    run (``range``) and those from the first release that deprecated it to its removal
    (``span``: after that, the flag is gone)."""

    action: str
    new: str | None
    range: tuple = EVERY_RELEASE
    effect: str = ""
    says: str | None = None
    span: tuple = EVERY_RELEASE

    def severity(self, valued: bool) -> str:
        """"error" where the launch stops on the flag (``valued``: written with a value): sglang
        raises on it, or ignores a flag that takes no value but one is given (argparse rejects
        the value); "" (the rule's: a warning) where sglang warns and goes on."""
        return "error" if self.effect == "stops" or (self.effect == "ignored" and valued) else ""

    def certain_rename(self) -> str | None:
        """The replacement, when writing it instead changes nothing else: a plain flag, and an
        action that keeps the value (a boolean renamed, a valued flag renamed)."""
        if self.new and _PLAIN_FLAG.match(self.new) and self.action in RENAMING_ACTIONS:
            return self.new
        return None

    def environment(self) -> tuple:
        """The environment variables sglang's words tell to set instead, as written (``X=1``)."""
        return tuple(_ENVIRONMENT.findall(self.says or ""))


@dataclass(frozen=True)
class ValueDeprecation:
    """A value sglang still takes for a field but rewrites to ``new``, warning; ``exact``: it
    does nothing else on that value (so writing ``new`` instead changes nothing)."""

    new: str
    exact: bool
    range: tuple = EVERY_RELEASE


_PLAIN_FLAG = re.compile(r"^--[a-z0-9][a-z0-9-]*$")
_ENVIRONMENT = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[^\s,;]*[^\s,;.])?")
RENAMING_ACTIONS = frozenset({"DeprecatedStoreTrueAction", "DeprecatedAliasStoreAction"})


def _deprecation_runs(listed, flag: str) -> tuple:
    """A flag's runs of deprecation, oldest first (one inline table, or a list of them), each
    with the span of them all."""
    specs = listed.subs(flag) if isinstance(listed.table.get(flag), list) else [listed.sub(flag)]
    runs = []
    for spec in specs:
        runs.append(Deprecation(
            spec.str("action"), spec.str("new", required=False),
            (spec.str("since", required=False) or "", spec.str("until", required=False) or ""),
            spec.str("effect", required=False) or "", spec.str("says", required=False),
        ))
        spec.done()
    span = (runs[0].range[0], runs[-1].range[1])
    return tuple(dataclasses.replace(run, span=span) for run in runs)


def _word_runs(spec) -> tuple:
    """``word_ranges``: converter -> its runs of releases, ((word, ((since, until), ...)), ...)."""
    found = spec.any("word_ranges", required=False) or {}
    if not isinstance(found, dict) or not all(isinstance(runs, list) for runs in found.values()):
        raise spec.error("word_ranges", "must be a table of converter = [[since, until], ...]")
    return tuple((word, tuple(_span(spec, "word_ranges", span) for span in runs)) for word, runs in found.items())


def _ranges(spec, key: str) -> tuple:
    found = spec.any(key, required=False) or {}
    if not isinstance(found, dict):
        raise spec.error(key, "must be a table of item = [since, until]")
    return tuple((item, _span(spec, key, span)) for item, span in found.items())


def _span(spec, key: str, span) -> tuple:
    if not (isinstance(span, list) and len(span) == 2 and all(isinstance(end, str) for end in span)):
        raise spec.error(key, f"a range is [since, until] (strings, \"\" for an open end), got {span!r}")
    return tuple(span)


@lru_cache(maxsize=None)
def load_table(path: Path) -> Table:
    top = Fields(read_toml(path), path)
    version = top.str("sglang_version")
    manual = top.any("manual_flags", required=False) or []
    releases = tuple(top.any("releases", required=False) or ())
    manual_ranges = dict(_ranges(top, "manual_flag_ranges"))
    deprecated = {}
    listed = top.sub("deprecated_flags", required=False)
    for flag in sorted(listed.table) if listed is not None else ():
        deprecated[flag] = _deprecation_runs(listed, flag)
    values: dict = {}
    listed = top.sub("deprecated_values", required=False)
    for name in sorted(listed.table) if listed is not None else ():
        olds = listed.sub(name)
        for old in sorted(olds.table):
            spec = olds.sub(old)
            values.setdefault(name, {})[old] = ValueDeprecation(
                spec.str("new"), spec.bool("exact"),
                (spec.str("since", required=False) or "", spec.str("until", required=False) or ""),
            )
            spec.done()
    table = top.sub("fields")
    fields = {}
    for name in sorted(table.table):
        spec = table.sub(name)
        choices = tuple(spec.any("choices", required=False) or ())
        by_text = {str(c): c for c in choices}  # TOML keys are strings; the choice may be a number
        word_ranges = _word_runs(spec)
        word = spec.str("word", required=False) or ""  # (the newest release's; every one's where no ranges)
        fields[name] = Field(
            name=name,
            type=spec.str("type"),
            optional=spec.bool("optional"),
            choices=choices,
            extensible=spec.bool("extensible", required=False) or False,
            flags=tuple(spec.any("flags", required=False) or ()),
            range=(spec.str("since", required=False) or "", spec.str("until", required=False) or ""),
            choice_ranges=tuple((by_text.get(c, c), span) for c, span in _ranges(spec, "choice_ranges")),
            flag_ranges=_ranges(spec, "flag_ranges"),
            open_choices=tuple(_span(spec, "open_choices", span) for span in spec.any("open_choices", required=False)
                               or ()),
            extensible_runs=tuple(_span(spec, "extensible_runs", span)
                                  for span in spec.any("extensible_runs", required=False) or ()),
            nargs=spec.str("nargs", required=False),
            item=spec.str("item", required=False),
            parse=spec.str("parse", required=False),
            words=tuple(word for word, _ in word_ranges) or (word,),
            word_ranges=word_ranges,
        )
        spec.any("default", required=False)
        spec.done()
    top.done()
    if not releases:
        by_flag = {flag: f for f in fields.values() for flag in f.flags}
        return Table(version, fields, by_flag, frozenset(manual), frozenset(by_flag) | frozenset(manual),
                     deprecated=deprecated, deprecated_values=values)
    everywhere = frozenset(f for f in manual if f not in manual_ranges)
    full = Table(version, fields, {}, everywhere, everywhere, releases, fields, manual_ranges, everywhere, deprecated,
                 values, derived_from=releases)
    return full.for_releases([version])  # the newest release's table, until a target asks for others


# --- the `sglang` command: serve's backends, generate (derived/serve.toml) ------------------------


@dataclass(frozen=True)
class ParserTable:
    """What one parser of the ``sglang`` command takes (the diffusion server's, generate's), in
    the releases of a table: its option strings, and of the other flags, any (``open``: its
    unknown words are ignored) or those with one of ``prefixes`` or, after ``--``, one of
    ``suffixes`` (``--component-paths.vae``, ``--vae-path``: read after argparse, not rejected)."""

    flags: frozenset
    prefixes: tuple = ()
    suffixes: tuple = ()
    open: bool = False

    @cached_property
    def sorted_flags(self) -> tuple:
        return tuple(sorted(self.flags))

    def takes(self, flag: str) -> bool:
        """A flag it registers, or a prefix of one (argparse takes a unique one; an ambiguous
        one is argparse's error, not judged here), one of the other forms it takes, or any."""
        return (self.open or flag in self.flags or bool(flags_beginning(self.sorted_flags, flag))
                or flag.startswith(self.prefixes) or (flag.startswith("--") and flag.endswith(self.suffixes)))


@dataclass(frozen=True)
class _ParserHistory:
    """A parser of serve.toml with the releases of each thing, each as spans (since, until):
    the releases with the parser, of each flag (every release of the parser: EVERY_RELEASE),
    prefix and suffix, and those that take any other flag (none: ())."""

    spans: tuple
    flags: dict
    prefixes: dict
    suffixes: dict
    open: tuple


@dataclass(frozen=True)
class Commands:
    """``sglang serve`` and ``sglang generate`` as the releases of a table have them: whether
    some release has ``sglang serve``, the backends it picks from (``llm``: ServerArgs' flags,
    the server-argument table; ``diffusion``), the flags it reads itself (``--model-type``) and
    whether every release reads them (only then does ``--model-type X`` pick X in all of them),
    and the diffusion server's and generate's parsers (what any release takes)."""

    version: str = ""
    serve: bool = False
    backends: frozenset = frozenset()
    selector: frozenset = frozenset()
    selects: bool = False
    diffusion: ParserTable | None = None
    generate: ParserTable | None = None
    history: dict = field(default_factory=dict, compare=False)  # see load_commands
    # the keywords of the diffusion server's ServerArgs from Python, as a parser's flags (any
    # release's; none where no release of the table has that ServerArgs)
    diffusion_keywords: ParserTable | None = None
    diffusion_config_keywords: ParserTable | None = None  # what its pipeline config takes out first

    @per_object
    def for_releases(self, releases) -> "Commands":
        releases = tuple(sorted(releases, key=version_key))
        history = self.history

        def present(spans: tuple, among=releases) -> bool:
            return any(in_runs(spans, release) for release in among)

        serving = tuple(r for r in releases if present(history.get("serve", ()), (r,)))
        selector = {flag: spans for flag, spans in history.get("selector", {}).items() if present(spans, serving)}
        parsers = {}
        for name, parser in history.get("parsers", {}).items():
            if present(parser.spans):
                parsers[name] = ParserTable(
                    frozenset(f for f, spans in parser.flags.items() if present(spans)),
                    tuple(p for p, spans in parser.prefixes.items() if present(spans)),
                    tuple(s for s, spans in parser.suffixes.items() if present(spans)),
                    present(parser.open),
                )
        version = named(releases)
        backends = frozenset(name for name, spans in history.get("backends", {}).items() if present(spans, serving))
        selects = bool(serving) and all(any(present(spans, (r,)) for spans in selector.values()) for r in serving)
        return Commands(version, bool(serving), backends, frozenset(selector), selects, parsers.get("diffusion"),
                        parsers.get("generate"), history, parsers.get("diffusion_keywords"),
                        parsers.get("diffusion_config_keywords"))

    def keyword_span(self, name: str) -> tuple:
        """The releases with this keyword of the diffusion server's ServerArgs, as one span (its
        first release, the first after its last; "" an open end), for what came or went."""
        parser = self.history.get("parsers", {}).get("diffusion_keywords")
        spans = parser.flags.get(name, ()) if parser is not None else ()
        return life([one for span in spans for one in (parser.spans if span == EVERY_RELEASE else (span,))])


@lru_cache(maxsize=None)
def load_commands(path: Path) -> Commands:
    """serve.toml: the subcommands of every release it was derived from, as the newest has them
    (:meth:`Commands.for_releases` for others). The releases of each thing are ``[since, until]``
    or a list of those (it left and came back)."""
    top = Fields(read_toml(path), path)
    version = top.str("sglang_version")
    top.any("releases", required=False)  # (the releases it was derived from: the spans say it all)
    history: dict = {"parsers": {}}
    serve = top.sub("serve", required=False)
    if serve is not None:
        history["serve"] = _spans(serve, "range", serve.any("range"))
        history["backends"], history["selector"] = _span_table(serve, "backends"), _span_table(serve, "selector")
        serve.done()
    parsers = top.sub("parsers", required=False)
    for name in sorted(parsers.table) if parsers is not None else ():
        spec = parsers.sub(name)
        flags = dict.fromkeys(spec.strings("flags", required=False) or (), (EVERY_RELEASE,))
        flags.update(_span_table(spec, "flag_ranges"))
        opened = spec.any("open", required=False)
        history["parsers"][name] = _ParserHistory(
            _spans(spec, "range", spec.any("range")), flags, _span_table(spec, "prefixes"),
            _span_table(spec, "suffixes"), _spans(spec, "open", opened) if opened is not None else ())
        spec.done()
    top.done()
    return Commands(history=history).for_releases([version])


def _spans(spec, key: str, value) -> tuple:
    """``[since, until]`` or a list of them, as a tuple of spans."""
    if isinstance(value, list) and value and all(isinstance(item, list) for item in value):
        return tuple(_span(spec, key, item) for item in value)
    return (_span(spec, key, value),)


def _span_table(spec, key: str) -> dict:
    found = spec.any(key, required=False) or {}
    if not isinstance(found, dict):
        raise spec.error(key, "must be a table of item = [since, until] (or a list of those)")
    return {item: _spans(spec, key, value) for item, value in found.items()}


# --- the modules run with `python -m` (derived/scripts.toml) --------------------------------------


@dataclass(frozen=True)
class Script:
    """A module of sglang run with ``python -m`` as the releases of a table have it. ``judged``:
    every one of them has it, parsing a command line whose option strings were all read (one
    parser, ``parse_args``, prefixes taken), alike as to ServerArgs: only then is a flag none of
    them takes reported. ``flags``: its own option strings in any of them; ``server_args``: its
    parser takes every server flag too."""

    module: str
    present: bool  # in every release of the table
    absent: bool  # in none of them
    span: tuple  # (the first release that has it, the first after its last): its whole life
    judged: bool = False
    server_args: bool = False
    flags: frozenset = frozenset()
    aliases: dict = field(default_factory=dict)  # flag -> the first long flag of its argument
    moved_to: str = ""  # where it went, when it is absent and that module is present
    unchanged: bool = False  # running moved_to runs what the old path ran

    def table(self, server: "Table") -> "Table":
        """The flags its parser takes, as a server-argument table: the server table's with its
        own added (ServerArgs.add_cli_args and its own arguments in one parser), else its own."""
        own = frozenset(self.flags)
        if self.server_args:
            return dataclasses.replace(server, manual_flags=server.manual_flags | own,
                                       known_flags=server.known_flags | own, aliases=dict(self.aliases))
        return Table(server.version, {}, {}, own, own, server.releases, aliases=dict(self.aliases))


@dataclass(frozen=True)
class _ScriptHistory:
    spans: tuple
    judged: tuple
    server_args: tuple
    exact: tuple
    flags: dict  # flag -> spans (EVERY_RELEASE for every release that parses)
    aliases: dict
    moved_to: str
    unchanged: bool


@dataclass(frozen=True)
class Scripts:
    """scripts.toml narrowed to the releases of a table: module -> :class:`Script`."""

    modules: dict = field(default_factory=dict)
    history: dict = field(default_factory=dict, compare=False)

    def get(self, module: str) -> Script | None:
        return self.modules.get(module)

    @per_object
    def for_releases(self, releases) -> "Scripts":
        releases = tuple(releases)

        def every(spans: tuple) -> bool:
            return all(in_runs(spans, release) for release in releases)

        def some(spans: tuple) -> bool:
            return any(in_runs(spans, release) for release in releases)

        found = {}
        for name, item in self.history.items():
            present, absent = every(item.spans), not some(item.spans)
            judged = present and every(item.judged) and (every(item.server_args) or not some(item.server_args)) \
                and not some(item.exact)
            target = self.history.get(item.moved_to)
            moved = item.moved_to if absent and target is not None and every(target.spans) else ""
            found[name] = Script(name, present, absent, life(item.spans), judged, judged and every(item.server_args),
                                 frozenset(f for f, spans in item.flags.items() if some(spans)), item.aliases,
                                 moved, bool(moved) and item.unchanged)
        return Scripts(found, self.history)


@lru_cache(maxsize=None)
def load_scripts(path: Path) -> Scripts:
    """scripts.toml: the modules of every release it was derived from (narrowed to the newest
    release; :meth:`Scripts.for_releases` for others)."""
    top = Fields(read_toml(path), path)
    version = top.str("sglang_version")
    top.any("releases", required=False)
    history = {}
    modules = top.sub("modules", required=False)
    for name in sorted(modules.table) if modules is not None else ():
        spec = modules.sub(name)
        spans = {key: _spans(spec, key, spec.any(key)) if spec.any(key, required=False) is not None else ()
                 for key in ("range", "parses", "judged", "server_args", "exact")}
        flags = dict.fromkeys(spec.strings("flags", required=False) or (), spans["parses"])
        flags.update({flag: _spans(spec, "flag_ranges", value)
                      for flag, value in (spec.any("flag_ranges", required=False) or {}).items()})
        spec.any("runs", required=False)  # (the stubs: the deriver names where they moved)
        history[name] = _ScriptHistory(spans["range"], spans["judged"], spans["server_args"], spans["exact"], flags,
                                       dict(spec.any("aliases", required=False) or {}),
                                       spec.str("moved_to", required=False) or "",
                                       bool(spec.bool("unchanged", required=False)))
        spec.done()
    top.done()
    return Scripts(history=history).for_releases([version])
