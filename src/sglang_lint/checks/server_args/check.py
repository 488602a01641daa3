"""server-args: the arguments of ``sgl.Engine(...)``, ``ServerArgs(...)`` and of the launch
flags in a literal argv list, against the table of sglang's server argument fields
(``rules/derived/server_args.toml``, written by ``catalog derive``).

sglang checks these choices only in argparse; from Python, a bad value is accepted and fails
minutes later, once the weights are loaded. One kind, four aspects (one rule each, so each can
be selected or ignored on its own): ``choices`` (a literal outside a field's fixed choices),
``plugin-choices`` (the same, for lists a plugin may extend), ``type`` (``tp_size="2"``) and
``unknown`` (a name or flag no field has)."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.checks.base import (
    FIX_SAFETY,
    CheckKind,
    Trigger,
    argument_of,
    did_you_mean,
    rename_fix,
    rename_hint,
    show_value,
    string_fix,
    suggest,
)
from sglang_lint.analysis.built import Entry, dict_versions
from sglang_lint.checks.server_args.environment import python_launch_env
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.launch.commands import LAUNCHER_WORDS
from sglang_lint.text.words import Identifier
from sglang_lint.checks.server_args.flags import (
    ArgWord, Launch, after_launcher, command_uses, flag_uses, python_words, reaches_server_args,
    fstring_prefix, script_uses, shell_launches, shell_true, split_string,
)
from sglang_lint.analysis.resolve import Known
from sglang_lint.checks.server_args import flag_words, relations as server_relations, startup
from sglang_lint.core.model import Finding, Fix, Span
from sglang_lint.core.rulefile import Fields, read_toml
from sglang_lint.text.pynames import Ref
from sglang_lint.checks.server_args.advice import (
    deprecated_text, foreign_hint, load_foreign, removed_hint, replacement_fix, unexplained_hint, use_value,
    value_fixable, value_replacement_fix,
)
from sglang_lint.checks.server_args import diffusion
from sglang_lint.checks.server_args.scripts import gone_modules, script_ambiguous, script_skipped, script_unknown
from sglang_lint.checks.server_args.table import (
    Commands, Field, Scripts, Table, load_commands, load_scripts, load_table, with_launchers,
)
from sglang_lint.screen.argv import argv_screen, standing_screen
from sglang_lint.screen.calls import mapping_may_be_known, value_may_be_known

ASPECTS = ("choices", "plugin-choices", "type", "unknown", "relations", "deprecated", "startup", "module")
NUMBER_TYPES = {"int": (int,), "float": (int, float)}


@dataclass(frozen=True)
class ServerArgsCheck:
    aspect: str
    table: Table
    extra_names: tuple  # keywords the callee takes besides the fields (Engine's server_args=)
    marker: str | None  # an argv list of a subprocess call must name this (sglang.launch_server)
    positive: tuple = ()  # relations aspect: fields that must be > 0
    at_least: tuple = ()  # relations aspect: (a, b) pairs, a >= b
    startup: object = None  # startup aspect: the path of derived/startup.toml (read on first need)
    elsewhere: tuple = ()  # startup aspect: beginnings of sglang's messages another rule reports
    foreign: dict = dataclasses.field(default_factory=dict, compare=False)  # unknown aspect: other engines' flags
    machine: object = None  # startup aspect: the machine the project declares (catalog/platforms.py)

    def for_releases(self, releases) -> "ServerArgsCheck":
        """The check as a project on these releases has it: the table of those releases."""
        return dataclasses.replace(self, table=self.table.for_releases(releases))

    def on_machine(self, machine) -> "ServerArgsCheck":
        """The check as a project that declares this machine has it (the start-up checks that
        need the platform judged there)."""
        return dataclasses.replace(self, machine=machine) if self.aspect == "startup" else self


def parse(fields, targets):
    aspect = fields.str("aspect")
    if aspect not in ASPECTS:
        raise fields.error("aspect", f"must be one of {', '.join(ASPECTS)}, got {aspect!r}")
    table_path = fields.path.parent / fields.str("table")
    if not table_path.is_file():
        raise fields.error("table", f"{table_path} does not exist (run `sglang-lint catalog derive`)")
    table = load_table(table_path)
    commands, scripts = _commands(fields), _scripts(fields)
    if commands is not None or scripts is not None:
        table = with_launchers(table, commands, scripts)
    positive = fields.strings("positive", required=False) or ()
    pairs = []
    for text in fields.strings("at_least", required=False) or ():
        left, sep, right = (part.strip() for part in text.partition(">="))
        if not sep or left not in table.fields or right not in table.fields:
            raise fields.error("at_least", f"{text!r} is not 'field >= field' with two fields of the table")
        pairs.append((left, right))
    for name in positive:
        if name not in table.fields:
            raise fields.error("positive", f"{name!r} is not a field of the table")
    foreign = {}
    if fields.str("foreign", required=False):
        path = fields.path.parent / fields.str("foreign")
        if not path.is_file():
            raise fields.error("foreign", f"{path} does not exist")
        foreign = load_foreign(path)
    startup = None
    if aspect == "startup":
        startup = fields.path.parent / fields.str("startup")
        if not startup.is_file():
            raise fields.error("startup", f"{startup} does not exist (run `sglang-lint catalog derive`)")
    return ServerArgsCheck(
        aspect=aspect,
        table=table,
        extra_names=fields.strings("extra_names", required=False) or (),
        marker=fields.str("marker", required=False),
        positive=tuple(positive),
        at_least=tuple(pairs),
        startup=startup,
        elsewhere=tuple(fields.strings("reported_elsewhere", required=False) or ()) if startup else (),
        foreign=foreign,
    )


def _commands(fields) -> Commands | None:
    """The table of the ``sglang`` command's subcommands (serve.toml) that the check's targets
    table (launchers.toml) names under ``[serve] table``, if it names one."""
    path = _named_table(fields, "serve")
    return load_commands(path) if path is not None else None


def _scripts(fields) -> Scripts | None:
    """The table of the modules run with ``python -m`` (scripts.toml) that the targets table
    names under ``[scripts] table``, if it names one."""
    path = _named_table(fields, "scripts")
    return load_scripts(path) if path is not None else None


def _named_table(fields, key: str):
    name = fields.str("targets_table", required=False)
    if not name:
        return None
    path = fields.path.parent / name
    table = Fields(read_toml(path), path)  # catalog.targets_table has checked it exists
    section = table.sub(key, required=False)
    found = section.str("table", required=False) if section is not None else None
    if not found:
        return None
    named = path.parent / found
    if not named.is_file():
        raise section.error("table", f"{named} does not exist (run `sglang-lint catalog derive`)")
    return named


def triggers(check):
    params: ServerArgsCheck = check.params
    found = []
    for target in check.targets:
        module = target.name.rpartition(".")[0]
        also = (Identifier(module.rpartition(".")[2]),)
        if target.handed_as in ("command", "shell") and params.marker:
            also += (LAUNCHER_WORDS,)  # a command line must name the launcher to start a server
        if params.aspect == "relations":
            # Both spellings (speculative_x= and --speculative-x) share the field's first word.
            also += tuple(sorted({name.split("_")[0] for name in params.positive + sum(params.at_least, ())}))
        qualified = target.name if target.kind in ("function", "class") else None
        shape = "config" if target.fields else "callable"  # (fields: flags a subclass's body sets)
        found.append(Trigger(target.last_name, shape, also, module, _screen(params, target), qualified))
    if standing(check) is not None:
        # an argv list that starts the launcher, wherever it stands (analysis/standing.py)
        found.append(Trigger("sglang", "file", (LAUNCHER_WORDS,), None,
                             standing_screen(_display_judge(params, marker=params.marker))))
    return found


def _screen(params: ServerArgsCheck, target):
    """A call may fire when it passes a keyword no field has (unknown names), or a value the
    engine may know and this aspect may reject; an argv target, when its list may be known."""
    if target.argument is not None or target.position is not None:
        if target.handed_as in ("command", "shell"):
            return argv_screen(target.argument, target.position, params.marker, judge=_display_judge(
                params, marker=params.marker) if target.handed_as == "command" else None)
        return argv_screen(target.argument, target.position, judge=_display_judge(params, target.program))
    if params.aspect == "module" or target.server:
        return diffusion.screen(params) if target.server else lambda call, facts: False  # (keywords name no module)
    fields = params.table.fields
    names = set(fields) | set(params.extra_names)

    def fails(name):
        def judge(value) -> bool:
            if params.aspect == "startup":
                return True  # any setting may take part in a check
            if params.aspect == "relations":
                return server_relations.may_break_relation(params, name, value)
            return _judge_value(params, fields[name], Known(value, None), "") is not None

        return judge

    if params.aspect == "startup":
        return startup.keyword_screen(params.startup, names, params.table.releases or (params.table.version,),
                                      params.machine)

    def screen(call, facts) -> bool:
        for keyword in call.keywords:
            if keyword.arg is None:
                if mapping_may_be_known(keyword.value, facts):
                    return True  # **kwargs: a dict the engine may read
                continue
            if keyword.arg not in names:
                if params.aspect == "unknown":
                    return True
                continue
            if params.aspect != "unknown" and keyword.arg in fields:
                items = _ast_items(fields[keyword.arg], keyword.value)
                if any(value_may_be_known(v, facts, fails(keyword.arg)) for v in items):
                    return True
        return False

    return screen


def _display_judge(params: ServerArgsCheck, program: str = "", marker: str | None = None):
    """For a list of flags written as a display (``other_args=["--tp", "2"]``): does this aspect
    find anything in its words, read as the engine reads them (launch_flags._word: a string
    literal is its text, an f-string its literal prefix, a name the value it evaluates to,
    anything else an unknown word; analysis/built.py: ``*x`` of a list it knows nothing of, one unknown
    word of no step)? A name the reader shows can have no value the engine evaluates is an
    unknown word. None where the engine may know more (a name it may follow to a string, a ``*``
    it expands). ``program``: catalog.Target.program's.
    ``reader`` (argv_screen.DisplayReader): how many words the engine makes of ``*x`` where
    the screen can tell, and the source text of an f-string. With ``marker``, a command line
    (``[sys.executable, "-m", "sglang.launch_server", "--tp", "2"]``): the words after its
    launcher (flags.after_launcher), none where it names none; None where another program
    (``sglang serve``, a script) takes them."""
    def judge(elements: list[ast.expr], reader=None) -> bool | None:
        words = []
        for element in elements:
            count = reader.starred_words(element.value) if isinstance(element, ast.Starred) and reader else None
            if count is not None:
                # (analysis/built.py UNKNOWN_LIST)
                words += [ArgWord(None, False, Span(0, 0, "", False), -1, False)] * count
                continue
            prefix = fstring_prefix(element, reader) if isinstance(element, ast.JoinedStr) else None
            if prefix is not None:
                words.append(ArgWord(prefix[0], prefix[1], Span(0, 0, prefix[0], False)))
                continue
            if isinstance(element, ast.Name) and reader is not None and not reader.may_evaluate(element):
                words.append(ArgWord(None, False, Span(0, 0, "", False)))  # a name of no value it knows
                continue
            if isinstance(element, (ast.Name, ast.Starred, ast.JoinedStr)):
                return None
            text = element.value if isinstance(element, ast.Constant) and isinstance(element.value, str) else None
            # each word its own place (the findings are counted, never shown)
            words.append(ArgWord(text, text is not None, Span(0, 0, text or "", False)))
        launch = Launch.after(program, words) if marker is None else after_launcher(words, marker)
        if launch is None or launch.command or launch.module:
            return None if launch is not None else False
        if params.aspect == "startup":
            return startup.may_fail(startup.load_startup(params.startup, params.machine),
                                    startup.flag_launch(flag_uses(launch.words, params.table), launch.words, {}),
                                    startup.file_text(reader.facts) if reader is not None else None,
                                    params.table.releases or (params.table.version,))  # (the engine's: judge)
        uses = _unique_uses(params, [launch])
        if params.aspect == "relations":
            return any(use.field is not None and server_relations.may_break_relation(params, use.field.name, use.value)
                       for use in uses)
        return any(True for _ in _judge_uses(params, uses))

    return judge


# A list, tuple or set written for a field with choices (``lora_target_modules=["q_proj"]``)
# is judged element by element, as argparse judges each value of ``nargs``; the screen and the
# check read the same elements.
def _ast_items(field: Field, node):
    if field.choices and isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e for e in node.elts if not isinstance(e, ast.Starred)]
    return [node]


def _cst_items(field: Field, node):
    if field.choices and isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [e.value for e in node.elements if isinstance(e, cst.Element)]
    return [node]


def _judge_value(
    params: ServerArgsCheck, field: Field, known, opening: str, closing: str = "", keep_prefix: str = ""
) -> tuple[str, Fix | None] | None:
    """A message (and fix) when ``known.value`` breaks the field's choices or type, for this
    aspect. ``keep_prefix``: the ``--flag=`` an inline value follows in its literal."""
    value = known.value
    if isinstance(value, Ref) or (value is None and field.optional):
        return None
    version = params.table.version
    via = getattr(known, "via", ())
    shown_value = f"{via[0]} (= {show_value(value)})" if via else show_value(value)
    if params.aspect == "deprecated":
        found = params.table.deprecates_value(field.name, value)
        if found is None:
            return None
        since = found.range[0] or f"{params.table.first_release()} or earlier"
        removed = f", removed in sglang {found.range[1]}" if found.range[1] else ""
        fix = value_replacement_fix(known, found, field, keep_prefix)
        return (f"{opening}{shown_value}{closing}: deprecated since sglang {since}{removed}; "
                f"{use_value(found, fix)}"), fix
    if params.aspect in ("choices", "plugin-choices") and field.choices:
        if field.extensible != (params.aspect == "plugin-choices") or not field.refuses(value):
            return None
        shown = ", ".join(repr(c) for c in field.choices[:12]) + (", ..." if len(field.choices) > 12 else "")
        plugin = " (or one a plugin registers)" if field.extensible else ""
        change = params.table.choice_change(field.name, value)
        message = (
            f"{opening}{shown_value}{closing}: not a choice of sglang {version}'s {field.name}{plugin}"
            f"{change}; expected one of {shown}"
        )
        found = params.table.value_deprecation(field.name, value)
        if found is not None and change.startswith(" (removed") and found.new in field.choices:
            # Deprecated, then removed: the replacement sglang itself named while it still mapped it.
            fix = value_replacement_fix(known, found, field, keep_prefix)
            return message + f"; sglang named {found.new!r} as its replacement" + value_fixable(found, fix), fix
        hint = suggest(value, field.choices)
        if hint is None:
            return message, None
        fix = string_fix(getattr(known, "written", None), hint.value, hint.safe, keep_prefix)
        return message + did_you_mean(repr(hint.value), fix), fix
    if params.aspect == "type" and not field.choices:
        wrong = (
            (isinstance(value, str) and field.type in ("int", "float", "bool"))
            or (isinstance(value, (int, float)) and not isinstance(value, bool) and field.type == "str")
            or (isinstance(value, float) and field.type == "int")
        )
        if wrong:
            kind = type(value).__name__
            return (f"{opening}{shown_value}{closing}: sglang {version}'s {field.name} takes {_a(field.type)}, "
                    f"not {_a(kind)}"), None
    return None


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _keywords(site, target=None):
    """Each keyword of the call as a :class:`~sglang_lint.analysis.built.Entry` (a keyword written in
    it, or a key of a ``**`` dict however it was built, each key once); for a target that
    takes a mapping, the keys of that argument."""
    if target is not None and target.takes == "mapping":
        arg = argument_of(site.node, target.argument, target.position, site)
        if arg is not None:
            yield from _keys(site, arg.value, ())
        return
    exclude = target.exclude if target is not None else ()
    for arg in site.node.args:
        if arg.keyword is not None:
            if arg.keyword.value not in exclude:
                yield Entry(arg.keyword.value, arg.keyword, arg.value, site.scope, site.where)
        elif arg.star == "**":
            yield from _keys(site, arg.value, exclude)


def _keys(site, node, exclude):
    seen = set()
    for version in dict_versions(site.model, node, site.scope, site.where):
        for entry in version.entries.values():
            if id(entry.key_node) not in seen and entry.key not in exclude:
                seen.add(id(entry.key_node))
                yield entry


def wrappers(site, check, target):
    """(parameter, how it is read, catalog.Target.program) for each parameter of the function the
    site is in that may reach this launch (reach.parameter_wrapper decides whether it does): extra
    flags spliced into the command (``*extra``, ``+ extra``, ``.extend(extra)``, or the whole list),
    for the program it runs to judge, ``**kwargs`` or a dict passed on to the engine."""
    if check.params.aspect in ("relations", "startup", "module") or not isinstance(site.node, cst.Call):
        return []
    takes = target.handed_as
    found = []
    if takes in ("flags", "command", "shell"):
        arg = argument_of(site.node, target.argument, target.position, site)
        if arg is None:
            return []
        split = split_string(site, arg.value) if takes == "command" else None
        if isinstance(split, cst.Name):
            found.append((split.value, "shell", ""))  # run(cmd): Popen(cmd.split())
        if isinstance(arg.value, cst.Name):
            how = "shell" if takes == "shell" or shell_true(site) else takes
            found.append((arg.value.value, how, target.program if how == "flags" else ""))
        if takes == "shell":
            return found
        for words in python_words(site, arg.value):
            launch = _launch(words, check.params, takes, target)
            for word in launch.words if launch is not None else ():
                if word.param:
                    found.append((word.param, "flags", launch.command or launch.module))
        return found
    for arg in site.node.args:
        if arg.star == "**" and isinstance(arg.value, cst.Name):
            function = site.scope.node
            star = function.params.star_kwarg if isinstance(function, cst.FunctionDef) else None
            is_star = isinstance(star, cst.Param) and star.name.value == arg.value.value
            found.append((arg.value.value, "keywords" if is_star else "mapping", ""))
    return found


def _run_keywords(site, params: ServerArgsCheck, target):
    fields = params.table.fields
    if diffusion.may_pass(site, target.unless):
        return  # (a keyword that may stop the hand-off: the others may not be server arguments)
    for keyword in _keywords(site, target):
        name, name_node, value = keyword.key, keyword.key_node, keyword.value
        field = fields.get(name)
        if field is None:
            if params.aspect == "unknown" and name not in params.extra_names:
                aliased = params.table.by_flag.get("--" + name.replace("_", "-"))
                if aliased is not None:
                    # tensor_parallel_size=: the keyword of an alias flag (--tensor-parallel-size)
                    # is the field it sets, with certainty.
                    fix = rename_fix(name_node, aliased.name, True)
                    hint = did_you_mean(repr(aliased.name), fix)
                    hint = f"; --{name.replace('_', '-')} is the launch flag of {aliased.name}{hint}"
                else:
                    hint, fix = foreign_hint(params.foreign, name, params.table, name_node, keyword=True)
                change = params.table.field_change(name)
                if not hint:
                    newer = params.table.history.get(name)
                    hint, fix = unexplained_hint(name, change, params.table, fields, name_node, keyword=True,
                                                 flags=set(newer.flags) if newer is not None else None)
                yield Finding(
                    name_node,
                    f"{target.display}({name}=...): sglang {params.table.version} has no server argument "
                    f"{name!r}{change}{hint}",
                    fix,
                )
            continue
        if value is None:
            continue
        for item in _cst_items(field, value):
            for known in site.model.evaluate(item, keyword.scope, keyword.where):
                judged = _judge_value(params, field, known, f"{target.display}({name}=", ")")
                if judged is not None:
                    yield Finding(known.node, *judged)


def _flag_uses(site, params: ServerArgsCheck, target) -> list[FlagUse]:
    """The flags of the target's argv list, in each way it may be built, or of its shell
    command string; none when a subprocess command does not start an sglang server."""
    return _unique_uses(params, _launches(site, params, target))


def _launches(site, params: ServerArgsCheck, target) -> list:
    """Each way the target's argv (or shell command) may be built; None: no sglang server."""
    arg = argument_of(site.node, target.argument, target.position, site)
    if arg is None:
        return []
    takes = target.handed_as
    if takes == "shell" or (takes == "command" and shell_true(site)):
        return shell_launches(site, arg.value, params.marker)
    split = split_string(site, arg.value) if takes == "command" else None
    if split is not None:
        return shell_launches(site, split, params.marker)
    return [_launch(words, params, takes, target) for words in python_words(site, arg.value)]


def _launch(words, params: ServerArgsCheck, takes: str, target) -> Launch | None:  # (flags: to target.program)
    return after_launcher(words, params.marker) if takes == "command" else Launch.after(target.program, words)


def _unique_uses(params: ServerArgsCheck, launches) -> list[FlagUse]:
    """The flags of each launch (each way a command may be built), each once; after ``sglang
    serve`` or ``sglang generate``, as the parsers the command may hand them to judge them
    (launch_flags.command_uses: a value is judged only where the LLM server's verdict is the
    line's)."""
    uses, seen = [], set()
    for launch in launches:
        if launch is None or script_skipped(params.aspect, params.table, launch):
            continue
        found = command_uses(launch, params.table) if launch.command or launch.backend \
            else script_uses(launch, params.table) if launch.module else flag_uses(launch.words, params.table)
        for use in found:
            key = (id(use.element), id(use.value_node))
            if use.field is not None and use.field.name in launch.withheld:
                continue  # a framework that sets it itself never hands it on
            if key not in seen:
                seen.add(key)
                uses.append(dataclasses.replace(use, own_build=True) if launch.own_build else use)
    return uses


def _run_argv(site, params: ServerArgsCheck, target):
    if params.aspect == "module":
        yield from gone_modules(params.table, _launches(site, params, target))
        return
    yield from _judge_uses(params, _flag_uses(site, params, target))


def _judge_uses(params: ServerArgsCheck, uses: list[FlagUse]):
    """The findings of this aspect on the flags of a command, however it was written."""
    for use in uses:
        for finding in _judge_use(params, use):
            if use.parser in BOTH and use.llm_verdict and (use.known or use.ambiguous):
                # the LLM server's verdict; a diffusion model fails on the flag too
                finding = dataclasses.replace(finding, message=finding.message + BOTH[use.parser])
            if use.prefix is not None:
                handed = f" ({use.prefix.framework} passes {use.prefix.text}* flags on to sglang)"
                finding = dataclasses.replace(finding, message=finding.message + handed)
            yield finding


# the LLM server's verdict where the diffusion server was asked too (`sglang serve`, a framework's flags)
BOTH = {"serve": "; the diffusion server of `sglang serve` has no such flag",
        "framework": "; sglang's diffusion server has no such flag either"}


def _judge_use(params: ServerArgsCheck, use: FlagUse):
    if params.aspect == "deprecated" and use.llm_verdict:
        found = params.table.deprecates(use.flag)
        if found is not None:
            fix = replacement_fix(use.element, use.alone, found, params.table, use.written)
            text = deprecated_text(found, params.table, fix, use.value is not None, use.written)
            yield Finding(use.element, f"launch flag {use.shown}: {text}", fix, found.severity(use.value is not None))
            return
    if params.aspect == "deprecated" and use.field is None:
        return
    if use.ambiguous:
        if params.aspect == "unknown" and "." in use.parser:
            yield script_ambiguous(use, params.table)
        elif params.aspect == "unknown":
            shown = ", ".join(map(use.written, use.ambiguous[:6])) + (", ..." if len(use.ambiguous) > 6 else "")
            hint, fix = foreign_hint(params.foreign, use.flag, params.table, use.element if use.alone else None,
                                     written=use.written)
            yield Finding(
                use.element,
                f"launch flag {use.shown}: ambiguous in sglang {params.table.version}'s launcher, which "
                f"takes only a unique prefix of a flag; could be {shown}{hint}", fix,
            )
        return
    if use.field is None:
        if params.aspect == "unknown" and not use.known and not use.flag.startswith("--no-"):
            yield from _unknown_flag(use, params.table, params.foreign)
        return
    if params.aspect == "type":
        yield from flag_words.findings(use, params.table.version)
        return
    if use.field.nargs and use.field.choices and use.items:
        words = zip(use.items, use.item_nodes)  # a list flag: each word, as argparse judges each item
    elif use.value is not None and use.field.type == "str":
        words = [(use.value, use.value_node)]
    else:
        return
    for text, node in words:
        # ``--flag=value`` in one literal: the fix keeps the ``--flag=`` part.
        judged = _judge_value(params, use.field, Known(text, node), f"launch flag {use.shown} ",
                              keep_prefix=(use.shown + "=") if node is use.element else "")
        if judged is not None:
            yield Finding(node, *judged)


def _unknown_flag(use: FlagUse, table: Table, foreign: dict):
    """SGL009 on a launch flag no parser it reaches takes. The hint: for a flag sglang removed,
    what it said to do instead while it deprecated it (never a guess at a like-spelled flag);
    for another engine's flag, sglang's for it; else the nearest flag of those parsers (only a
    literal that is the flag alone is rewritten, not ``--flag=value``). Under a framework's own
    build of sglang, only where there is such a hint."""
    node = use.element if use.alone else None
    commands = table.commands
    if "." in use.parser:  # a script's parser (launch_flags.script_uses)
        yield script_unknown(use, table, node)
        return
    if use.parser in ("diffusion", "generate"):
        parser = commands.diffusion if use.parser == "diffusion" else commands.generate
        hint, fix = rename_hint(use.flag, parser.flags, node, use.written)
        where = (f"sglang {table.version}'s diffusion server has" if use.parser == "diffusion"
                 else f"`sglang generate` of sglang {table.version} has")
        if hint or not use.own_build:
            yield Finding(use.element, f"launch flag {use.shown}: {where} no such flag{hint}", fix)
        return
    change = table.flag_change(use.flag)
    hint, fix = removed_hint(use, table)
    if not hint:  # (not removed, or sglang said nothing: no fix of it either)
        hint, fix = foreign_hint(foreign, use.flag, table, node, written=use.written)
    diffusion = use.parser in BOTH  # both servers were asked
    if not hint:
        options = table.known_flags | (commands.diffusion.flags if diffusion else frozenset())
        hint, fix = unexplained_hint(use.flag, change, table, options, node, written=use.written)
    if hint or not use.own_build:
        yield Finding(use.element, f"launch flag {use.shown}: sglang {table.version} has no such server argument"
                      f"{change}{' and its diffusion server no such flag' if diffusion else ''}{hint}", fix)


def _settings(site, params: ServerArgsCheck, target) -> dict:
    """field -> (number, node) for each field set to one literal number at this call."""
    found = {}
    if target.handed_as in ("keywords", "mapping"):
        for keyword in _keywords(site, target):
            if not keyword.certain or keyword.value is None or keyword.key not in params.table.fields:
                continue
            known = site.model.evaluate(keyword.value, keyword.scope, keyword.where)
            if len(known) == 1 and server_relations.number(known[0].value) is not None:
                found[keyword.key] = (server_relations.number(known[0].value), known[0].node)
        return found
    return server_relations.flag_settings(_flag_uses(site, params, target))


def _run_relations(site, params: ServerArgsCheck, target):
    yield from server_relations.relations(params, _settings(site, params, target))


def run(site, rule, check, target):
    params: ServerArgsCheck = check.params
    if target.server:  # the diffusion server's ServerArgs: its keywords, no LLM server's fields
        yield from diffusion.findings(site, params, target, _keywords(site, target))
        return
    if params.aspect == "startup":
        yield from _run_startup(site, params, target)
        return
    if params.aspect == "relations":
        yield from _run_relations(site, params, target)
        return
    if target.handed_as in ("keywords", "mapping"):
        if params.aspect != "module":  # (keywords name no module)
            yield from _run_keywords(site, params, target)
    else:
        yield from _run_argv(site, params, target)


def run_text(check, launch: Launch):
    """The findings on a launch command found outside Python (a shell script, a Markdown shell
    block, a YAML command list: engine/launch_files.py)."""
    params: ServerArgsCheck = check.params
    if params.aspect == "startup":
        if not reaches_server_args(launch, params.table):
            return
        judged = startup.flag_launch(flag_uses(launch.words, params.table), launch.words, getattr(launch, "env", None))
        yield from startup.judge(params.startup, params.table, [judged], params.elsewhere, params.machine)
        return
    if params.aspect == "module":
        yield from gone_modules(params.table, [launch])
        return
    uses = _unique_uses(params, [launch])
    if params.aspect == "relations":
        yield from server_relations.relations(params, server_relations.flag_settings(uses))
    else:
        yield from _judge_uses(params, uses)


def _run_startup(site, params: ServerArgsCheck, target):
    environ = python_launch_env(site, target)
    if target.handed_as in ("keywords", "mapping"):
        complete = target.takes != "mapping" and all(arg.star == "" for arg in site.node.args)
        launches = [startup.keyword_launch(site, _keywords(site, target), params.table.fields, complete, environ)]
    else:
        launches = [startup.flag_launch(flag_uses(launch.words, params.table), launch.words, environ)
                    for launch in _launches(site, params, target)
                    if launch is not None and reaches_server_args(launch, params.table)]
    yield from startup.judge(params.startup, params.table, launches, params.elsewhere, params.machine)


def fix_safety(check) -> str:
    """Choices and unknown names have a nearest real one; types and relations do not."""
    if check.params.aspect == "deprecated":
        return ("safe fix: to the replacement sglang names, where that is a plain flag of the target release, "
                "or a value sglang maps to it and does nothing else on")
    if check.params.aspect == "module":
        return ("safe fix: to the module it moved to, where running it there runs what the old path ran (its "
                "last stub called that module's main, or the two parse the same flags)")
    if check.params.aspect in ("choices", "plugin-choices", "unknown"):
        return FIX_SAFETY.replace("allowed value", "valid choice or name")
    return ""


# the aspects a list's own words decide, whatever else the command holds where it is run
STANDING_ASPECTS = ("choices", "plugin-choices", "type", "unknown", "deprecated")


def standing(check):
    """The command-line target an argv list that starts sglang's launcher is judged as where it
    stands (analysis/standing.py), for the aspects its words alone decide."""
    params: ServerArgsCheck = check.params
    if params.aspect not in STANDING_ASPECTS or not params.marker:
        return None
    return next((target for target in check.targets if target.handed_as == "command"), None)


KIND = CheckKind(
    name="server-args", site="call", parse=parse, run=run, triggers=triggers, fix_safety=fix_safety, wrappers=wrappers,
    run_text=run_text, standing=standing,
)
