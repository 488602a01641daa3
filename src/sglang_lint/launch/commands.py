"""sglang server launch commands in text that is not Python (shell scripts, the shell blocks of
Markdown, YAML command lists), split into words with their exact place in the original text.

A leaf: the standard library only. The splitter follows the shell: quotes, backslash escapes and
continuation lines, comments, separators (``; && || | & ( )`` and newline end a command), redirections
(``> log 2>&1``: dropped with their target), expansions (``$VAR ${X:-2} $(cmd) `cmd```: verbatim in
``Word.text``, the word opaque). A here-doc's body is split as shell text of its own (an apostrophe in
it cannot swallow the file). Control keywords are ordinary words (the launcher finder skips them).
Internally each word keeps its *pieces* (where each character comes from), so that a script inside a
word (``bash -c "..."``, a YAML string) is split again with offsets still in the file.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence, Union

from sglang_lint.launch.wrappers import NOT_COMMANDS, SHELLS, WRAPPERS


@dataclass(frozen=True)
class Word:
    text: str  # the word after quote removal; an expansion stays verbatim ("$TP"), a hole stays the hole
    start: int  # offset of the word's source (an opening quote included)
    end: int  # just past the word's source
    opaque: bool  # holds an expansion, an unterminated quote or a hole: the shell's value is unknown
    exact: bool  # text[start:end] == self.text: a fixer may replace that slice by a new word verbatim
    # a word of a launch built in pieces (shell_arrays.py): the statement that wrote it, and whether that
    # statement runs on every path (a flag takes a value of its own step, or both certain: flags.ArgWord)
    step: int = 0
    certain: bool = True


@dataclass(frozen=True)
class LaunchCommand:
    launcher: Word  # "sglang.launch_server" of ``-m sglang.launch_server``, "serve" of ``sglang serve``
    args: list[Word]  # the words after the launcher up to the end of the simple command
    env: dict = field(default_factory=dict)  # variables certainly set for it (shell_env fills it; here {})


@dataclass(frozen=True)
class Region:
    start: int  # offset in the file where ``text`` begins
    text: str  # same length as the file's slice: offset k in it is offset start + k in the file
    comment: str  # the comment prefix of this kind of file ("#")


MODULE_FLAG = "-m"
LAUNCHERS = {  # the launcher word: the module of `<python, python3.11, uv run python, torchrun, $PY> -m <module>`,
    "modules": frozenset({"sglang.launch_server"}),  # or the subcommand of the command word (after WRAPPERS)
    "commands": {"sglang": ("serve", "generate")},  # sglang serve, /path/to/bin/sglang generate
}
# python -m <this>: the server launcher (LAUNCHERS) or another module of sglang (scripts.toml judges it)
SCRIPT_MODULE = re.compile(r"sglang(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
MODULE_LAUNCH = re.compile(r"(?<![\w-])-m\W{1,8}sglang\.\w")  # in a text: python -m sglang.<module>
LAUNCHER_WORDS = re.compile(r"sglang\.launch_server|\bsglang\W{1,8}(?:serve|generate)\b|" + MODULE_LAUNCH.pattern)


SYS_EXECUTABLE = "sys.executable"  # the word a Python argv list writes for the running interpreter
_PYTHON = re.compile(r"(?:\S*/)?python[0-9.]*")


def launch_head(words: Sequence[Optional[str]]) -> Optional[str]:
    """The program an argv list starts, where its first words are sglang's own launcher:
    "" for ``<python> -m sglang.launch_server`` (``python3``, ``/usr/bin/python3.11`` or
    :data:`SYS_EXECUTABLE`), the subcommand for ``sglang serve`` or ``sglang generate``; None
    for any other list (``words``: the texts of its first elements, None where not known)."""
    first = words[0] if words else None
    if first is None:
        return None
    if len(words) >= 3 and (first == SYS_EXECUTABLE or _PYTHON.fullmatch(first)) and words[1] == MODULE_FLAG \
            and words[2] in LAUNCHERS["modules"]:
        return ""
    if len(words) >= 2 and words[1] in LAUNCHERS["commands"].get(first.rsplit("/", 1)[-1], ()):
        return words[1]
    return None


_MAX_DEPTH = 3  # scripts in scripts (here-docs, bash -c) are read this deep

# the shell splitter

_IWord = tuple  # (Word, pieces): pieces are (text_pos, src_pos, width); width 0: a verbatim run,
# width w > 0: one character made from the w source characters at src_pos (an escape)
_GAP = re.compile(r"(?P<blank>[ \t\r]+|\\\r?\n)|(?P<newline>\n)|(?P<comment>#[^\n]*)"
                  r"|(?P<redirect>&>>?|<<<|<<-|<<|>>|>&|<&|<>|>\||[<>])|(?P<operator>[;&|()])")
_PART = re.compile(r"(?P<plain>[^ \t\r\n'\"\\$`;&|<>()]+)|(?P<cont>\\\r?\n)|(?P<esc>\\.?)|(?P<sq>'[^']*'?)"
                   r"|(?P<dq>\")|(?P<exp>[$`])", re.S)
_DQ_PART = re.compile(r"(?P<plain>[^\"\\$`]+)|(?P<cont>\\\r?\n)|(?P<esc>\\[$`\"\\])|(?P<bs>\\)|(?P<end>\")"
                      r"|(?P<exp>[$`])")
_PARAM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_BACKTICK = re.compile(r"`(?:[^`\\]|\\.)*`?", re.S)
_ANSI_C = re.compile(r"'(?:[^'\\]|\\.)*'?", re.S)
_DQ_SPAN = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)


def _balanced(src: str, j: int) -> int:
    """The end of ``(...)``/``{...}`` opening at ``j`` (nested brackets, quotes skipped); len(src) if open."""
    n, closers = len(src), []
    while j < n:
        c = src[j]
        if c in "({":
            closers.append(")" if c == "(" else "}")
        elif c in ")}" and closers and closers[-1] == c:
            closers.pop()
            if not closers:
                return j + 1
        elif c == "\\":
            j += 1
        elif c == "'":
            k = src.find("'", j + 1)
            j = n if k < 0 else k
        elif c in "\"`":
            j = (_DQ_SPAN if c == '"' else _BACKTICK).match(src, j).end() - 1
        j += 1
    return n


class _Splitter:
    def __init__(self, src: str, hole: Optional[str], base: int, depth: int) -> None:
        self.src, self.hole, self.base, self.depth = src, hole, base, depth
        self.cmds: list[list[_IWord]] = []
        self.cmd: list[_IWord] = []
        self.heredocs: list[tuple[str, bool]] = []  # (delimiter, tabs stripped) of the line being read
        self.skip = ""  # what the next word is: "" a word, "target" of a redirection, "<<" / "<<-" a delimiter
        self.budget = 4 * len(src) + 4096  # characters the here-doc searches may read: linear time
        # the word being read: its text's parts, their pieces, its length, whether it is opaque
        self.parts, self.pieces, self.tlen, self.opaque = [], [], 0, False

    def add(self, text: str, pos: int, width: int = 0) -> None:
        if text:
            self.pieces.append((self.tlen, self.base + pos, width))
            self.parts.append(text)
            self.tlen += len(text)

    def end_command(self) -> None:
        if self.cmd:
            self.cmds.append(self.cmd)
        self.cmd, self.skip = [], ""

    def run(self) -> list[list[_IWord]]:
        src, n, i = self.src, len(self.src), 0
        while i < n:
            m = _GAP.match(src, i)
            if not m:
                i = self.word(i)
                continue
            kind, i = m.lastgroup, m.end()
            if kind == "newline":
                self.end_command()
                i = self.read_heredocs(i)
            elif kind == "redirect":
                self.skip = m.group() if m.group() in ("<<", "<<-") else "target"
            elif kind == "operator":
                self.end_command()
        self.end_command()
        return self.cmds

    def word(self, i: int) -> int:
        """Read the word starting at ``i``; return where it ends (at a blank or an operator)."""
        src, start = self.src, i
        self.parts, self.pieces, self.tlen, self.opaque = [], [], 0, False
        while m := _PART.match(src, i):
            kind, part = m.lastgroup, m.group()
            if kind == "plain":
                self.add(part, i)
            elif kind == "esc":  # \x is x; a lone backslash at the very end stays
                self.add(part[1:] or "\\", i, (len(part) - 1) * 2)
            elif kind == "sq":
                closed = len(part) > 1 and part[-1] == "'"
                self.add(part[1:-1] if closed else part[1:], i + 1)
                self.opaque |= not closed
            elif kind == "dq":
                i = self.double_quoted(i + 1)
                continue
            elif kind == "exp":
                i = i + 1 if src.startswith('$"', i) else self.expansion(i, quoted=False)  # $"x" is "x"
                continue
            i = m.end()
        self.finish(start, i)
        return i

    def double_quoted(self, j: int) -> int:
        while j < len(self.src):
            m = _DQ_PART.match(self.src, j)
            kind = m.lastgroup
            if kind == "end":
                return j + 1
            if kind == "exp":
                j = self.expansion(j, quoted=True)
                continue
            if kind != "cont":
                self.add(m.group()[-1] if kind == "esc" else m.group(), j, 2 if kind == "esc" else 0)
            j = m.end()
        self.opaque = True  # unterminated
        return j

    def expansion(self, j: int, quoted: bool) -> int:
        src = self.src
        if src[j] == "`":
            k = _BACKTICK.match(src, j).end()
        elif src[j + 1:j + 2] in ("(", "{"):
            k = _balanced(src, j + 1)
        elif src[j + 1:j + 2] == "'" and not quoted:
            k = _ANSI_C.match(src, j + 1).end()
        else:
            m = _PARAM.match(src, j + 1)
            k = m.end() if m else j + 1
        if k == j + 1 and src[j] == "$":
            self.add("$", j)  # a lone dollar is a dollar
        else:
            self.add(src[j:k], j)
            self.opaque = True
        return k

    def finish(self, start: int, end: int) -> None:
        src, text = self.src, "".join(self.parts)
        if end < len(src) and src[end] in "<>" and src[start:end].isdigit():
            return  # the file descriptor of `2>&1`
        skip, self.skip = self.skip, ""
        opaque = self.opaque or bool(self.hole and self.hole in text)
        word = Word(text, self.base + start, self.base + end, opaque, src[start:end] == text)
        if not skip:
            self.cmd.append((word, self.pieces))
        elif skip.startswith("<<") and not opaque:
            self.heredocs.append((text, skip == "<<-"))

    def read_heredocs(self, i: int) -> int:
        """Skip the bodies of the here-docs opened on the line that ended at ``i``, splitting each on
        its own; a body whose delimiter line never comes is read as ordinary lines."""
        src, n = self.src, len(self.src)
        for delim, tabs in self.heredocs:
            pos = i
            while delim and self.budget > 0:
                k = src.find(delim, pos)
                self.budget -= (n if k < 0 else k) - pos + 1
                if k < 0:
                    break
                line, e = k, k + len(delim)
                while tabs and line > i and src[line - 1] == "\t":
                    line -= 1
                e += src.startswith("\r", e)
                if (line == i or src[line - 1] == "\n") and (e == n or src[e] == "\n"):
                    if self.depth < _MAX_DEPTH:
                        self.cmds.extend(_split(src[i:line], self.hole, self.base + i, self.depth + 1))
                    i = min(e + 1, n)
                    break
                pos = k + 1
        self.heredocs = []
        return i


def _split(src: str, hole: Optional[str] = None, base: int = 0, depth: int = 0) -> list[list[_IWord]]:
    return _Splitter(src, hole, base, depth).run()


def shell_words(text: str, hole: Optional[str] = None) -> list[list[Word]]:
    """Split shell source into simple commands, each a list of words (see the module's docstring).
    ``hole`` marks an unknown piece of text (an f-string's expression): a word holding it is opaque."""
    return [[w for w, _ in cmd] for cmd in _split(text, hole)]


# where the characters of a word come from, to split a word again (bash -c SCRIPT, a YAML string)
def _spans(pieces: Sequence[tuple], length: int) -> list[tuple[int, int]]:
    """Per character of a word's text: the (start, end) of its source."""
    out: list[tuple[int, int]] = []
    for k, (t, s, width) in enumerate(pieces):
        nxt = pieces[k + 1][0] if k + 1 < len(pieces) else length
        if width:
            out.extend([(s, s + width)] * (nxt - t))
        else:
            out.extend((p, p + 1) for p in range(s, s + nxt - t))
    return out


def _pieces(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    prev = None
    for k, (s, e) in enumerate(spans):
        if not (e == s + 1 and out and out[-1][2] == 0 and prev == s):
            out.append((k, s, 0 if e == s + 1 else e - s))
        prev = e
    return out


def _remap(iword: _IWord, spans: Sequence[tuple[int, int]], text: str) -> _IWord:
    """A word split from a string whose characters come from ``spans`` of ``text``: in ``text``'s offsets."""
    word, pieces = iword
    start, end = spans[word.start][0], spans[word.end - 1][1]  # a word's source is never empty
    mapped = [(spans[a][0], spans[b - 1][1]) for a, b in _spans(pieces, len(word.text))]
    return Word(word.text, start, end, word.opaque, text[start:end] == word.text), _pieces(mapped)


def _split_mapped(string: str, where: Union[int, list], text: str, hole: Optional[str],
                  depth: int = 0) -> list[list[_IWord]]:
    """Split ``string``: a slice of ``text`` at offset ``where`` with newlines maybe turned to blanks,
    or characters whose sources are the spans ``where``."""
    if isinstance(where, int):
        return [[(replace(w, exact=text[w.start:w.end] == w.text), p) for w, p in cmd]
                for cmd in _split(string, hole, where, depth)]
    return [[_remap(iw, where, text) for iw in cmd] for cmd in _split(string, hole, 0, depth)]


def _script_index(cmd: Sequence[_IWord]) -> Optional[int]:
    """The index of SCRIPT in ``... bash [options] -c SCRIPT ...``."""
    shells = [k for k, (w, _) in enumerate(cmd) if not w.opaque and w.text.rsplit("/", 1)[-1] in SHELLS]
    k, saw_c = shells[0] + 1 if shells else len(cmd), False
    while k < len(cmd):
        t = cmd[k][0].text
        if t in ("-o", "+o", "-O", "+O"):
            k += 2
        elif len(t) > 1 and t[0] in "-+":
            saw_c = saw_c or (t[0] == "-" and t[1] != "-" and "c" in t)
            k += 1
        else:
            break
    return k if saw_c and k < len(cmd) else None


def _nested(cmds: Iterable[list[_IWord]], text: str, hole: Optional[str], depth: int = 0) -> list[list[_IWord]]:
    """The commands and, after each ``sh -c SCRIPT``, the commands of SCRIPT (offsets in ``text``)."""
    out = []
    for cmd in cmds:
        out.append(cmd)
        k = _script_index(cmd)
        if k is not None and depth < _MAX_DEPTH:
            word, pieces = cmd[k]
            inner = _split_mapped(word.text, _spans(pieces, len(word.text)), text, hole, depth + 1)
            out.extend(_nested(inner, text, hole, depth + 1))
    return out


# the launcher

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


def command_index(words: Sequence[Word]) -> Optional[int]:
    """The index of the command word: after environment assignments and the WRAPPERS with their
    options; None when the words run out first."""
    i, n = 0, len(words)
    while i < n:
        if _ASSIGNMENT.match(words[i].text):
            i += 1
            continue
        values, subcommands, positionals = WRAPPERS.get(words[i].text.rsplit("/", 1)[-1], (None, (), 0))
        if values is None or words[i].opaque:
            return i
        head, i = i, _skip_options(words, i + 1, values)
        if subcommands:
            if i >= n or words[i].opaque or words[i].text not in subcommands:
                return head  # not a wrapper's use (`uv pip install`): the wrapper is the command
            i = _skip_options(words, i + 1, values)
        i += positionals
    return None


def _skip_options(words: Sequence[Word], i: int, values: frozenset) -> int:
    while i < len(words) and not words[i].opaque and len(words[i].text) > 1 and words[i].text[0] == "-":
        if words[i].text == "--":
            return i + 1
        i += 2 if words[i].text in values else 1
    return i


def find_launch(words: Sequence[Word]) -> Optional[LaunchCommand]:
    """The launch of an sglang server in one simple command, or None. ``sglang serve`` (``sglang
    generate``): the command word (after assignments and wrappers) is ``sglang`` and the next word
    ``serve`` (``generate``). ``-m sglang.launch_server`` (or any module of sglang): the first
    ``-m`` followed by one, after whatever runs it, unless the command word is one of NOT_COMMANDS.
    Opaque words never match."""
    words = list(words)
    k = command_index(words)
    name = words[k].text.rsplit("/", 1)[-1] if k is not None and not words[k].opaque else None
    if name in NOT_COMMANDS:
        return None
    subcommands = LAUNCHERS["commands"].get(name, ())
    if subcommands and k + 1 < len(words) and not words[k + 1].opaque and words[k + 1].text in subcommands:
        return LaunchCommand(words[k + 1], words[k + 2:])
    for j in range(len(words) - 1):
        if words[j].text == MODULE_FLAG and SCRIPT_MODULE.fullmatch(words[j + 1].text) and not (
                words[j].opaque or words[j + 1].opaque):
            return LaunchCommand(words[j + 1], words[j + 2:])
    return None


def launch_commands_in_words(commands: Iterable[Sequence[Word]]) -> list[LaunchCommand]:
    """find_launch over commands given as word lists (from yaml_commands, shell_words or Python)."""
    return [found for words in commands if (found := find_launch(words)) is not None]


def launch_commands(text: str, hole: Optional[str] = None) -> list[LaunchCommand]:
    """Every simple command in shell ``text`` that starts an sglang server, with the words after the
    launcher; the commands of a ``bash -c SCRIPT`` word are looked at too."""
    cmds = _nested(_split(text, hole), text, hole)
    return launch_commands_in_words([w for w, _ in cmd] for cmd in cmds)


# files: shell scripts, Markdown, YAML

SHEBANG = re.compile(r"\ufeff?#![ \t]*(?:\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:sh|bash|zsh|dash)(?=[ \t\r\n]|$)")
SHELL_SUFFIXES, MARKDOWN_SUFFIXES, YAML_SUFFIXES = (".sh", ".bash", ".zsh"), (".md", ".markdown"), (".yaml", ".yml")
# A fenced block's language (the info string's first word) -> how its text is read.
MARKDOWN_LANGUAGES = {"bash": "shell", "sh": "shell", "shell": "shell", "zsh": "shell",
                      "console": "console", "shell-session": "console", "shellsession": "console"}
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n]*)\n?", re.M)
_LANGUAGE = re.compile(r"[{.]*([\w+-]*)")
_PROMPT = re.compile(r"[ \t]*(?:\([^()\n]*\)[ \t]*)?[\w.@:~/-]*\$(?:[ \t]|\r?$)")
_PS2 = re.compile(r"[ \t]*>[ \t]")


def shell_regions(path: str, text: str) -> list[Region]:
    """The shell text of a file: a whole shell script (by suffix or shebang), or the shell blocks of Markdown (a
    fence at any indentation; a ``console`` block keeps its ``$ `` command lines with the prompt blanked, and their
    continuation lines; its other lines are blanked: spaces, newlines kept; a fence with no language: _unlabelled).
    Other files: none (YAML: see yaml_commands)."""
    lower = path.lower()
    if lower.endswith(SHELL_SUFFIXES) or SHEBANG.match(text):
        return [Region(0, text, "#")]
    regions, pos = [], 0
    while lower.endswith(MARKDOWN_SUFFIXES) and (m := _FENCE.search(text, pos)):
        fence, info, begin = m.group(1), m.group(2).strip(), m.end()
        if fence[0] == "`" and "`" in info:
            pos = begin
            continue
        close = re.compile(r"^[ \t]*%s{%d,}[ \t]*\r?$" % (fence[0], len(fence)), re.M).search(text, begin)
        end, pos = (close.start(), close.end()) if close else (len(text), len(text))
        block = text[begin:end]
        kind = MARKDOWN_LANGUAGES.get(_LANGUAGE.match(info).group(1).lower()) if info else _unlabelled(block)
        if kind and block.strip():
            regions.append(Region(begin, _console(block) if kind == "console" else block, "#"))
    return regions


def _unlabelled(block: str) -> Optional[str]:
    """A fence with no language (as often output, JSON or Python) is shell only where its first command launches."""
    kind = "console" if _PROMPT.match(block.lstrip()) else "shell"
    first = next(iter(_split(_console(block) if kind == "console" else block)), None)
    return kind if first and find_launch([word for word, _ in first]) else None


def _console(block: str) -> str:
    out, going_on = [], False
    for line in block.split("\n"):
        prompt = (_PS2 if going_on else _PROMPT).match(line)
        keep = " " * prompt.end() + line[prompt.end():] if prompt else line if going_on else ""
        out.append(keep.ljust(len(line)))
        going_on = bool(going_on or prompt) and line.rstrip("\r").endswith("\\")
    return "\n".join(out)


# YAML keys whose value is a command: "words" (a sequence is one command, an item a word; a string
# is split as shell) or "shell" (a string or each item of a sequence is shell text).
YAML_KEYS = {"command": "words", "args": "words", "entrypoint": "words",
             "run": "shell", "script": "shell", "before_script": "shell", "after_script": "shell"}
# Sibling keys of one mapping that make one command: Kubernetes command + args, Compose entrypoint + command.
YAML_JOINS = (("entrypoint", "command"), ("command", "args"))
_YAML_KEY = re.compile(r"([ ]*)((?:-[ \t]+)*)([\"']?)([A-Za-z_][\w-]*)\3[ \t]*:(?=[ \t]|\r?$)")
_YAML_BLOCK = re.compile(r"([ ]*)((?:-[ \t]+)*)([^#\s][^#]*?:[ \t]+)?[|>][-+1-9]{0,2}[ \t]*(?:#.*)?\r?$")
_YAML_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
                 "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0"}
_YAML_RUN = {"'": re.compile(r"[^'\r\n]+"), '"': re.compile(r'[^"\\\r\n]+')}
_YAML_PROPERTIES = re.compile(r"[ \t]*(?:[!&][^ \t]*[ \t]*)*")  # a tag or an anchor before the value
_YAML_DASH = re.compile(r"-(?:[ \t]|$)")
_YAML_COMMENT = re.compile(r"[ \t]#")
_YAML_BREAK = re.compile(r"[ \t\r\n]*")
_INDENT = re.compile(r"[ \t]*")
_FLOW_GAP = re.compile(r"(?:[\s,]+|#[^\n]*)*")
_FLOW_PLAIN = re.compile(r"[^,\[\]{}\r\n]*")
_EXPANDS = re.compile(r"\$[({A-Za-z_]")  # $(VAR) of Kubernetes, $VAR / ${VAR} of Compose

_Text = tuple  # (string, where: int offset of a same-length slice | spans per character, src start, src end)


class _Yaml:
    """A line-based reading of YAML: enough for the values of YAML_KEYS, no YAML library. A line is
    (start, end without the line break, first non-blank offset, holds content: neither blank nor a comment)."""

    def __init__(self, text: str) -> None:
        self.text, self.starts, self.lines = text, [0] + [m.end() for m in re.finditer("\n", text)], []
        for k, s in enumerate(self.starts):
            e = self.starts[k + 1] - 1 if k + 1 < len(self.starts) else len(text)
            e -= e > s and text[e - 1] == "\r"
            cs = _INDENT.match(text, s, e).end()
            self.lines.append((s, e, cs, cs < e and text[cs] != "#"))

    def scan(self) -> list[tuple[int, str, tuple]]:
        """(mapping id, key, value) of every YAML_KEYS key; the keys of one mapping share the id."""
        text, entries, maps, ids, li = self.text, [], {}, 0, 0
        while li < len(self.lines):
            s, e, cs, content = self.lines[li]
            if not content:
                li += 1
                continue
            for col in [c for c in maps if c > cs - s]:
                del maps[col]  # a line less indented than a mapping's keys ends that mapping
            m = _YAML_KEY.match(text, s, e)
            if m and m.group(4) in YAML_KEYS:
                col = m.end(2) - s
                if col not in maps:
                    maps[col], ids = ids, ids + 1
                node, after = self.value(li, m.end(), col)
                if node:
                    entries.append((maps[col], m.group(4), node))
                li = max(after, li + 1)
                continue
            block = _YAML_BLOCK.match(text, s, e)  # another key's block scalar: its lines are not keys
            li = self.block(li, (block.end(2) if block.group(3) else block.end(1)) - s)[1] if block else li + 1
        return entries

    def block(self, li: int, col: int) -> tuple[range, int]:
        """The lines of the block scalar whose header is on line ``li`` (indented past ``col``; trailing
        blank lines left out), and the line after the block."""
        rows = self.lines
        lj = next((k for k in range(li + 1, len(rows)) if rows[k][2] < rows[k][1] and rows[k][2] - rows[k][0] <= col),
                  len(rows))
        return range(li + 1, max([k + 1 for k in range(li + 1, lj) if rows[k][2] < rows[k][1]], default=li + 1)), lj

    def value(self, li: int, p: int, col: int) -> tuple[Optional[tuple], int]:
        """The value from ``p`` on line ``li`` of a key or item at column ``col``: ("seq", [text, ...]) or
        ("text", text), or None; and the line after it."""
        text, e = self.text, self.lines[li][1]
        p = _YAML_PROPERTIES.match(text, p, e).end()
        if p >= e or text[p] == "#":  # the value is on the next lines
            lj = next((k for k in range(li + 1, len(self.lines)) if self.lines[k][3]), None)
            if lj is None:
                return None, li + 1
            ls, le, cs, _ = self.lines[lj]
            if _YAML_DASH.match(text, cs, le) and cs - ls >= col:
                return self.sequence(lj, cs - ls)
            return self.value(lj, cs, col) if cs - ls > col else (None, li + 1)
        c = text[p]
        if c == "[":
            items, end = self.flow(p)
            return ("seq", items), bisect.bisect_right(self.starts, end - 1)
        if c in "\"'":
            string, spans, end = self.quoted(p)
            return ("text", (string, spans, p, end)), bisect.bisect_right(self.starts, end - 1)
        if c in "|>":
            return self.block_scalar(li, c == ">", col)
        return self.plain(li, p, col)

    def sequence(self, lj: int, indent: int) -> tuple[tuple, int]:
        """A block sequence whose dashes are at ``indent``; an empty item (a collection under it) is skipped."""
        text, items = self.text, []
        while lj < len(self.lines):
            s, e, cs, content = self.lines[lj]
            if content and (cs - s != indent or not _YAML_DASH.match(text, cs, e)):
                break
            q = _INDENT.match(text, cs + 1, e).end() if content else e
            node, after = self.value(lj, q, indent) if q < e and text[q] != "#" else (None, lj + 1)
            if node and node[0] == "text":
                items.append(node[1])
            lj = max(after, lj + 1)
        return ("seq", items), lj

    def block_scalar(self, li: int, folded: bool, col: int) -> tuple[Optional[tuple], int]:
        """A ``|`` block's lines as they are; a ``>`` block's line breaks between two lines at the
        block's indentation turned to blanks (same length, so offsets hold)."""
        lines, after = self.block(li, col)
        if not lines:
            return None, after
        begin, end = self.lines[lines[0]][0], self.lines[lines[-1]][1]
        chars = list(self.text[begin:end])
        if folded:  # a line break between two lines at the block's indentation is a blank
            rows = [self.lines[k] for k in lines]
            indent = min(cs - s for s, e, cs, _ in rows if cs < e)
            for (sa, ea, ca, _), (sb, eb, cb, _) in zip(rows, rows[1:]):
                if ca < ea and cb < eb and ca - sa == cb - sb == indent:
                    chars[ea - begin:sb - begin] = " " * (sb - ea)
        return ("text", ("".join(chars), begin, begin, end)), after

    def plain(self, li: int, p: int, col: int) -> tuple[tuple, int]:
        """A plain scalar from ``p`` and its more indented continuation lines (line breaks as blanks)."""
        text, lj = self.text, li
        while True:
            s, e, _, _ = self.lines[lj]
            cut = _YAML_COMMENT.search(text, max(s, p), e)
            end = cut.start() if cut else e
            lj += 1
            if cut or lj == len(self.lines) or not self.lines[lj][3] or self.lines[lj][2] - self.lines[lj][0] <= col:
                break
        string = text[p:end].rstrip(" \t\r")
        return ("text", (string.replace("\r", " ").replace("\n", " "), p, p, p + len(string))), lj

    def quoted(self, p: int) -> tuple[str, list, int]:
        """The quoted scalar at ``p``: its value, the source span of each character, its end."""
        text, n, q = self.text, len(self.text), self.text[p]
        out, spans, j = [], [], p + 1
        while j < n:
            m = _YAML_RUN[q].match(text, j)
            if m:
                out.append(m.group())
                spans.extend((k, k + 1) for k in range(j, m.end()))
                j = m.end()
                continue
            c, nxt = text[j], text[j + 1:j + 2]
            if c == q and not (q == "'" and nxt == "'"):
                return "".join(out), spans, j + 1
            if c in "\r\n" or (c == "\\" and nxt in ("\r", "\n")):  # a line break folds to a blank; \ joins
                if c != "\\":
                    out.append(" ")
                    spans.append((j, j + 1))
                j = _YAML_BREAK.match(text, j + 1).end()
            else:  # '' in single quotes, an escape in double quotes
                char = "'" if q == "'" else _YAML_ESCAPES.get(nxt)
                out.append("\\" if char is None else char)
                spans.append((j, j + (1 if char is None else 2)))
                j = spans[-1][1]
        return "".join(out), spans, n

    def flow(self, p: int) -> tuple[list, int]:
        """The items of the flow sequence ``[...]`` at ``p`` (nested collections skipped), and its end."""
        text, n, items, j = self.text, len(self.text), [], p + 1
        while True:
            j = _FLOW_GAP.match(text, j).end()
            if j >= n:
                return items, n
            c = text[j]
            if c == "]":
                return items, j + 1
            if c in "\"'":
                string, spans, end = self.quoted(j)
                items.append((string, spans, j, end))
                j = end
            elif c in "[{":  # a nested collection: skipped
                depth, j = 1, j + 1
                while j < n and depth:
                    depth, j = depth + (text[j] in "[{") - (text[j] in "]}"), j + 1
            else:
                m = _FLOW_PLAIN.match(text, j)
                string = _YAML_COMMENT.split(m.group(), 1)[0].rstrip(" \t")
                if string:
                    items.append((string, j, j, j + len(string)))
                j = max(m.end(), j + 1)


def _item_word(item: _Text, text: str) -> _IWord:
    """A sequence item as one word; a block or a plain scalar over lines loses each line's leading blanks."""
    string, spans, start, end = item
    if isinstance(spans, int):
        where, spans, chars, pos = spans, [], [], 0
        for line in text[where:where + len(string)].split("\n"):
            for k in range(pos + len(line) - len(line.lstrip(" \t")), min(pos + len(line) + 1, len(string))):
                chars.append(string[k])  # the line's content and the break after it (a blank if folded)
                spans.append((where + k, where + k + 1))
            pos += len(line) + 1
        string = "".join(chars)
    return Word(string, start, end, bool(_EXPANDS.search(string)), text[start:end] == string), _pieces(spans)


def _yaml(text: str) -> list[list[_IWord]]:
    groups: dict[int, list[tuple[str, list[list[_IWord]]]]] = {}
    for mapping, key, (kind, value) in _Yaml(text).scan():
        if kind == "seq" and YAML_KEYS[key] == "words":
            cmds = [[_item_word(item, text) for item in value]]
        else:
            items = value if kind == "seq" else [value]
            cmds = [cmd for item in items for cmd in _split_mapped(item[0], item[1], text, None)]
        groups.setdefault(mapping, []).append((key, [c for c in cmds if c]))
    out: list[list[_IWord]] = []
    for entries in groups.values():
        keys = dict(entries)
        for first, second in YAML_JOINS:
            if len(keys.get(first, ())) == 1 and len(keys.get(second, ())) == 1:
                rest = [e for e in entries if e[0] not in (first, second)]
                entries = [(first, [keys[first][0] + keys[second][0]])] + rest
                break
        out.extend(cmd for _, cmds in entries for cmd in cmds)
    return _nested(out, text, None)


def yaml_commands(text: str) -> list[list[Word]]:
    """The commands of a YAML file (Kubernetes, Compose, CI) as words with file offsets: the values of
    YAML_KEYS; a sequence item is one word (``exact`` False when quoted); a string is split as shell
    (a ``>`` block scalar's lines joined, a ``|`` one's kept); YAML_JOINS siblings make one command;
    and after a ``sh -c SCRIPT`` command, the commands of SCRIPT."""
    return [[w for w, _ in cmd] for cmd in _yaml(text)]


def launch_commands_in_file(path: str, text: str, hole: Optional[str] = None) -> list[LaunchCommand]:
    """The launch commands of a shell script, a Markdown or a YAML file, with offsets in the file."""
    if path.lower().endswith(YAML_SUFFIXES):
        return launch_commands_in_words(yaml_commands(text))
    return [LaunchCommand(moved_word(lc.launcher, r.start, text), [moved_word(w, r.start, text) for w in lc.args])
            for r in shell_regions(path, text) for lc in launch_commands(r.text, hole)]


def moved_word(word: Word, by: int, text: str) -> Word:
    """A word of a region in the file's offsets (a console block's blanked lines may differ from the file)."""
    start, end = word.start + by, word.end + by
    return replace(word, start=start, end=end, exact=word.exact and text[start:end] == word.text)
