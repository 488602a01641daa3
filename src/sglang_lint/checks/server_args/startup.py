"""The start-up aspect of server-args (SGL012): sglang's validation of a server's arguments,
run over the arguments a launch sets.

``rules/derived/startup.toml`` (derive/startup/run.py) holds, per raise or assert of that
validation, a ``fails-when`` condition over the fields and environment variables and the
releases that have it. A launch's settings (its flags or keywords, known literals only), the
environment variables written with it, and for the fields it leaves out the target release's
defaults (only where the launch certainly sets nothing else) are the values the condition is
evaluated over, three-valued (checks/fails_when/language.py): a finding only where it is certainly true in
every target release.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from sglang_lint.analysis.kinds import non_empty_text, shown_kind
from sglang_lint.catalog.platforms import Machine
from sglang_lint.checks.base import show_value
from sglang_lint.checks.fails_when.values import TruthOnly
from sglang_lint.checks.fails_when.language import RUNNING, SHARED, UNKNOWN, Bound, certain, evaluate, truth
from sglang_lint.checks.messages import ANONYMOUS, SHOWN_WRAPPERS, filled, shown_as, template_field
from sglang_lint.checks.precedence import also, first_raised
from sglang_lint.checks.server_args.kept_verdicts import kept
from sglang_lint.checks.server_args.startup_table import StartupCheck, StartupTable, load_startup, parsed_condition
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import mapping_may_be_known, value_may_be_known

DUMMY_MODELS = ("none", "dummy")  # sglang skips the checks that need a model for these


@dataclass(frozen=True)
class Setting:
    """A field as a launch sets it: its value (UNKNOWN where not a known literal), what a
    finding points at, and how the launch wrote it (``--tp-size 3``, ``tp_size=3``)."""

    value: object
    node: object
    shown: str


@dataclass(frozen=True)
class Launch:
    """What a launch says about its arguments: the fields it sets, whether it certainly sets
    no other (then the others are the release's defaults), and the environment variables
    written with it."""

    settings: dict
    complete: bool
    environ: dict = field(default_factory=dict)
    anchor: object = None  # what a finding no setting takes part in points at (the call, the launcher)
    # the worth of the named values the checks read over this launch, shared between checks
    worth: dict = field(default_factory=dict, compare=False, hash=False, repr=False)


def values(check: StartupCheck, launch: Launch, left_out: frozenset = frozenset()) -> dict:
    """The values the check's condition reads: the launch's settings and environment, and
    the defaults of the fields it leaves out (but ``left_out``'s)."""
    _, names, named, _ = check.parsed
    return launch_values(check, launch, names, named, left_out)


def launch_values(check: StartupCheck, launch: Launch, names, named: dict, left_out: frozenset = frozenset()) -> dict:
    """``names`` bound to the launch's settings and environment, and the defaults of the
    fields it leaves out (but ``left_out``'s), beside the ``named`` values."""
    bound: dict = {**named, SHARED: launch.worth}
    if check.machine:  # (the probes' answers on the declared machine)
        bound.update(check.machine)
    for name in names:
        if name in launch.settings:
            bound[name] = launch.settings[name].value
        elif name in launch.environ:
            bound[name] = launch.environ[name]
        elif launch.complete and name in check.defaults and name not in left_out:
            bound[name] = check.defaults[name]
    return {k: v for k, v in bound.items() if v is not UNKNOWN}


def defaults_needed(check: StartupCheck, launch: Launch) -> list[str]:
    """The defaults a failing launch needs to fail: each taken away in turn, kept only where
    the condition is no longer certain without it."""
    expression, names, _, _ = check.parsed
    used = sorted(n for n in names if n not in launch.settings and n not in launch.environ
                  and n in check.defaults and launch.complete)
    dropped: set = set()
    for name in used:
        if _certain(check, expression, values(check, launch, frozenset(dropped | {name})), True):
            dropped.add(name)
    return [n for n in used if n not in dropped]


def needed_fields(condition: str, values: tuple, defaults: dict) -> tuple:
    """The fields the condition cannot be true without, sorted: each, at its default with every
    other input unknown, makes it certainly false (one evaluation, no cases: what is false so
    is false whatever the others are). The deriver writes them into the table (``needs``)."""
    expression, names, named, _ = parsed_condition(condition, values)
    if expression is None:
        return ()
    # The named parts read with no field known are worth the same with one field known where
    # they do not read it (a part's worth is its inputs'): each is evaluated once, not per field.
    unknowing: dict = {}
    evaluate(expression, named, unknowing)
    return tuple(sorted(name for name in defaults if name in names and truth(evaluate(
        expression, {**named, name: defaults[name]}, _not_reading(unknowing, named, name))) is False))


def _not_reading(worth: dict, named: dict, name: str) -> dict:
    """The parts of ``worth`` (part -> its worth) that do not read ``name``, itself or through
    another part, and that are read the same wherever they are met (no circle of parts)."""
    return {part: value for part, value in worth.items() if value is not RUNNING
            and named[part].meaning is not None and name not in named[part].leaves}


def _may_fire(check: StartupCheck, launch: Launch) -> bool:
    """Does the launch set every field the check needs, to a known value other than its default?
    (One it leaves at its default or unknown keeps the condition false, or unknown, whatever
    the rest: never certainly true.)"""
    for name in check.needs:
        setting = launch.settings.get(name)
        if setting is None or setting.value is UNKNOWN or _same(setting.value, check.defaults.get(name)):
            return False
    return True


def _same(value: object, default: object) -> bool:
    """The default itself, to the evaluator (``1.0`` is not the default ``1``: isinstance tells)."""
    return type(value) is type(default) and repr(value) == repr(default)


def fails(check: StartupCheck, launch: Launch) -> bool:
    if check.needs and not _may_fire(check, launch):
        return False
    if not _touched(check.words, launch):
        return False  # (the names it reads are among its words: nothing of it is set)
    return kept(check, launch, "fails", (), _fails)


def _fails(check: StartupCheck, launch: Launch) -> bool:
    expression, names, _, _ = check.parsed
    return expression is not None and _touched(names, launch) \
        and _certain(check, expression, values(check, launch), True)


_VERDICTS: dict = {}  # (condition, values, inputs, answer) -> verdict: launches of a run share most inputs
_MOST_VERDICTS = 100_000


def _certain(check: StartupCheck, expression: ast.expr, env: dict, answer: bool) -> bool:
    """Is the check's condition certainly ``answer`` over ``env`` (language.certain)? Kept by
    what decides it: the condition, its values and the inputs it reads (the screen and the
    engine ask again for each launch, and the launches of a file or a project mostly repeat
    a few settings)."""
    try:
        key = (check.fails_when, check.values,
               tuple(sorted((k, v) for k, v in env.items() if k != SHARED and type(v) is not Bound)), answer)
        found = _VERDICTS.get(key, _VERDICTS)
    except TypeError:  # (a list among the inputs)
        return certain(expression, env, answer)
    if found is _VERDICTS:
        if len(_VERDICTS) >= _MOST_VERDICTS:
            _VERDICTS.clear()
        found = _VERDICTS[key] = certain(expression, env, answer)
    return found


def _touched(names: frozenset, launch: Launch) -> bool:
    """Does the launch set anything the condition reads? Over the release's defaults alone a
    check never fails (sglang starts with its own defaults), so the others are not evaluated."""
    return not names.isdisjoint(launch.settings) or not names.isdisjoint(launch.environ)


def may_fail(table: StartupTable, launch: Launch, text: bytes | None = None, releases: tuple | None = None) -> bool:
    """The screen's verdict: may a check of any of ``releases`` (None: of any release) fail this
    launch? Certainly, as :func:`findings` asks, where the check reads no environment variable;
    where it reads one the file's ``text`` names (None: any), unless certainly not (the engine
    may know the variable's value where the file writes it)."""
    for check in table.of_releases(releases):
        if check.needs and not _may_fire(check, launch):
            continue  # (never certainly true: the engine reports nothing of it)
        named = None if text is None else tuple(w for w in check.variable_words if w.encode() in text)
        if not _touched(check.words, launch) and (named == () or named is None and not check.may_read_a_variable):
            continue  # (nothing it may read is set, nor a variable the file names)
        if kept(check, launch, "may fail", (named,), lambda check, launch: _may_fail(check, launch, named)):
            return True
    return False


def _may_fail(check: StartupCheck, launch: Launch, named: tuple | None) -> bool:
    """:func:`may_fail` of one check; ``named``: the variables the file names (None: any)."""
    expression, names, _, variables = check.parsed
    variables = [name for name in variables if named is None or name in named]
    if expression is None or not (variables or _touched(names, launch)):
        return False
    env = values(check, launch)
    return _certain(check, expression, env, True) or bool(variables and not _certain(check, expression, env, False))


def keyword_screen(path: Path, names: set, releases: tuple | None = None, machine: Machine | None = None):
    """A keyword call may fail a start-up check unless no check of ``releases`` (None: of any
    release) may fail the launch its literal keywords make (:func:`may_fail`, the engine's
    reading of them)."""
    def screen(call, facts) -> bool:
        settings = {}
        complete = not call.args
        for keyword in call.keywords:
            if keyword.arg is None:
                if mapping_may_be_known(keyword.value, facts):
                    return True  # **kwargs: a dict the engine may read
                complete = False
                continue
            if keyword.arg not in names:
                continue
            try:
                value = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                if value_may_be_known(keyword.value, facts, lambda _: True):
                    return True  # a name the engine may follow to a literal
                value = UNKNOWN
            settings[keyword.arg] = Setting(value, None, keyword.arg)
        return may_fail(load_startup(path, machine), Launch(settings, complete), file_text(facts), releases)

    return screen


def file_text(facts) -> bytes:
    """The screened file's bytes (from its facts, or a call's view of them)."""
    return getattr(facts, "facts", facts).data


def findings(table: StartupTable, launch: Launch, releases: tuple, version: str, elsewhere: tuple = (),
             refused: frozenset = frozenset(), when: str = "at start-up"):
    """(node, message) for the check that certainly fails in every one of ``releases`` and that
    sglang runs first, and each later one that reads nothing an earlier one reads (it fails
    whichever way those are fixed: checks/precedence.py); but those whose message begins as
    one of ``elsewhere`` and those that read a field in ``refused`` (a value outside its
    choices), which other rules report."""
    model = launch.settings.get("model_path")
    if model is not None and isinstance(model.value, str) and model.value.lower() in DUMMY_MODELS:
        return
    verdicts: dict = {}  # id(check) -> its verdict: a check several of the releases have is evaluated once

    def failed(check: StartupCheck) -> bool:
        found = verdicts.get(id(check))  # (by identity: the table holds its checks, and hashing one is slow)
        if found is None:
            found = verdicts[id(check)] = fails(check, launch)
        return found

    failing = []  # the first release's check of each site that fails in every release
    # (a site none of whose checks reads what the launch sets fails nothing, as fails() says)
    for checks in table.sites_reading(releases, launch.settings, launch.environ):
        hits = []
        for release in releases:
            hit = next((c for c in checks if c.in_release(release) and failed(c)), None)
            if hit is None:
                break
            hits.append(hit)
        else:
            failing.append(hits[0])
    failing.sort(key=lambda check: check.rank)
    for check, later in first_raised(failing, lambda check: check.parsed.names):
        if not check.message.startswith(elsewhere) and not refused & check.parsed.names:
            node, message = _finding(check, launch, version, when)
            yield node, also(message) if later else message


def _finding(check: StartupCheck, launch: Launch, version: str, when: str):
    names = check.parsed.names
    involved = [setting for name, setting in launch.settings.items() if name in names]  # as the launch wrote them
    variables = [f"{n}={launch.environ[n]}" for n in sorted(names) if n in launch.environ]
    left = [f"{n}={check.defaults[n]!r}" for n in defaults_needed(check, launch)]
    said = _joined([s.shown for s in involved] + variables) or "these arguments"
    if left:
        said += f" ({', '.join(left)} by default)"
    module, _, function = check.site.partition(": ")
    where = module.removeprefix("sglang.").replace(".", "/") + ".py"
    if check.declared:
        when = f"{when} on the declared {check.declared}"
    message = (f"{said}: sglang {version} raises {check.exception} {when} ({where}: {function}): "
               f"{_quoted(shown_message(check, launch))}")
    return _to_change(check, launch, involved), message


def _to_change(check: StartupCheck, launch: Launch, involved: list) -> object:
    """Where a finding points: the first setting the launch wrote that, set back to its
    default, makes the check pass (the argument the user must change: of ``--model-path m
    --served-model-name a:b``, the name, which sglang reads in place of the path); else the
    first setting the check reads; else the launch itself."""
    if not involved:
        return launch.anchor
    expression = check.parsed[0]
    names = {id(setting): name for name, setting in launch.settings.items()}
    for setting in involved:
        name = names[id(setting)]
        if name not in check.defaults:
            continue
        undone = {**launch.settings, name: Setting(check.defaults[name], setting.node, setting.shown)}
        if _certain(check, expression, values(check, Launch(undone, launch.complete, launch.environ)), False):
            return setting.node
    return involved[0].node


def shown_message(check: StartupCheck, launch: Launch) -> str:
    """sglang's message as this launch makes it: each ``{...}`` whose expression the check
    records, evaluated over the launch's values (its settings, its environment, the defaults of
    what it leaves out), where certain (checks/messages.py)."""
    if not check.shown or check.message.count(ANONYMOUS) != len(check.shown):
        return filled(check.message, lambda index, expr: UNKNOWN if index >= 0 else template_field(expr))

    def value_of(index: int, expr: str) -> object:
        if index < 0:
            return template_field(expr)
        text = check.shown[index]
        if not text:
            return UNKNOWN
        expression, names, named, _ = parsed_condition(text, check.shown_values)
        if expression is None:
            return UNKNOWN
        how = None
        if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name) \
                and expression.func.id in SHOWN_WRAPPERS and expression.args:
            how, expression = expression, expression.args[0]
        return shown_as(evaluate(expression, launch_values(check, launch, names, named)), how)

    return filled(check.message, value_of)


def _joined(parts: list[str]) -> str:
    """``a``, ``a with b``, ``a with b and c``."""
    if len(parts) <= 2:
        return " with ".join(parts)
    return f"{parts[0]} with {', '.join(parts[1:-1])} and {parts[-1]}"


def _quoted(message: str) -> str:
    text = " ".join(message.split())
    return f'"{text[:200]}{"..." if len(text) > 200 else ""}"'


def flag_value(use) -> object:
    """A flag's value as sglang's parser gives it (``launch_flags.FlagUse``): True for a
    boolean flag, the number or text that follows it, UNKNOWN for anything else (a list, a
    JSON argument, a word not known)."""
    field_ = use.field
    if field_ is None or not use.certain:
        return UNKNOWN
    if field_.type == "bool":
        return True if use.value is None or use.alone else UNKNOWN
    if field_.nargs:
        return _items(use.items, field_.item)
    text = use.value
    if text is None:
        return UNKNOWN
    if field_.parse == "json":
        try:
            return json.loads(text)
        except ValueError:
            return UNKNOWN  # (argparse refuses it: not this check's failure)
    if field_.type == "int":
        try:
            return int(text)
        except ValueError:
            return UNKNOWN
    if field_.type == "float":
        try:
            return float(text)
        except ValueError:
            return UNKNOWN
    if field_.type == "str":
        return text
    return UNKNOWN


def _items(words: tuple | None, item: str | None):
    """A list flag's value as argparse builds it: its words, each converted (UNKNOWN where one
    is not known or does not convert; argparse refuses the launch then)."""
    if words is None:
        return UNKNOWN
    convert = {"int": int, "float": float}.get(item or "", str)
    try:
        return [convert(word) for word in words]
    except ValueError:
        return UNKNOWN


def flag_launch(uses, words, environ: dict | None = None) -> Launch:
    """The launch a command's flags describe; complete where every word is known and every
    flag names a field."""
    settings = {}
    for use in uses:
        if use.field is None:
            continue
        value = flag_value(use)
        shown = use.flag if use.field.type == "bool" else \
            f"{use.flag} {' '.join(use.items)}" if use.field.nargs and use.items else f"{use.flag} {use.value}"
        if use.field.name in settings:  # given twice: argparse keeps the last
            value = value if value is not UNKNOWN and settings[use.field.name].value is not UNKNOWN else UNKNOWN
        # (a finding points at the value written, where it has its own word: what to change)
        settings[use.field.name] = Setting(value, use.value_node or use.element, shown)
    complete = all(w.text is not None and w.whole and w.certain for w in words) and all(
        u.field is not None for u in uses)
    anchor = next((w.node for w in words if w.node is not None), None)
    return Launch(settings, complete, dict(environ or {}), anchor)


def keyword_launch(site, keywords, fields: dict, complete: bool, environ: dict | None = None) -> Launch:
    """The settings of ``Engine(...)``/``ServerArgs(...)`` keywords (built.Entry each): a
    literal the engine knows, or unknown; ``complete`` where the call passes nothing but
    written keywords."""
    settings = {}
    for keyword in keywords:
        if keyword.key not in fields or keyword.value is None:
            continue
        known = site.model.evaluate(keyword.value, keyword.scope, keyword.where) if keyword.certain else []
        value = known[0].value if len(known) == 1 else UNKNOWN
        shown = f"{keyword.key}={show_value(value)}" if value is not UNKNOWN else keyword.key
        if value is UNKNOWN and keyword.certain and non_empty_text(keyword.value, site.model, keyword.scope):
            value, shown = TruthOnly(True), f"{keyword.key}={shown_kind(keyword.value)}"
        settings[keyword.key] = Setting(value, keyword.key_node, shown)
    return Launch(settings, complete, dict(environ or {}), site.node)


def judge(path: Path, table, launches: list[Launch], elsewhere: tuple = (), machine: Machine | None = None):
    """The findings of the start-up checks (derived/startup.toml at ``path``) on each launch,
    in the releases of the server-argument ``table``, on the declared ``machine``; one per node
    and message. ``elsewhere``: the beginnings of sglang's messages another rule reports."""
    startup = load_startup(path, machine)
    releases = table.releases or (table.version,)
    seen = set()
    for launch in launches:
        refused = frozenset(name for name, setting in launch.settings.items()
                            if name in table.fields and table.fields[name].refuses(setting.value))
        for node, message in findings(startup, launch, releases, table.version, elsewhere, refused):
            if node is not None and (id(node), message) not in seen:
                seen.add((id(node), message))
                yield Finding(node, message)
