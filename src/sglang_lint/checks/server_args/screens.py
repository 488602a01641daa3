"""The call-site screen of each aspect (screen/calls.py, screen/argv.py): whether a call, or a
list of flags written as a display, may give the check anything to find, asking the same
verdicts as the check on what the screen can read."""

from __future__ import annotations

import ast

from sglang_lint.analysis.resolve import Known
from sglang_lint.checks.server_args import diffusion, relations as server_relations, startup
from sglang_lint.checks.server_args.flag_verdicts import judge_uses
from sglang_lint.checks.server_args.flags import ArgWord, Launch, after_launcher, flag_uses, fstring_prefix
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.site_flags import unique_uses
from sglang_lint.checks.server_args.values import ast_items, judge_value
from sglang_lint.core.model import Span
from sglang_lint.screen.argv import argv_screen
from sglang_lint.screen.calls import mapping_may_be_known, value_may_be_known


def call_screen(params: ServerArgsCheck, target):
    """A call may fire when it passes a keyword no field has (unknown names), or a value the
    engine may know and this aspect may reject; an argv target, when its list may be known."""
    if target.argument is not None or target.position is not None:
        if target.handed_as in ("command", "shell"):
            return argv_screen(target.argument, target.position, params.marker, judge=display_judge(
                params, marker=params.marker) if target.handed_as == "command" else None)
        return argv_screen(target.argument, target.position, judge=display_judge(params, target.program))
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
            return judge_value(params, fields[name], Known(value, None), "") is not None

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
                items = ast_items(fields[keyword.arg], keyword.value)
                if any(value_may_be_known(v, facts, fails(keyword.arg)) for v in items):
                    return True
        return False

    return screen


def display_judge(params: ServerArgsCheck, program: str = "", marker: str | None = None):
    """For a list of flags written as a display (``other_args=["--tp", "2"]``): does this aspect
    find anything in its words, read as the engine reads them (flags.python_words: a string
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
        uses = unique_uses(params, [launch])
        if params.aspect == "relations":
            return any(use.field is not None and server_relations.may_break_relation(params, use.field.name, use.value)
                       for use in uses)
        return any(True for _ in judge_uses(params, uses))

    return judge
