"""The launch flags of a command, read as sglang's launcher (argparse) reads them.

A command reaches this module as a list of :class:`ArgWord`, however it was written: the
versions of an argv list built in steps (analysis/built.py), the words of a shell command in a Python
string, or of a shell script or Markdown block (launch/commands.py). :func:`flag_uses` pairs each
``--flag`` with its value; the server-args check judges them (server_args.py).
"""

from __future__ import annotations

import ast
import re

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import Augmented, Where
from sglang_lint.analysis.built import Gap, Word, list_versions
from sglang_lint.analysis.syntax import token_value
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.checks.server_args.table import Commands, Table
from sglang_lint.core.model import Span
from sglang_lint.launch.commands import LAUNCHERS, MODULE_FLAG, SCRIPT_MODULE, launch_commands

if TYPE_CHECKING:
    from sglang_lint.launch.prefixes import Prefix


@dataclass(frozen=True)
class ArgWord:
    """One word of a command. ``text`` None: not known. ``whole``: ``text`` is all of it (an
    f-string gives only its literal prefix). ``node``: what a finding points at and a fix
    rewrites (a LibCST literal or a :class:`Span`). Words of one ``step`` were written by one
    statement; a flag's value is the next word of its step, or of a step that also runs on
    every path (``certain``)."""

    text: str | None
    whole: bool
    node: object
    step: int = 0
    certain: bool = True
    param: str | None = None  # unknown words from this parameter of the enclosing function
    # a word a framework hands on under its prefix (Launch.handed_on): ``text`` is the server's
    # reading of it, ``node`` the word as written
    prefix: Prefix | None = None


UNKNOWN_WORD = ArgWord(None, False, None, -1, False)


def python_words(site, node: cst.BaseExpression) -> list[list[ArgWord]]:
    """The versions of an argv list expression at a call, as words (see analysis/built.py)."""
    return [[_word(piece, site) for piece in version]
            for version in list_versions(site.model, node, site.scope, site.where)]


def _word(piece, site) -> ArgWord:
    if isinstance(piece, Gap):
        return ArgWord(None, False, None, -1, False, piece.param) if piece.param else UNKNOWN_WORD
    node: cst.BaseExpression = piece.node
    if isinstance(node, Word):  # a word of a string split into the list
        exact = node.offset is not None
        start = node.offset if exact else 0
        span = Span(start, start + len(node.text) if exact else start, node.text, exact, node.literal)
        return ArgWord(node.text, True, span, piece.step, piece.certain)
    if isinstance(node, cst.SimpleString):
        value = token_value(node)
        return ArgWord(value if isinstance(value, str) else None, True, node, piece.step, piece.certain)
    if isinstance(node, cst.FormattedString):
        prefix = ""
        for part in node.parts:
            if not isinstance(part, cst.FormattedStringText):
                return ArgWord(prefix, False, node, piece.step, piece.certain)
            prefix += part.value
        return ArgWord(prefix, True, node, piece.step, piece.certain)
    known = site.model.evaluate(node, piece.scope, piece.where) if isinstance(node, cst.Name) else []
    if len(known) == 1 and isinstance(known[0].value, str):
        return ArgWord(known[0].value, True, node, piece.step, piece.certain)  # FLAG = "--tp"; [FLAG, "2"]
    return ArgWord(None, False, node, piece.step, piece.certain)


# One f-string literal on one line, no backslash, no ``{{``: its literal parts in the ast are
# the source text LibCST gives (FormattedStringText.value), and it is no implicit concatenation.
_PLAIN_FSTRING = re.compile(r"""[fF](["'])(?:(?!\1)[^\\\n])*\1""")


_SELF_DOCUMENTING = re.compile(r"=\s*[}!:]")  # ``{x=}``: the ast's literal part holds "x=", LibCST's not


def fstring_prefix(node: ast.JoinedStr, reader) -> tuple[str, bool] | None:
    """launch_flags._word of an f-string: its literal prefix, and whether that is all of it;
    None when the source is not plainly one f-string."""
    source = reader.source_of(node) if reader is not None else None
    if source is None or not _PLAIN_FSTRING.fullmatch(source) or "{{" in source or "}}" in source \
            or _SELF_DOCUMENTING.search(source):
        return None
    prefix = ""
    for part in node.values:
        if not isinstance(part, ast.Constant):
            return prefix, False
        prefix += part.value
    return prefix, True


@dataclass(frozen=True)
class Launch:
    """The words after the launcher, and which launcher: ``command`` names the ``sglang``
    subcommand (``serve``, which picks its backend, the LLM server or the diffusion server, at
    run time; ``generate``, the diffusion server's own command), "" for ``-m
    sglang.launch_server`` or an entry point's flags (ServerArgs' parser). ``env``: the
    environment variables certainly set for a launch read from a shell script, Markdown or YAML
    (launch_text.LaunchCommand.env, filled by shell_env); a variable not in it is unknown. A
    launch from Python leaves it empty: launch_env.python_launch_env reads the call's. A
    framework's prefixed flags (launch/prefixes.py) are a launch too, less the fields it withholds,
    and ``backend`` names the server they reach where it is not the LLM server alone: "diffusion",
    or "auto" (either: a flag is the line's error only where neither takes it)."""

    words: list
    command: str = ""
    env: dict = field(default_factory=dict)
    # ``python -m sglang.<module>`` other than the server launcher: the module (a script whose own
    # parser takes the words: scripts.toml), and the word that names it (what a finding on it marks)
    module: str = ""
    module_node: object = None
    withheld: frozenset = frozenset()  # fields a framework passing its prefixed flags on sets itself
    backend: str = ""  # the server a framework's prefixed flags reach: "" the LLM server, "diffusion", "auto"
    # the framework runs its own build of sglang (launch/prefixes.py Prefix.fork): a flag no
    # release has may be the build's, and is reported only as a misspelling of one
    own_build: bool = False

    @staticmethod
    def after(launcher: str, words: list, env: dict | None = None, node: object = None) -> "Launch":
        """The launch whose launcher word (launch_text.LaunchCommand.launcher) is this."""
        subcommands = {name for names in LAUNCHERS["commands"].values() for name in names}
        module = launcher if "." in launcher and launcher not in LAUNCHERS["modules"] else ""
        return Launch(words, launcher if launcher in subcommands else "", dict(env or {}), module, node)

    @staticmethod
    def handed_on(words: list, prefix: Prefix) -> "Launch":
        """The launch of the server a framework hands the words of a command on to under its prefix
        (launch/prefixes.py PrefixedCommand.words, as :class:`ArgWord`): each word as the server
        reads it, less the fields the framework withholds."""
        return Launch([replace(word, text=prefix.server_word(word.text), prefix=prefix) for word in words],
                      withheld=prefix.withheld, backend=prefix.backend, own_build=bool(prefix.fork))


def after_launcher(words: list[ArgWord], marker: str | None) -> Launch | None:
    """The words after the launcher (``-m sglang.launch_server``, ``sglang serve``): in
    ``nsys profile --capture-range-end stop python -m sglang.launch_server ...`` (or torchrun,
    numactl, env X=1, srun...) the flags before it belong to the wrapping command. None: the
    command does not start an sglang server."""
    for index, word in enumerate(words):
        text = word.text
        if not text or not word.whole:
            continue
        if marker and (text == marker or text.endswith(" " + marker) or text.endswith("=" + marker)):
            return Launch(words[index + 1:])
        command = words[index - 1].text if index else None
        if command and text in LAUNCHERS["commands"].get(command.rsplit("/", 1)[-1], ()):
            return Launch(words[index + 1:], text)  # sglang serve, sglang generate
        if marker and command == MODULE_FLAG and words[index - 1].whole and SCRIPT_MODULE.fullmatch(text):
            return Launch(words[index + 1:], module=text, module_node=word.node)  # python -m sglang.bench_one_batch
    return None


ARGPARSE_FLAGS = frozenset({"--help"})  # argparse's own, in every parser


def flag_uses(words: list[ArgWord], table: Table) -> list[FlagUse]:
    """Each ``--flag`` of a launch command's words (after the launcher, or an entry point's
    flags), with its field and value."""
    known_flags = table.known_flags
    uses = []
    for index, word in enumerate(words):
        text, whole = word.text, word.whole
        if not text or not text.startswith("--") or text == "--" or text in ARGPARSE_FLAGS:
            continue
        flag, equals, inline = text.partition("=")
        if not equals and not whole:
            continue  # f"--{name}": the flag itself is computed
        field = table.by_flag.get(flag)
        known = flag in known_flags
        ambiguous: tuple = ()
        if not known:
            # sglang's launcher parses with argparse's allow_abbrev on: a unique prefix of a
            # flag is that flag (--tp for --tp-size); a prefix of flags of two arguments is an
            # error ("ambiguous option"). Spellings of one argument (aliases) are one choice.
            longer = table.flags_beginning(flag)
            meant = {argument_of_flag(table, candidate) for candidate in longer}
            known = len(meant) == 1
            field = table.by_flag.get(longer[0]) if known else None
            ambiguous = tuple(longer) if len(meant) > 1 else ()
        value, node, certain = None, None, word.certain
        if equals:
            value, node = (inline, word.node) if whole else (None, None)
        elif index + 1 < len(words):
            following = words[index + 1]
            paired = following.step == word.step or (following.certain and word.certain)
            if paired and following.whole and following.text is not None and not following.text.startswith("--"):
                value, node, certain = following.text, following.node, certain and following.certain
        alone = whole and not equals and _is_literal_word(word.node, word.prefix.written(text) if word.prefix else text)
        items, item_nodes = None, ()
        if field is not None and field.nargs and certain:
            found = ((inline, word.node),) if equals and whole else None if equals else _items(words, index)
            if found is not None:
                items, item_nodes = tuple(t for t, _ in found), tuple(n for _, n in found)
        uses.append(FlagUse(word.node, flag, field, known, value, node, ambiguous, alone, certain, items=items,
                            item_nodes=item_nodes, prefix=word.prefix))
    return uses


NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse reads these as values, not flags


def _items(words: list[ArgWord], index: int) -> tuple | None:
    """The words a list flag (nargs "*"/"+") at ``index`` takes, as argparse does: every word up
    to the next flag, each (text, node); None where one of them is not known for certain."""
    items = []
    for following in words[index + 1:]:
        if following.text is not None and following.whole and following.text.startswith("-") \
                and following.text != "-" and not NEGATIVE_NUMBER.match(following.text):
            break
        if following.text is None or not following.whole or not following.certain:
            return None
        items.append((following.text, following.node))
    return tuple(items)


def command_uses(launch: Launch, table: Table) -> list[FlagUse]:
    """The flags of an ``sglang serve`` or ``sglang generate`` launch, each ``known`` when the
    parser it reaches may take it in some release of the table (``table.commands``); none when
    the command is not judged there (no such command in those releases, or ``--model-type``
    naming a backend the table does not hold, or a value it cannot read).

    ``sglang serve`` hands its words to one backend: the one ``--model-type`` names, where every
    release reads that flag; else the one it detects from the model (the LLM server for any
    model that is not a diffusion one), either of them. A flag the diffusion server does not
    take fails the line there, so the LLM server's verdict on it (its field, an ambiguous
    prefix) is the line's (``parser`` "serve"); one the diffusion server takes is only known,
    its value left to the backend the model picks.

    A framework's prefixed flags (``launch.backend``) reach the server it names; where that may
    be either (``parser`` "framework"), as after ``sglang serve``; none where the releases have no
    diffusion server to judge them by."""
    commands = table.commands
    uses = flag_uses(launch.words, table)
    if commands is None:
        return []
    if launch.command == "generate":
        return [_judged(use, commands.generate.takes(use.flag), "generate") for use in uses] \
            if commands.generate is not None else []
    if launch.backend and commands.diffusion is None:
        return []
    backend = launch.backend or _backend(uses, commands)
    if backend is None:
        return []
    both = "framework" if launch.backend else "serve"
    found = []
    for use in uses:
        if use.flag in commands.selector and not launch.backend:
            found.append(_judged(use, True, "serve"))
        elif backend == "llm":
            found.append(use)
        elif backend == "llm line":  # its flags pick the LLM server: the diffusion server's verdict is said too
            found.append(use if commands.diffusion.takes(use.flag) else replace(use, parser=both))
        elif backend == "diffusion":
            found.append(_judged(use, commands.diffusion.takes(use.flag), "diffusion"))
        elif backend == "diffusion line":  # (a flag no server takes: as either reports it)
            takes = commands.diffusion.takes(use.flag)
            found.append(_judged(use, takes, "diffusion") if use.known or takes else replace(use, parser=both))
        elif commands.diffusion is None:
            found.append(use)  # (a release whose `sglang serve` runs the LLM server alone)
        elif "llm" not in commands.backends:
            found.append(_judged(use, commands.diffusion.takes(use.flag), "diffusion"))
        elif commands.diffusion.takes(use.flag):
            found.append(_judged(use, True, both))
        else:
            found.append(replace(use, parser=both))
    return found


def script_uses(launch: Launch, table: Table) -> list[FlagUse]:
    """The flags of ``python -m sglang.<module>`` as that module's parser reads them (the
    scripts table, :class:`server_table.Script`): where it takes the server arguments, they and
    its own in one parser (a prefix unique to the launcher may match one of its own flags too:
    argparse's "ambiguous option"); else its own alone. None where the table does not judge the
    module in every target release (not there, a parser it could not read whole)."""
    script = table.scripts.get(launch.module) if table.scripts is not None else None
    if script is None or not script.judged:
        return []
    return [replace(use, parser=launch.module) for use in flag_uses(launch.words, script.table(table))]


def reaches_server_args(launch: Launch, table: Table) -> bool:
    """Whether a launch's flags certainly reach ServerArgs (and its start-up validation): a
    launcher's (``python -m sglang.launch_server``), or ``sglang serve`` with ``--model-type``
    naming the LLM server in every release; never ``sglang generate`` (the diffusion parser's
    flags, whose ``--prompt`` would be a prefix of a server flag)."""
    if launch.module:
        return False  # a script's: its own start-up, not the server's (not judged here)
    if not launch.command:
        return True
    if launch.command != "serve" or table.commands is None:
        return False
    return _backend(flag_uses(launch.words, table), table.commands) in ("llm", "llm line")


def _backend(uses: list[FlagUse], commands: Commands) -> str | None:
    """The backend ``sglang serve`` runs: "llm" or "diffusion" when ``--model-type`` names it in
    every release, "auto" when either may run; None when the target has no ``sglang serve`` or
    the command names a backend the table does not know (an out-of-tree one, or a value it
    cannot read)."""
    if not commands.serve:
        return None
    chosen = [use for use in uses if use.flag in commands.selector]
    if not chosen or not commands.selects:
        return _backend_by_flags(uses, commands)
    value = chosen[-1].value if chosen[-1].certain else None
    if value == "diffusion" and commands.diffusion is None:
        return None
    return value if value == "auto" or value in commands.backends else None


def _backend_by_flags(uses: list[FlagUse], commands: Commands) -> str:
    """The backend a line's own flags decide when it names none: a flag only the diffusion
    server takes fails the LLM server, so the line runs (or fails) as a diffusion line ("diffusion
    line": a flag no server takes is reported as after ``sglang serve``); else a
    flag of the LLM server's that the diffusion server refuses in every release fails it
    there, so the line runs (or fails) as the LLM server's ("llm line": its start-up checks
    run, and a verdict on a flag the diffusion server lacks says so). "auto" where the model
    decides (or a parser ignores what it does not know). Only flags written on every path
    decide."""
    diffusion = commands.diffusion
    if diffusion is None or diffusion.open or "llm" not in commands.backends:
        return "auto"
    certain = [use for use in uses if use.certain and use.flag not in commands.selector]
    if any(not use.known and not use.ambiguous and diffusion.takes(use.flag) for use in certain):
        return "diffusion line"
    if any(use.known and not use.ambiguous and not diffusion.takes(use.flag) for use in certain):
        return "llm line"
    return "auto"


def _judged(use: FlagUse, known: bool, parser: str) -> FlagUse:
    """A flag judged by a parser of the ``sglang`` command (not ServerArgs' alone)."""
    return replace(use, field=None, known=known, ambiguous=(), parser=parser, llm_verdict=False)


def _is_literal_word(node, text: str) -> bool:
    if isinstance(node, Span):
        return node.exact and node.text == text
    return isinstance(node, cst.SimpleString) and token_value(node) == text


def argument_of_flag(table: Table, flag: str) -> str:
    """What a flag sets: its field, or (a hand-registered flag, a script's own) the flag itself or
    the first spelling of its argument."""
    field = table.by_flag.get(flag)
    return field.name if field is not None else table.aliases.get(flag, flag)


__all__ = ["ArgWord", "shell_arg_word", "after_launcher", "argument_of_flag", "command_uses", "flag_uses",
           "python_words", "script_uses", "shell_source", "shell_true", "split_string"]


# --- shell command strings -------------------------------------------------------------------------
HOLE = "\ue000"  # an f-string's {expression} (or any part not known) in a command string: an opaque word
SHELL_JOINERS = frozenset({"shlex.join"})


def shell_launches(site, node: cst.BaseExpression, marker: str | None) -> list[Launch]:
    """The sglang launches in a shell command string (``os.system(...)``, ``subprocess.run(...,
    shell=True)``, ``shlex.split(...)``): a literal, an f-string (its holes opaque words), a
    concatenation, a name bound to one of those, or a list joined into one (``" ".join(cmd)``,
    ``shlex.join(cmd)``, whose elements are words as written)."""
    node = _followed(site, node)
    joined = _joined_list(site, node)
    if joined is not None:
        return [found for words in python_words(site, joined) if (found := after_launcher(words, marker))]
    built = _string_text(site, node, 0)
    if built is None:
        return []
    text, places = built
    return [Launch.after(found.launcher.text, [_shell_word(word, places, node) for word in found.args],
                         node=_shell_word(found.launcher, places, node).node)
            for found in launch_commands(text, HOLE)]


def shell_source(site, node: cst.BaseExpression) -> tuple[str, object] | None:
    """What a shell command string is, read as :func:`shell_launches` reads it: ("text", its
    text, unknown parts :data:`HOLE`) or ("words", the versions of a list joined into it as
    :class:`ArgWord` lists); None when it is not one."""
    node = _followed(site, node)
    joined = _joined_list(site, node)
    if joined is not None:
        return "words", python_words(site, joined)
    built = _string_text(site, node, 0)
    return ("text", built[0]) if built is not None else None


def shell_true(site) -> bool:
    """``subprocess.run(..., shell=True)``: the command is a string the shell splits."""
    return any(arg.keyword is not None and arg.keyword.value == "shell" and isinstance(arg.value, cst.Name)
               and arg.value.value == "True" for arg in site.node.args)


def split_string(site, node) -> cst.BaseExpression | None:
    """The command string of ``shlex.split(text)`` or ``text.split()`` (split at blanks: the
    words of a launch line, written without quotes, are the same), or None."""
    if not isinstance(node, cst.Call):
        return None
    if len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
            and site.model.qualify(node.func, site.scope) == "shlex.split":
        return node.args[0].value
    if not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value == "split":
        return node.func.value
    return None


def _followed(site, node: cst.BaseExpression) -> cst.BaseExpression:
    """A name's one binding that reaches the use (``cmd = f"..."; os.system(cmd)``)."""
    if isinstance(node, cst.Name):
        found = site.model.reaching(node.value, site.scope, site.where)
        if found is not None and len(found[0]) == 1 and isinstance(found[0][0].value, cst.BaseExpression):
            return found[0][0].value
    return node


def _joined_list(site, node) -> cst.BaseExpression | None:
    if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "join" and isinstance(func.value, cst.SimpleString):
        return node.args[0].value if token_value(func.value) == " " else None
    return node.args[0].value if site.model.qualify(func, site.scope) in SHELL_JOINERS else None


def _string_text(site, node, depth: int) -> tuple[str, list] | None:
    """(text, where each character is written: (literal, offset in its source) or None) of a
    string expression; parts not known are :data:`HOLE`. None: not a string expression."""
    if depth > 8:
        return None
    if isinstance(node, cst.SimpleString):
        value = token_value(node)
        if not isinstance(value, str):
            return None
        start = len(node.prefix) + len(node.quote)
        exact = node.value[start:len(node.value) - len(node.quote)] == value
        return value, [(node, start + i) if exact else None for i in range(len(value))]
    if isinstance(node, cst.ConcatenatedString):
        left, right = _string_text(site, node.left, depth + 1), _string_text(site, node.right, depth + 1)
        if left is None or right is None:
            return None
        return left[0] + right[0], left[1] + right[1]
    if isinstance(node, cst.FormattedString):
        text, places, offset = "", [], len(node.start)
        for part in node.parts:
            source = site.model.module.code_for_node(part)
            # (a backslash ending a line continues it in Python's string, and the shell reads it
            # as a blank: the same words where a blank is beside it)
            plain = _continued(source) if "r" not in node.start.lower() else source
            if isinstance(part, cst.FormattedStringText) and not any(s in plain for s in ("\\", "{{", "}}")):
                text += source
                places += [(node, offset + i) for i in range(len(source))]
            elif isinstance(part, cst.FormattedStringText):
                value = source.replace("{{", "{").replace("}}", "}")
                text += value
                places += [None] * len(value)
            else:
                text += HOLE
                places.append(None)
            offset += len(source)
        return text, places
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        parts = [_string_text(site, side, depth + 1) for side in (node.left, node.right)]
        if all(part is None for part in parts):
            return None
        parts = [part if part is not None else (HOLE, [None]) for part in parts]
        return parts[0][0] + parts[1][0], parts[0][1] + parts[1][1]
    if isinstance(node, cst.Name):
        known = site.model.evaluate(node, site.scope, site.where)
        if len(known) == 1 and isinstance(known[0].value, str) and known[0].origin is not None:
            return _string_text(site, known[0].origin, depth + 1)
        return _augmented_text(site, node.value, depth)
    return None


_CONTINUATION = re.compile(r"[ \t]\\\n|\\\n[ \t]")


def _continued(source: str) -> str:
    """An f-string part's source less its line continuations with a blank beside them."""
    return _CONTINUATION.sub(" ", source)


def _augmented_text(site, name: str, depth: int) -> tuple[str, list] | None:
    """``cmd = "..."; cmd += " --flag v"``: the one binding that reaches the use is ``+=``;
    the text of the name just before it, then of what it adds."""
    found = site.model.reaching(name, site.scope, site.where)
    if found is None or len(found[0]) != 1 or not isinstance(found[0][0].value, Augmented):
        return None
    binding, owner = found[0][0], found[1]
    if not isinstance(binding.value.node.operator, cst.AddAssign):
        return None
    where = binding.where
    before = replace(site, scope=owner, where=Where(where.path, where.seq - 0.5, where.in_loop))
    left = _string_text(before, cst.Name(name), depth + 1)
    right = _string_text(replace(site, scope=owner, where=where), binding.value.node.value, depth + 1)
    if left is None or right is None:
        return None
    return left[0] + right[0], left[1] + right[1]


def _shell_word(word, places: list, literal) -> ArgWord:
    """A word of a command string as an :class:`ArgWord` at its place in the literal (a fix may
    rewrite it only where its source is the word itself)."""
    chars = places[word.start:word.end]
    known = [place for place in chars if place is not None]
    within, first = known[0] if known else (literal, 0)
    contiguous = len(known) == len(chars) and all(
        place[0] is within and place[1] == first + i for i, place in enumerate(chars))
    end = first + len(chars) if contiguous else first
    return shell_arg_word(word, Span(first, end, word.text, contiguous and word.exact and not word.opaque, within))


def shell_arg_word(word, node: Span) -> ArgWord:
    """A shell word (launch_text.Word) as an :class:`ArgWord` at ``node``: an opaque one (an
    expansion, an f-string hole) keeps only the literal text before it (``--tp-size=$TP``)."""
    if word.opaque:
        cut = min((i for i in (word.text.find(HOLE), word.text.find("$")) if i >= 0), default=len(word.text))
        return ArgWord(word.text[:cut], False, node)
    return ArgWord(word.text, True, node)
