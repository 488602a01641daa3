"""The environment variables a launch command written as shell certainly runs with: the
assignments before it (``SGLANG_X=1 python -m sglang.launch_server``), the ``env`` wrapper
(``env X=1``, ``env -u X``, ``env -i``), ``sudo`` (which resets the environment unless ``-E``),
and what the script ``export``s, ``unset``s or assigns before it.

The script is read top level and in order: an ``export`` at the top level of the script, first
in its list (or after ``&&`` for the commands of that chain), sets its variable for every later
command; one inside an ``if``, a loop, a function, a subshell, a pipeline, after ``||``, or in
the script of a ``bash -c`` or a here-doc makes it unknown instead. A launch inside a compound
command (a loop's body, a function's) may run later: what any later command writes is unknown
for it. ``source``, ``.`` and ``eval`` make everything unknown. A value with an expansion
(``$Y``, ``$(cmd)``, ``~``) is unknown. Unknown is absent: the result holds only variables whose
value is certain. A launch that runs elsewhere (``docker``, ``ssh``, ``mpirun``) inherits
nothing. Over launch_text's splitter: the same commands and words, in the same order.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace
from typing import Callable, Mapping, Optional, Sequence

from sglang_lint.launch.commands import LaunchCommand, YAML_SUFFIXES, find_launch, shell_regions
from sglang_lint.launch.shell_split import GAP, Splitter, Word, moved_word, nested_commands, script_index
from sglang_lint.launch.yaml_commands import yaml_commands
from sglang_lint.launch.wrappers import SHELLS, WRAPPERS
from sglang_lint.launch.yaml_env import YamlEnv

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")  # NAME=, NAME+=, NAME[i]=
# the program word of a launch or of a script's shell: it runs here, with the environment it is given
_RUNS_HERE = re.compile(r"(?:python|pypy)[0-9.]*(?:-dbg)?|sglang")
_RESETS = frozenset({"mpirun", "mpiexec"})  # start their ranks elsewhere
CLEAR = ""  # (an effect: every variable changed)
MAX_NAMES = 256  # variables a script's reading keeps track of


# --- one command --------------------------------------------------------------------------------

def command_env(words: Sequence, end: int, inherited: Mapping[str, str], shell: bool = True) -> dict[str, str]:
    """The environment the program at ``words[end]`` (the launcher, or the shell of ``bash -c``)
    starts with: ``inherited``, changed by the assignments before the command (``shell``: an argv
    list has none) and after ``env``/``sudo``, by ``env -u X``/``-i``; ``{}`` when the command
    runs it elsewhere (``docker``, ``ssh``, ``mpirun``) or through something unknown. Words are
    anything with ``text`` and ``opaque`` (launch_text.Word)."""
    env = dict(inherited)
    i, assigning = 0, shell
    while i < end:
        word = words[i]
        if assigning and _ASSIGN.match(word.text):
            _assign(env, word)
            i += 1
            continue
        if word.opaque:
            break
        name = word.text.rsplit("/", 1)[-1]
        if name in ("env", "sudo"):
            i = (_env_options if name == "env" else _sudo_options)(words, i + 1, end, env)
            assigning = True
            continue
        spec = WRAPPERS.get(name)
        if spec is None:
            break
        values, subcommands, positionals = spec
        head, i = i, _options(words, i + 1, end, values, env if name == "srun" else None)
        if subcommands:
            if i >= end or words[i].opaque or words[i].text not in subcommands:
                i = head  # not the wrapper's use (`uv pip ...`): the wrapper is the program
                break
            i = _options(words, i + 1, end, values, None)
        if name in _RESETS:
            env.clear()
        i += positionals
        assigning = False
    return env if i >= end or _runs_here(words[i]) else {}


def _runs_here(word) -> bool:
    if word.opaque:
        return "py" in word.text.lower()  # $PYTHON -m sglang.launch_server
    name = word.text.rsplit("/", 1)[-1]
    return bool(_RUNS_HERE.fullmatch(name)) or name in SHELLS


def _assign(env: dict, word) -> None:
    """``NAME=value`` before a command (or after ``env``): a value with an expansion, ``~``, an
    array element or ``+=`` is unknown."""
    m = _ASSIGN.match(word.text)
    value = word.text[m.end():]
    if word.opaque or m.group(2) or m.group(3) or "~" in value:
        env.pop(m.group(1), None)
    else:
        env[m.group(1)] = value


def _options(words: Sequence, i: int, end: int, values: frozenset, srun_env: Optional[dict]) -> int:
    while i < end and not words[i].opaque and len(words[i].text) > 1 and words[i].text[0] == "-":
        text = words[i].text
        if text == "--":
            return i + 1
        if srun_env is not None and text.startswith("--export"):
            srun_env.clear()  # srun --export=NONE / a list: not the environment it was given
        i += 2 if text in values else 1
    return i


def _env_options(words: Sequence, i: int, end: int, env: dict) -> int:
    """The options of ``env``: ``-i`` empties the environment, ``-u X`` removes X, ``-S`` (a
    command in one string) makes it unknown. Returns where its assignments start."""
    while i < end:
        word, text = words[i], words[i].text
        if word.opaque or not text.startswith("-") or _ASSIGN.match(text):
            return i
        if text == "--":
            return i + 1
        if text in ("-", "-i", "--ignore-environment"):
            env.clear()
        elif text in ("-u", "--unset") and i + 1 < end:
            i += 1
            _unset(env, words[i])
        elif text.startswith(("--unset=", "-u")):
            _unset(env, Word(text[8:] if text.startswith("--") else text[2:], 0, 0, word.opaque, False))
        elif text in ("-C", "--chdir"):
            i += 1
        elif text.startswith(("-S", "--split-string")):
            env.clear()
            return end
        elif not text.startswith("--") and "i" in text[1:]:
            env.clear()  # -iv
        i += 1
    return i


def _unset(env: dict, word) -> None:
    if word.opaque:
        env.clear()
    else:
        env.pop(word.text, None)


def _sudo_options(words: Sequence, i: int, end: int, env: dict) -> int:
    """``sudo`` resets the environment unless ``-E`` / ``--preserve-env[=LIST]``."""
    values, keep = WRAPPERS["sudo"][0], None
    while i < end and not words[i].opaque and words[i].text.startswith("-") and words[i].text != "-":
        text = words[i].text
        if text == "--":
            i += 1
            break
        if text == "--preserve-env" or (not text.startswith("--") and "E" in text[1:] and text not in values):
            keep = "all"
        elif text.startswith("--preserve-env=") and keep != "all":
            keep = (keep or set()) | set(text.split("=", 1)[1].split(","))
        i += 2 if text in values else 1
    if keep is None:
        env.clear()
    elif keep != "all":
        for name in [n for n in env if n not in keep]:
            del env[name]
    return i


# --- what a command does to the script's environment ----------------------------------------------

def builtin_effects(words: Sequence) -> list[tuple]:
    """(kind, name, value) for each change a shell builtin makes: "set" (export NAME=value),
    "var" (NAME=value), "export" (export NAME), "unexport", "unset", "forget" (value unknown);
    ("clear",) every variable unknown; ("allexport", on)."""
    if not words:
        return []
    count = next((k for k, w in enumerate(words) if not _ASSIGN.match(w.text)), len(words))
    if count == len(words):
        return [_assignment("var", w) for w in words]
    if count or words[0].opaque:
        return []  # X=1 cmd: for that command only
    name, args = words[0].text, words[1:]
    if name in ("export", "declare", "typeset", "local", "readonly"):
        return _declared(args, name == "export")
    if name == "unset":
        if any(w.text.startswith("-") and "f" in w.text for w in args):
            return []
        return [_named("unset", w) for w in args if not w.text.startswith("-")]
    if name in ("source", ".", "eval"):
        return [(CLEAR,)]
    if name == "set":
        return _allexport(args)
    if name in ("read", "mapfile", "readarray", "printf", "getopts"):
        return [_named("forget", w) for w in args if not w.text.startswith("-")]
    return []


def _assignment(kind: str, word) -> tuple:
    m = _ASSIGN.match(word.text)
    value = word.text[m.end():]
    known = not (word.opaque or m.group(2) or m.group(3) or "~" in value)
    return (kind, m.group(1), value if known else None)


def _named(kind: str, word) -> tuple:
    return (kind, word.text, None) if not word.opaque and _NAME.fullmatch(word.text) else (CLEAR,)


def _declared(args: Sequence, exporting: bool) -> list[tuple]:
    """``export``/``declare -x``/``local``/``readonly`` and their ``-n``/``+x``/``-f`` options."""
    found, unexport = [], False
    for word in args:
        text = word.text
        if not word.opaque and len(text) > 1 and text[0] in "-+" and "=" not in text:
            letters = text[1:]
            if "f" in letters:
                return []  # functions
            if "x" in letters:
                exporting, unexport = text[0] == "-", text[0] == "+"
            elif "n" in letters and text[0] == "-":
                unexport = True
            continue
        if _ASSIGN.match(text):
            kind, name, value = _assignment("var", word)
            found += [("unexport", name, None), (kind, name, value)] if unexport else \
                [("set" if exporting else "var", name, value)]
        elif not word.opaque and _NAME.fullmatch(text):
            if unexport or exporting:
                found.append(("unexport" if unexport else "export", text, None))
        else:
            return found + [(CLEAR,)]
    return found


def _allexport(args: Sequence) -> list[tuple]:
    found = []
    for k, word in enumerate(args):
        text = word.text
        if text == "--" or word.opaque or text[:1] not in "-+":
            break
        if text in ("-o", "+o"):
            if k + 1 < len(args) and args[k + 1].text == "allexport":
                found.append(("allexport", text[0] == "-", None))
        elif text[1:].isalpha() and "a" in text[1:]:
            found.append(("allexport", text[0] == "-", None))
    return found


class _Shell:
    """What is known of a shell's variables at one point: ``env`` the exported ones whose value
    is certain, ``vars`` the shell variables whose value is, ``exported`` the names certainly
    exported, ``allexport`` whether ``set -a`` is in force (None: not known)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env, self.vars, self.exported, self.allexport = dict(env), {}, set(), False

    def copy(self) -> "_Shell":
        other = _Shell(self.env)
        other.vars, other.exported, other.allexport = dict(self.vars), set(self.exported), self.allexport
        return other

    def apply(self, effect: tuple, certain: bool) -> None:
        """One change (see builtin_effects); one that may not happen makes its variable unknown."""
        kind = effect[0]
        if kind == CLEAR:
            self.env, self.vars, self.exported, self.allexport = {}, {}, set(), None
            return
        _, name, value = effect
        if kind == "allexport":
            self.allexport = name if certain or self.allexport == name else None
            return
        old = self.vars.get(name)
        self.env.pop(name, None)
        if kind != "unexport":
            self.vars.pop(name, None)
        if kind in ("unset", "unexport"):
            self.exported.discard(name)
        if not certain or kind in ("unset", "unexport", "forget"):
            return
        if len(self.vars) >= MAX_NAMES or len(self.exported) >= MAX_NAMES:
            return  # so many variables: the later ones are unknown (a copy stays small)
        if kind in ("set", "export"):
            self.exported.add(name)
        value = old if kind == "export" else value
        if value is None:
            return
        if kind != "export":
            self.vars[name] = value
        if kind != "var" or name in self.exported or self.allexport is True:
            self.env[name] = value


# --- a script, in order ---------------------------------------------------------------------------

class ScriptSplitter(Splitter):
    """launch_text's splitter over a whole text, noting the operators written before each of
    the text's own simple commands (a here-doc body's commands, split on their own, get none)."""

    def __init__(self, src: str, hole: Optional[str]) -> None:
        super().__init__(src, hole, 0, 0)
        self.last_end = self.gap_from = 0
        self.bodies: tuple[list[int], list[int]] = ([], [])  # here-doc bodies (starts, ends): never a gap
        self.gap: list[str] = []  # the operators before the command being read
        self.scanned = (-1, 0)  # (gap_from, how far the gap has been read)
        self.before: dict[int, str] = {}  # id(command) -> the operators before it

    def word(self, i: int) -> int:
        if not self.cmd and not self.skip:
            begun, scanned = self.scanned
            if begun != self.gap_from:
                self.gap, scanned = [], self.gap_from
            self.gap.extend(self.operators(scanned, i))
            self.scanned = (self.gap_from, max(i, scanned))
        return super().word(i)

    def finish(self, start: int, end: int) -> None:
        super().finish(start, end)
        self.last_end = end

    def end_command(self) -> None:
        if self.cmd:
            self.before[id(self.cmd)] = "".join(self.gap)
            self.gap_from = self.last_end
        super().end_command()

    def read_heredocs(self, i: int) -> int:
        j = super().read_heredocs(i)
        if j > i:
            self.bodies[0].append(i)
            self.bodies[1].append(j)
        return j

    def operators(self, i: int, end: int) -> list[str]:
        """The operators and line breaks from ``i`` to ``end`` (comments, blanks and here-doc
        bodies left out)."""
        found = []
        starts, ends = self.bodies
        while i < end:
            k = bisect.bisect_right(starts, i) - 1
            if k >= 0 and i < ends[k]:
                i = ends[k]
                continue
            m = GAP.match(self.src, i, end)
            if m is None:
                i += 1
                continue
            if m.lastgroup in ("operator", "newline"):
                found.append(m.group())
            i = m.end()
        return found


_OPENS = frozenset({"if", "while", "until", "{"})
_HEADERS = frozenset({"for", "select", "case"})  # the rest of the command is the header
_CLOSES = frozenset({"fi", "done", "esac", "}"})
_GOES_ON = frozenset({"then", "else", "elif", "do", "!"})


def _structure(words: Sequence, stack: list) -> int:
    """Read the control keywords that start a command (updating the stack of open compound
    commands); the index of the command proper."""
    i = 0
    while i < len(words) and not words[i].opaque:
        text = words[i].text
        if text in _CLOSES:
            if stack:
                stack.pop()
        elif text in _OPENS or text in _HEADERS:
            stack.append(text)
            if text in _HEADERS:
                return len(words)
        elif text == "function":
            i += 1  # function NAME
        elif text not in _GOES_ON:
            break
        i += 1
    return i


def _joined(ops: str) -> str:
    """How a command joins the one before it: "&&", "||", "|", or "" (it starts a list)."""
    ops = ops.replace("(", "").replace(")", "").rstrip("\n")
    for joint in ("&&", "||"):
        if ops.endswith(joint):
            return joint
    return "|" if ops.endswith("|") else ""


def _followed(ops: str) -> str:
    """What comes after a command: "|" (a pipeline), "&" (in the background), or ""."""
    ops = ops.replace("(", "").replace(")", "").lstrip("\n")
    if ops.startswith(("&&", "||")):
        return ""
    return ops[:1] if ops[:1] in ("|", "&") else ""


class EnvReader:
    """Reads a text's commands in order: the environment each launch starts with."""

    def __init__(self, start: Mapping[str, str], base_of: Callable[[Word], Mapping[str, str]],
                 watch: Optional[Callable[[list], bool]] = None) -> None:
        self.main = _Shell(start)  # after each complete list of the top level
        self.local: Optional[_Shell] = None  # within an and-or list, where it differs from main
        self.base_of = base_of  # a command not of the text nor of a script in it (a here-doc's; YAML's)
        self.stack: list[str] = []
        self.parens = 0
        self.written: dict[str, int] = {}  # the last top-level command that wrote each variable
        self.cleared = -1  # (and the last that wrote them all)
        self.elsewhere: set[str] = set()  # written in a nested script or a here-doc
        self.records: list[tuple] = []  # per command: (words, parent, snapshot, index, deferred)
        self.scripts: list[tuple[int, int, int]] = []  # (start, end, record) of the open `sh -c` scripts
        # for shell_arrays (``watch`` given): per top-level command, where it stands (stack, parens, how it
        # joins the one before, what follows it, where its command proper starts) and, for those ``watch``
        # names, the variables certain before it (their environment is kept too)
        self.watch = watch
        self.places: dict[int, tuple] = {}
        self.found: list[tuple[int, LaunchCommand]] = []  # (record, launch) of what read() returns

    def read(self, commands: Sequence[tuple[list, Optional[str]]], tail: str) -> list[LaunchCommand]:
        afters, following = [], tail
        for words, ops in reversed(commands):
            afters.append(following)
            following = ops if ops is not None else following
        launches = []
        for (words, ops), after in zip(commands, reversed(afters)):
            index = len(self.records)
            found = find_launch(words)
            script = script_index([(w, ()) for w in words])
            while self.scripts and self.scripts[-1][1] <= words[0].start:
                self.scripts.pop()
            if ops is not None:
                watched = self.watch is not None and self.watch(words)
                self.top_level(index, words, ops, after, found is not None or script is not None or watched, watched)
            else:
                self.nested(words)
            if script is not None:
                self.scripts.append((words[script].start, words[script].end, index))
            if found is not None:
                launches.append((index, found))
        out = []
        for index, found in launches:
            words = self.records[index][0]
            end = next(k for k, w in enumerate(words) if w is found.launcher)
            out.append(replace(found, env=command_env(words, end, self.inherited(index))))
            self.found.append((index, out[-1]))
        return out

    def top_level(self, index: int, words: list, ops: str, after: str, kept: bool, watched: bool = False) -> None:
        if "case" not in self.stack:
            self.parens = max(0, self.parens + ops.count("(") - ops.count(")"))
        joined = _joined(ops)
        if joined in ("", "||"):
            self.local = None
        first = _structure(words, self.stack)
        depth = len(self.stack) + self.parens
        state = self.local or self.main
        self.records.append((words, None, dict(state.env) if kept else {}, index, depth > 0))
        if self.watch is not None:
            self.places[index] = (tuple(self.stack), self.parens, joined, _followed(after), first,
                                  dict(state.vars) if watched else None)
        alone = depth == 0 and _followed(after) == ""
        certain_main, certain_local = alone and joined == "", alone and joined in ("", "&&")
        effects = builtin_effects(words[first:])
        if effects and certain_local != certain_main and self.local is None:
            self.local = self.main.copy()
        for effect in effects:
            if effect[0] == CLEAR:
                self.cleared = index
            elif effect[0] != "allexport":
                self.written[effect[1]] = index
            self.main.apply(effect, certain_main)
            if self.local is not None:
                self.local.apply(effect, certain_local)

    def nested(self, words: list) -> None:
        start = words[0].start
        parent = next((r for a, b, r in reversed(self.scripts) if a <= start < b), None)
        self.records.append((words, parent, None, 0, False))
        for effect in builtin_effects(words):
            if effect[0] != "allexport":
                self.elsewhere.add(effect[1] if effect[0] != CLEAR else CLEAR)

    def inherited(self, index: int) -> dict[str, str]:
        words, parent, snapshot, at, deferred = self.records[index]
        if snapshot is not None:
            if not deferred:
                return dict(snapshot)
            if self.cleared >= at:  # (what a later command writes: the launch may run after it)
                return {}
            return {k: v for k, v in snapshot.items() if self.written.get(k, -1) < at}
        if parent is None:
            env = dict(self.base_of(words[0]))
        else:
            outer = self.records[parent][0]
            shell = next(k for k, w in enumerate(outer) if not w.opaque and w.text.rsplit("/", 1)[-1] in SHELLS)
            env = command_env(outer, shell, self.inherited(parent))
        return {} if CLEAR in self.elsewhere else {k: v for k, v in env.items() if k not in self.elsewhere}


def launch_commands_with_env(text: str, hole: Optional[str] = None,
                             inherited: Optional[Mapping[str, str]] = None) -> list[LaunchCommand]:
    """launch_text.launch_commands (the same launches, words and offsets), each with ``env``: the
    variables certainly set for it, when the script starts with ``inherited`` (the caller's
    environment as far as it is known; by default nothing known)."""
    splitter = ScriptSplitter(text, hole)
    commands = splitter.run()
    tail = "".join(splitter.operators(splitter.gap_from, len(text)))
    flat = nested_commands(commands, text, hole)
    read = [([w for w, _ in cmd], splitter.before.get(id(cmd))) for cmd in flat]
    return EnvReader(inherited or {}, lambda word: {}).read(read, tail)


def yaml_launch_commands_with_env(text: str) -> list[LaunchCommand]:
    """The launches of a YAML file (as launch_text reads them), each with ``env``: what the
    mapping that holds the command gives it (yaml_env), changed by the command itself."""
    mappings: list[YamlEnv] = []  # read on first need

    def given(word: Word) -> dict[str, str]:
        if not mappings:
            mappings.append(YamlEnv(text))
        return mappings[0].at(word.start)

    return EnvReader({}, given).read([(words, None) for words in yaml_commands(text)], "")


def launch_commands_in_file_with_env(path: str, text: str, hole: Optional[str] = None,
                                     read: Optional[Callable[..., list[LaunchCommand]]] = None) -> list[LaunchCommand]:
    """launch_text.launch_commands_in_file, each launch with ``env`` (see the module docstring); ``read``
    reads each shell text of the file (by default :func:`launch_commands_with_env`)."""
    if path.lower().endswith(YAML_SUFFIXES):
        return yaml_launch_commands_with_env(text)
    read = read or launch_commands_with_env
    return [_moved(found, region.start, text)
            for region in shell_regions(path, text) for found in read(region.text, hole)]


def _moved(found: LaunchCommand, by: int, text: str) -> LaunchCommand:
    return replace(found, launcher=moved_word(found.launcher, by, text),
                   args=[moved_word(w, by, text) for w in found.args])


__all__ = ["command_env", "launch_commands_with_env", "launch_commands_in_file_with_env",
           "yaml_launch_commands_with_env"]
