"""Launch commands outside Python, for the command (flake8 sees Python files only): shell scripts
(``*.sh``, ``*.bash``, ``*.zsh`` and files with a shell shebang), the shell blocks of Markdown
(``bash``, ``sh``, ``shell``, ``console``..., or no language and a launch first) and the
``command``/``args`` lists and strings of YAML files (Kubernetes, SkyPilot, docker-compose).

launch/commands.py finds each command that starts an sglang server and splits it into words with
their place in the file, launch/shell_arrays.py the launches bash arrays and split variables build,
and launch/shell_env.py the environment variables each certainly runs with (``Launch.env``); the
check kinds that judge launch flags (``CheckKind.run_text``: the server-argument rules) judge those
words exactly as they judge an argv list in Python (a word's ``step``: the statement that wrote it,
as in an argv list built in steps). Findings
carry the file's own line and column, ``# noqa`` works in the file's comment syntax (on the
reported line, or on the first or last line of the command), and fixes rewrite the word where its
source is the word itself (not quoted, not escaped).
"""

from __future__ import annotations

import bisect
from dataclasses import replace

from sglang_lint.catalog.frameworks import project_frameworks
from sglang_lint.checks import CHECK_KINDS
from sglang_lint.checks.server_args.flags import HOLE, ArgWord, Launch, shell_arg_word
from sglang_lint.core.model import Diagnostic, Edit, Span
from sglang_lint.engine.ruletable import RuleSet
from sglang_lint.launch.commands import LAUNCHER_WORDS
from sglang_lint.launch.prefixes import all_prefixes, file_commands, file_prefixes, mentions_prefix, prefixed_commands
from sglang_lint.launch.shell_arrays import launch_commands_in_file
from sglang_lint.text.noqa import filter_noqa
from sglang_lint.text.pynames import line_starts

LAUNCHED = "launch commands read"


def analyse_launch_file(text: str, path: str, ruleset: RuleSet, noqa: bool = True) -> tuple[list[Diagnostic], str]:
    """The findings of the rules that judge launch flags on every sglang launch in the file, and
    on the server flags a framework takes under its prefix, where the file is that framework's
    (launch/prefixes.py, catalog/frameworks.py)."""
    launched = LAUNCHER_WORDS.search(text)
    prefixed = mentions_prefix(text, all_prefixes(ruleset.prefixes))
    if not launched and not prefixed:
        return [], "no sglang launcher named"
    judges = [(rule, check, CHECK_KINDS[check.kind].run_text) for rule in ruleset.rules for check in rule.checks
              if CHECK_KINDS[check.kind].run_text is not None]
    starts = line_starts(text)
    found = []
    for command in launch_commands_in_file(path, text, HOLE) if launched else ():
        launch = Launch.after(command.launcher.text, [_word(word) for word in command.args], command.env,
                              _word(command.launcher).node)
        first = command.args[0].start if command.args else command.launcher.start
        span = (_line_col(starts, command.launcher.start)[0], _line_col(starts, _end(command, first))[0])
        for rule, check, judge in judges:
            for finding in judge(check, launch):
                found.append(_diagnostic(starts, rule, finding, span))
    commands = file_commands(path, text) if prefixed else []
    prefixes = file_prefixes(commands, ruleset.prefixes, project_frameworks(path)) if prefixed else ()
    for command in prefixed_commands(path, text, prefixes, commands):
        launch = Launch.handed_on([_word(word) for word in command.words], command.prefix)
        span = (_line_col(starts, command.words[0].start)[0], _line_col(starts, command.words[-1].end)[0])
        for rule, check, judge in judges:
            if getattr(check.params, "aspect", None) in PREFIXED_ASPECTS:
                for finding in judge(check, launch):
                    found.append(_diagnostic(starts, rule, finding, span))
    found = sorted(set(found))
    if noqa and found:
        lines = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
        found = filter_noqa(found, lines, text)
    return found, LAUNCHED


# What a prefixed flag is judged for: itself. Not the start-up checks nor the relations between
# flags: the framework sets some server arguments itself (slime: the tensor-parallel size).
PREFIXED_ASPECTS = frozenset({"choices", "plugin-choices", "type", "unknown", "deprecated"})


def _word(word) -> ArgWord:
    found = shell_arg_word(word, Span(word.start, word.end, word.text, word.exact and not word.opaque))
    # a word of a launch built in pieces (launch/shell_arrays.py): the statement that wrote it
    return replace(found, step=word.step, certain=word.certain) if word.step or not word.certain else found


def _end(command, first: int) -> int:
    return command.args[-1].end if command.args else first


def _line_col(starts: list[int], offset: int) -> tuple[int, int]:
    index = bisect.bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index]


def _diagnostic(starts: list[int], rule, finding, span: tuple) -> Diagnostic:
    node: Span = finding.node
    line, col = _line_col(starts, node.start)
    end_line, end_col = _line_col(starts, node.end)
    edit = None
    if finding.fix is not None and isinstance(finding.fix.node, Span):
        fixed: Span = finding.fix.node
        a, b = _line_col(starts, fixed.start), _line_col(starts, fixed.end)
        edit = Edit(a[0], a[1], b[0], b[1], finding.fix.old, finding.fix.text, finding.fix.safe)
    return Diagnostic(line, col, rule.code, finding.message, end_line, end_col, edit, span,
                      finding.severity or rule.severity)
