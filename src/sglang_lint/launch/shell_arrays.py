"""sglang launches built in pieces in shell: the words of bash arrays and of string variables join
a launch where they are expanded, each keeping its own place in the file::

    CMD=(python3 -m sglang.launch_server --model-path "$MODEL")
    CMD+=(--tp-size 2)                            # a finding on --tp-size points here
    if [ "$SPEC" = 1 ]; then CMD+=(--speculative-algorithm EAGLE); fi
    "${CMD[@]}"                                   # exec "${CMD[@]}", nohup "${CMD[@]}" &, ${CMD[*]}

    ARGS=(--tp-size 2); EXTRA="--mem-fraction-static 0.8"
    python3 -m sglang.launch_server --model-path m "${ARGS[@]}" $EXTRA

A text is read in order over shell_env's reader (its commands, where each stands, the variables
certain before it): an array literal ``NAME=(...)`` / ``NAME+=(...)`` (``declare``/``local``
before it too) is one statement; ``"${NAME[@]}"`` is the array's words one by one;
``${NAME[@]}`` / ``${NAME[*]}`` unquoted, each word split at blanks; ``$NAME`` unquoted, where
the variable's certain value (shell_env) holds a flag, its words split at blanks. Each word has
the statement that wrote it as its ``step``: one at the top level that runs on every path is
``certain``; one in an ``if``, a loop, a ``case``, after ``&&``/``||`` may not run: its words
are kept, not certain, and a flag takes a value of another step only where both are certain, as
in an argv list built in steps (checks/server_args/flags.py).

What is not known makes words unknown, never absent: an array assigned where it may not run,
changed by index, ``unset``, read (``read -a``, ``mapfile``), after a ``source``/``.``/``eval``,
or written by a function is unknown; ``+=`` in a subshell, a pipeline or the background adds an
unknown word (its own words stay in that process); ``+=`` to an unknown array, or to one not
assigned before, adds to an unknown start; ``"$@"``, ``${CMD[@]:1}``, ``${!x}``, ``"${CMD[*]}"``
are unknown words; an unquoted word with ``*?[`` may name files; a text that sets ``IFS`` splits
otherwise: no unquoted expansion is read. A function body (any ``{ }`` group) is read on its
own: an array it assigns at its top level is known to its own launches. A launch in a compound
command (a loop, a function) may run later: what is written after it in the text is unknown for
it. ``eval`` is not read. An array literal that holds a launch and that no launch read here runs
is judged as its words followed by an unknown word, with no environment known. Another text
(YAML, a Python string) is read as shell_env reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Mapping, Optional

from sglang_lint.launch.commands import LaunchCommand, command_index, find_launch
from sglang_lint.launch.shell_split import GAP, Splitter, Word, nested_commands, word_spans
from sglang_lint.launch.shell_env import (
    CLEAR, EnvReader, ScriptSplitter, builtin_effects, command_env, launch_commands_in_file_with_env,
    launch_commands_with_env,
)

# a text a launch may be built in pieces in: an array literal, an array's expansion, a variable whose value
# holds a flag; any other is read as shell_env reads it, at no cost more
HINT = re.compile(r"=\(|\[[@*]\]|\w=(?:[\"']\s*)?-|\w=[\"'][^\"']*?\s-")
_TARGET = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_ARRAY_USE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}")
_SCALAR_USE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")
_INDEXED = re.compile(r"\[[^\]]*\]\+?=")  # ([3]=x): a sparse literal
_FIELD = re.compile(r"[^ \t\n]+")  # what an unquoted expansion splits into (IFS as bash starts with it)
_BLANKS = re.compile(r"[ \t\n]")
_PATTERN = re.compile(r"[*?\[]")
_LEADS = frozenset({"then", "else", "elif", "do", "!", "{"})
_DECLARES = frozenset({"declare", "typeset", "local", "readonly", "export"})
_ZSH = re.compile(r"\A\ufeff?#!.*\bzsh\b|^[ \t]*(?:`{3,}|~{3,})[ \t]*zsh\b", re.M)


@dataclass(frozen=True)
class Literal:
    name: str
    append: bool  # NAME+=(...)
    words: list  # (Word, pieces) of its elements, as commands.py splits them
    close: int  # the offset of its ")"


def launch_commands_in_file(path: str, text: str, hole: Optional[str] = None) -> list[LaunchCommand]:
    """shell_env.launch_commands_in_file_with_env, with the launches built in pieces of its shell texts
    (zsh, by suffix, shebang or a Markdown block of it: no unquoted expansion split, as zsh splits none)."""
    split = not (path.lower().endswith(".zsh") or _ZSH.search(text))
    return launch_commands_in_file_with_env(
        path, text, hole, read=lambda region, hole: launch_commands_with_pieces(region, hole, split=split))


def launch_commands_with_pieces(text: str, hole: Optional[str] = None, inherited: Optional[Mapping[str, str]] = None,
                                split: bool = True) -> list[LaunchCommand]:
    """shell_env.launch_commands_with_env, with the launches arrays and split variables build (see above);
    ``split``: an unquoted expansion is split at blanks (bash, sh), else it is not read (zsh)."""
    if not HINT.search(text):
        return launch_commands_with_env(text, hole, inherited)
    splitter = ScriptSplitter(text, hole)
    flat = nested_commands(splitter.run(), text, hole)
    read, tail, literals, pieces = _regroup(text, hole, splitter, flat)
    reader = EnvReader(inherited or {}, lambda word: {}, lambda words: _watched(words, literals))
    reader.read(read, tail)
    return _Pieces(text, literals, pieces, reader, split).launches()


def _watched(words: list, literals: dict) -> bool:
    """A command whose variables the reading needs: an array literal, or one that expands something."""
    return words[-1].start in literals or any(w.opaque and "$" in w.text for w in words)


def _regroup(text: str, hole: Optional[str], splitter: ScriptSplitter, flat: list) -> tuple[list, str, dict, dict]:
    """The commands as shell_env's reader takes them, (words, the operators before), each array literal one
    command ending in its target word made opaque (a value shell_env does not know); the operators after the
    last; the literals by the start of that word; the pieces of each assignment word and element."""
    read, literals, pieces = [], {}, {}
    inside, reopen = -1, None
    for cmd in flat:
        words, ops = [w for w, _ in cmd], splitter.before.get(id(cmd))
        if words[0].start < inside:
            continue  # a line of a literal read whole, or a script in it
        if ops is not None and reopen is not None:
            ops, reopen = "".join(splitter.operators(reopen, words[0].start)), None
        pieces.update((w.start, p) for w, p in cmd if "=" in w.text)
        literal = _literal(cmd, text, hole) if ops is not None else None
        if literal is not None:
            literals[words[-1].start] = literal
            pieces.update((w.start, p) for w, p in literal.words)
            words[-1] = replace(words[-1], opaque=True)
            inside = reopen = literal.close + 1
        read.append((words, ops))
    tail = "".join(splitter.operators(splitter.gap_from if reopen is None else reopen, len(text)))
    return read, tail, literals, pieces


def _literal(cmd: list, text: str, hole: Optional[str]) -> Optional[Literal]:
    """The array literal a command opens (``NAME=(``, ``NAME+=(``, after ``then``/``do``... and
    ``declare``/``local`` with options), read to its ``)``; None where it is not one or holds what is not
    read here (a redirection, an operator, no end)."""
    target = cmd[-1][0]
    m = _TARGET.fullmatch(target.text)
    if m is None or target.opaque or not target.exact or text[target.end:target.end + 1] != "(":
        return None
    k = 0
    while k < len(cmd) - 1 and cmd[k][0].text in _LEADS:
        k += 1
    if k < len(cmd) - 1 and (cmd[k][0].text not in _DECLARES or not all(
            w.text[:1] == "-" and "A" not in w.text for w, _ in cmd[k + 1:-1])):
        return None  # (declare -A: keys and values)
    splitter, i = Splitter(text, hole, 0, 0), target.end + 1
    while i < len(text):
        gap = GAP.match(text, i)
        if gap is None:
            i = splitter.word(i)
        elif gap.group() == ")":
            return Literal(m.group(1), bool(m.group(2)), splitter.cmd, gap.start())
        elif gap.lastgroup in ("redirect", "operator"):
            return None
        else:
            i = gap.end()
    return None


def _gap(word: Word) -> Word:
    """An unknown stretch of words, where ``word`` is written."""
    return Word(word.text, word.start, word.end, True, False, -1, False)


def _written(word: Word, step: int, certain: bool) -> Word:
    """``word`` as a statement of ``step`` wrote it."""
    return Word(word.text, word.start, word.end, word.opaque, word.exact, step, certain)


@dataclass
class _Frame:
    """The script, or a function body (any ``{ }`` group) read on its own: the reader's stack and parens
    at its top level, and its arrays (their words, or None: not known)."""

    stack: tuple
    parens: int
    arrays: dict = field(default_factory=dict)


class _Pieces:
    """The launches of a text read by a reader that watched its arrays (see the module docstring)."""

    def __init__(self, text: str, literals: dict, pieces: dict, reader: EnvReader, split: bool) -> None:
        self.text, self.literals, self.pieces, self.reader = text, literals, pieces, reader
        self.frames = [_Frame((), 0)]
        self.tainted: dict[str, int] = {}  # arrays a function wrote: unknown outside it from this command on
        self.lost = len(reader.records)  # from this command on nothing is known (a function sources or evals)
        self.steps = count(1)
        self.split = split and "IFS" not in text
        self.assigned: dict[str, Word] = {}  # the last assignment word of each variable
        self.made: dict[int, Optional[tuple]] = {}  # command -> (its words, expansions read, and its launch)
        self.literal_launches: list[tuple[int, LaunchCommand]] = []
        self.run_launchers: set[int] = set()  # where the launcher words of the launches made are written

    def launches(self) -> list[LaunchCommand]:
        reader = self.reader
        for index, (words, *_) in enumerate(reader.records):
            if index in reader.places:  # (not a command of a nested script: another shell)
                self.command(index, words, *reader.places[index])
        chosen = dict(reader.found)
        for index, made in self.made.items():
            chosen.pop(index, None)
            if made is not None:
                words, found = made
                end = next(k for k, w in enumerate(words) if w is found.launcher)
                chosen[index] = replace(found, env=command_env(words, end, reader.inherited(index)))
        for index, found in self.literal_launches:
            if found.launcher.start not in self.run_launchers:
                chosen.setdefault(index, found)
        return [chosen[index] for index in sorted(chosen)]

    def command(self, index: int, words: list, stack: tuple, parens: int, joined: str, followed: str,
                first: int, variables: Optional[dict]) -> None:
        frame = self.frame(stack, parens, index)
        at = (stack, parens)
        literal = self.literals.get(words[-1].start)
        if literal is not None:
            # runs here on every path; or in a subshell, a pipeline, the background: not here
            certain = joined == "" and followed == "" and at == (frame.stack, frame.parens)
            apart = parens > frame.parens or joined == "|" or followed in ("|", "&")
            self.assign(index, literal, words[-1], frame, "certain" if certain else "apart" if apart else "maybe",
                        at, variables)
            return
        k = command_index(words)
        if any(w.opaque and "$" in w.text for w in words) and not (k is not None and words[k].text == "eval"):
            expanded = self.expand(index, words, at, variables, 0)
            if any(a is not b for a, b in zip(expanded, words)) or len(expanded) != len(words):
                found = find_launch(expanded)
                self.made[index] = None if found is None else (expanded, found)
                if found is not None:
                    self.run_launchers.add(found.launcher.start)
        for effect in builtin_effects(words[first:]):
            if effect[0] == CLEAR:
                for each in self.frames:
                    each.arrays = dict.fromkeys(each.arrays)
                self.lost = index if len(self.frames) > 1 else self.lost
            elif effect[0] in ("var", "set", "unset", "forget"):
                frame.arrays[effect[1]] = None
                word = next((w for w in reversed(words) if w.text.startswith(effect[1] + "=")), None)
                if effect[2] is not None and word is not None:
                    self.assigned[effect[1]] = word
                else:
                    self.assigned.pop(effect[1], None)

    def frame(self, stack: tuple, parens: int, index: int) -> _Frame:
        """The innermost function body the command is in; those it has left end here."""
        braces = [stack[:k + 1] for k, keyword in enumerate(stack) if keyword == "{"]
        kept = 1
        while kept < len(self.frames) and kept <= len(braces) and self.frames[kept].stack == braces[kept - 1]:
            kept += 1
        for ended in self.frames[kept:]:
            for name in ended.arrays:
                self.tainted.setdefault(name, index)
        del self.frames[kept:]
        self.frames.extend(_Frame(prefix, parens) for prefix in braces[kept - 1:])
        return self.frames[-1]

    def assign(self, index: int, literal: Literal, target: Word, frame: _Frame, runs: str, at: tuple,
               variables: Optional[dict]) -> None:
        """An array literal that ``runs`` "certain" (here, on every path), "maybe" (here or not) or "apart" (in
        another process: what it adds is unknown here)."""
        self.assigned.pop(literal.name, None)
        own = [w for w, _ in literal.words]
        if any(not w.opaque and _INDEXED.match(w.text) for w in own):
            frame.arrays[literal.name] = None
            return
        words = self.expand(index, own, at, variables, next(self.steps))
        if runs != "certain":
            words = [_written(w, w.step, False) for w in words] if runs == "maybe" else [_gap(target)]
        if literal.append:
            base = frame.arrays.get(literal.name)
            frame.arrays[literal.name] = (base if base is not None else [_gap(target)]) + words
            return
        frame.arrays[literal.name] = words if runs == "certain" else None
        found = find_launch(words)
        if found is not None:
            end = Word("", literal.close, literal.close + 1, True, False, -1, False)
            self.literal_launches.append((index, replace(found, args=found.args + [end])))

    def expand(self, index: int, words: list, at: tuple, variables: Optional[dict], step: int) -> list:
        """``words`` with each expansion read here replaced by the words it makes; the others of ``step``."""
        out = []
        for word in words:
            made = self.expansion(index, word, at, variables) if word.opaque and "$" in word.text else None
            if made is None:
                out.append(_written(word, step, word.certain) if step else word)
            else:
                out.extend(made)
        return out

    def expansion(self, index: int, word: Word, at: tuple, variables: Optional[dict]) -> Optional[list]:
        """The words an array's or a variable's expansion makes; None where it is not one read here."""
        source = self.text[word.start:word.end]
        quoted = len(source) > 1 and source[0] == source[-1] == '"'
        use = _ARRAY_USE.fullmatch(source[1:-1] if quoted else source)
        if use is not None:
            value = None if quoted and use.group(2) == "*" else self.array(index, use.group(1), at)
            if value is None or not (quoted or self.split):
                return [_gap(word)]
            return value if quoted else [piece for element in value for piece in self.fields(element, 0)]
        use = _SCALAR_USE.fullmatch(source)
        if use is None or variables is None or not self.split:
            return None
        name = use.group(1) or use.group(2)
        value, assigned = variables.get(name), self.assigned.get(name)
        if value is None or assigned is None or assigned.text[len(name) + 1:] != value or not any(
                piece.startswith("-") for piece in value.split()) or self.unknown(index, name, at, self.frames[0]):
            return None
        step = next(self.steps)
        return [_written(piece, step, True) for piece in self.fields(assigned, len(name) + 1)]

    def array(self, index: int, name: str, at: tuple) -> Optional[list]:
        """The words of array ``name`` where command ``index`` at ``at`` expands it; None: not known."""
        for frame in reversed(self.frames):
            if name in frame.arrays:
                return None if self.unknown(index, name, at, frame) else frame.arrays[name]
        return None

    def unknown(self, index: int, name: str, at: tuple, frame: _Frame) -> bool:
        """Whether what ``frame`` knows of ``name`` may not be what the command sees: a function wrote it
        before (outside that function), or the command may run later (it is nested deeper than the frame's
        top level) and something writes it after."""
        if index >= self.lost or (frame is self.frames[0] and self.tainted.get(name, index + 1) <= index):
            return True
        later = self.reader.written.get(name, -1) > index or self.reader.cleared > index
        return later and at != (frame.stack, frame.parens)

    def fields(self, word: Word, begin: int) -> list:
        """The words an unquoted expansion of ``word``'s text from ``begin`` on makes, split at blanks, each
        where its characters are written; an unknown word where they are not known or make a pattern."""
        text = word.text
        if word.opaque:
            return [_gap(word)]
        if begin == 0 and not _BLANKS.search(text):
            return [replace(word, opaque=True, exact=False) if _PATTERN.search(text) else word]
        pieces = self.pieces.get(word.start)
        if pieces is None:
            return [_gap(word)]
        spans, out = word_spans(pieces, len(text)), []
        for m in _FIELD.finditer(text, begin):
            start, end = spans[m.start()][0], spans[m.end() - 1][1]
            out.append(Word(m.group(), start, end, bool(_PATTERN.search(m.group())), self.text[start:end] == m.group(),
                            word.step, word.certain))
        return out


__all__ = ["HINT", "launch_commands_in_file", "launch_commands_with_pieces"]
