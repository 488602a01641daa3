"""The shell splitter: shell source split into simple commands of words, each word with its exact
place in the original text (launch/commands.py finds the launches among them).

A leaf: the standard library only. The splitter follows the shell: quotes, backslash escapes and
continuation lines, comments, separators (``; && || | & ( )`` and newline end a command), redirections
(``> log 2>&1``: dropped with their target), expansions (``$VAR ${X:-2} $(cmd) `cmd```: verbatim in
``Word.text``, the word opaque). A here-doc's body is split as shell text of its own (an apostrophe in
it cannot swallow the file). Control keywords are ordinary words (the launcher finder skips them).
Each word keeps its *pieces* (where each character comes from, an :data:`IWord`), so that a script
inside a word (``bash -c "..."``, a YAML string) is split again with offsets still in the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Optional, Sequence, Union

from sglang_lint.launch.wrappers import SHELLS


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


MAX_DEPTH = 3  # scripts in scripts (here-docs, bash -c) are read this deep

IWord = tuple  # (Word, pieces): pieces are (text_pos, src_pos, width); width 0: a verbatim run,
# width w > 0: one character made from the w source characters at src_pos (an escape)
GAP = re.compile(r"(?P<blank>[ \t\r]+|\\\r?\n)|(?P<newline>\n)|(?P<comment>#[^\n]*)"
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


class Splitter:
    def __init__(self, src: str, hole: Optional[str], base: int, depth: int) -> None:
        self.src, self.hole, self.base, self.depth = src, hole, base, depth
        self.cmds: list[list[IWord]] = []
        self.cmd: list[IWord] = []
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

    def run(self) -> list[list[IWord]]:
        src, n, i = self.src, len(self.src), 0
        while i < n:
            m = GAP.match(src, i)
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
                    if self.depth < MAX_DEPTH:
                        self.cmds.extend(split(src[i:line], self.hole, self.base + i, self.depth + 1))
                    i = min(e + 1, n)
                    break
                pos = k + 1
        self.heredocs = []
        return i


def split(src: str, hole: Optional[str] = None, base: int = 0, depth: int = 0) -> list[list[IWord]]:
    return Splitter(src, hole, base, depth).run()


def shell_words(text: str, hole: Optional[str] = None) -> list[list[Word]]:
    """Split shell source into simple commands, each a list of words (see the module's docstring).
    ``hole`` marks an unknown piece of text (an f-string's expression): a word holding it is opaque."""
    return [[w for w, _ in cmd] for cmd in split(text, hole)]


# where the characters of a word come from, to split a word again (bash -c SCRIPT, a YAML string)
def word_spans(pieces: Sequence[tuple], length: int) -> list[tuple[int, int]]:
    """Per character of a word's text: the (start, end) of its source."""
    out: list[tuple[int, int]] = []
    for k, (t, s, width) in enumerate(pieces):
        nxt = pieces[k + 1][0] if k + 1 < len(pieces) else length
        if width:
            out.extend([(s, s + width)] * (nxt - t))
        else:
            out.extend((p, p + 1) for p in range(s, s + nxt - t))
    return out


def word_pieces(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    prev = None
    for k, (s, e) in enumerate(spans):
        if not (e == s + 1 and out and out[-1][2] == 0 and prev == s):
            out.append((k, s, 0 if e == s + 1 else e - s))
        prev = e
    return out


def _remap(iword: IWord, spans: Sequence[tuple[int, int]], text: str) -> IWord:
    """A word split from a string whose characters come from ``spans`` of ``text``: in ``text``'s offsets."""
    word, pieces = iword
    start, end = spans[word.start][0], spans[word.end - 1][1]  # a word's source is never empty
    mapped = [(spans[a][0], spans[b - 1][1]) for a, b in word_spans(pieces, len(word.text))]
    return Word(word.text, start, end, word.opaque, text[start:end] == word.text), word_pieces(mapped)


def split_mapped(string: str, where: Union[int, list], text: str, hole: Optional[str],
                 depth: int = 0) -> list[list[IWord]]:
    """Split ``string``: a slice of ``text`` at offset ``where`` with newlines maybe turned to blanks,
    or characters whose sources are the spans ``where``."""
    if isinstance(where, int):
        return [[(replace(w, exact=text[w.start:w.end] == w.text), p) for w, p in cmd]
                for cmd in split(string, hole, where, depth)]
    return [[_remap(iw, where, text) for iw in cmd] for cmd in split(string, hole, 0, depth)]


def script_index(cmd: Sequence[IWord]) -> Optional[int]:
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


def nested_commands(cmds: Iterable[list[IWord]], text: str, hole: Optional[str], depth: int = 0) -> list[list[IWord]]:
    """The commands and, after each ``sh -c SCRIPT``, the commands of SCRIPT (offsets in ``text``)."""
    out = []
    for cmd in cmds:
        out.append(cmd)
        k = script_index(cmd)
        if k is not None and depth < MAX_DEPTH:
            word, pieces = cmd[k]
            inner = split_mapped(word.text, word_spans(pieces, len(word.text)), text, hole, depth + 1)
            out.extend(nested_commands(inner, text, hole, depth + 1))
    return out


def moved_word(word: Word, by: int, text: str) -> Word:
    """A word of a region in the file's offsets (a console block's blanked lines may differ from the file)."""
    start, end = word.start + by, word.end + by
    return replace(word, start=start, end=end, exact=word.exact and text[start:end] == word.text)
