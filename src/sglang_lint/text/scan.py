"""Reading Python source as bytes, before anything is parsed: where a call's parentheses close
and where a logical line ends (strings, comments and nested brackets skipped), and whether a
name is a whole identifier. The call-site screen (screen/calls.py) and the prefilter read a file
this way."""

from __future__ import annotations

import bisect
import re

from sglang_lint.text.pynames import NAME_BYTE, NAME_END, WORD_BYTES as _WORD_BYTES, name_starts
from sglang_lint.text.words import IDENTIFIER_BYTES

_OPENERS = b"([{"
_CLOSERS = b")]}"
_INTERESTING = re.compile(rb"[()\[\]{}'\"#]")
_STATEMENT_END = re.compile(rb"[()\[\]{}'\"#\n]")
_MAX_CALL = 64_000  # a call longer than this is not screened (it passes)


def call_text(data: bytes, open_paren: int) -> bytes | None:
    """The bytes from ``open_paren`` (a ``(``) to its matching ``)``, strings and comments
    skipped; None when it cannot be found within :data:`_MAX_CALL` bytes."""
    end = scan_to_end(data, open_paren, until_newline=False)
    return data[open_paren:end] if end is not None else None


def scan_to_end(data: bytes, start: int, until_newline: bool) -> int | None:
    """Where the text from ``start`` ends: just past the bracket that closes the one at
    ``start``, or (``until_newline``) at the newline that ends its logical line; strings,
    comments and nested brackets are skipped over. None past :data:`_MAX_CALL` bytes."""
    depth = 0
    index = start
    limit = min(len(data), start + _MAX_CALL)
    at_end = len(data) if until_newline and limit == len(data) else None  # a last line without newline
    pattern = _STATEMENT_END if until_newline else _INTERESTING
    while index < limit:
        match = pattern.search(data, index, limit)
        if match is None:
            return at_end
        index = match.start()
        char = data[index]
        if char == ord("\n"):
            if depth == 0 and data[index - 1] != ord("\\"):
                return index
        elif char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
            if depth == 0 and not until_newline:
                return index + 1
        elif char == ord("#"):
            newline = data.find(b"\n", index, limit)
            if newline < 0:
                return at_end
            index = newline
            continue
        else:  # a string: skip to its end
            end = string_end(data, index, limit)
            if end is None:
                return None
            index = end
            continue
        index += 1
    return None


class BracketMap:
    """Where the brackets of a text open and close, and where its strings and comments are
    (one pass, on first need): how deep in brackets a byte is, and whether it is code."""

    def __init__(self, data: bytes):
        self.data = data
        self.changes: list[int] = [0]  # offsets where the depth changes (after the bracket)...
        self.depths: list[int] = [0]  # ...and the depth from there
        self.spans: list[int] = []  # start, end, start, end...: strings and comments
        self.f_strings: set[int] = set()  # the starts of f-strings (their braces hold code)
        depth, index = 0, 0
        while True:
            match = _INTERESTING.search(data, index)
            if match is None:
                break
            index = match.start()
            char = data[index]
            if char in _OPENERS or char in _CLOSERS:
                depth += 1 if char in _OPENERS else -1
                self.changes.append(index + 1)
                self.depths.append(depth)
                index += 1
                continue
            if char == ord("#"):
                end = data.find(b"\n", index)
                end = len(data) if end < 0 else end
            else:
                end = string_end(data, index, len(data))
                if end is None:
                    end = len(data)
                prefix = index
                while prefix > 0 and data[prefix - 1] in b"rRbBuUfF":
                    prefix -= 1
                if b"f" in data[prefix:index].lower():
                    self.f_strings.add(index)
            self.spans += [index, end]
            index = end

    def depth_at(self, index: int) -> int:
        return self.depths[bisect.bisect_right(self.changes, index) - 1]

    def in_call_or_subscript(self, index: int) -> bool:
        """Is the innermost bracket around ``index`` a call's or a subscript's (its opener
        follows a name or a closing bracket)? (Not a display: an unpacking's target.)"""
        at = bisect.bisect_right(self.changes, index) - 1
        depth = self.depths[at]
        while at > 0 and not (self.depths[at] == depth and self.depths[at - 1] == depth - 1):
            at -= 1
        if at == 0 or depth <= 0:
            return False
        data = self.data
        before = self.changes[at] - 2  # the byte before the opener
        while before >= 0 and data[before] in b" \t":
            before -= 1
        return before >= 0 and (IDENTIFIER_BYTES[data[before]] != 32 or data[before] in b")]")

    def code_at(self, index: int) -> bool | None:
        """True for code; False inside a comment or a string; None inside an f-string."""
        at = bisect.bisect_right(self.spans, index)
        if at % 2 == 0:
            return True
        start = self.spans[at - 1]
        return None if start in self.f_strings else False


def whole_word(data: bytes, index: int, end: int) -> bool:
    """Is ``data[index:end]`` a whole identifier (no identifier byte just before or after)?"""
    return (index == 0 or IDENTIFIER_BYTES[data[index - 1]] == 32) and (
        end == len(data) or IDENTIFIER_BYTES[data[end]] == 32
    )


def string_end(data: bytes, index: int, limit: int) -> int | None:
    """Where the string literal whose quote is at ``index`` ends (triple-quoted or not,
    escapes honoured); None when it does not end before ``limit``."""
    triple = data[index : index + 3]
    quote = triple if triple in (b"\'\'\'", b'"""') else data[index : index + 1]
    index += len(quote)
    while True:
        end = data.find(quote, index, limit)
        if end < 0:
            return None
        backslashes = 0
        while data[end - 1 - backslashes] == ord("\\"):
            backslashes += 1
        index = end + len(quote)
        if backslashes % 2 == 0:
            return index


# ``def f``, ``class C``, ``import m as f`` (and ``with ... as f``: more names only ever cost a parse)
_DEFINED = re.compile(rb"\b(?:def|class|as)[ \t]+(" + NAME_BYTE + rb"+)")
_NAME_LIST = re.compile(rb"\b(?:import|global|nonlocal)\b[ \t]*")
_PARENTHESIZED = re.compile(rb"\((?:[^)#]|#[^\n]*)*\)?")  # a comment may hold a ")"
_CONTINUED_LINE = re.compile(rb"(?:[^\n]*\\\r?\n)*[^\n]*")
_WORD = re.compile(NAME_BYTE + rb"+")


def qualifying_names(data: bytes) -> frozenset[bytes]:
    """Every name an import, a ``def`` or ``class`` statement, a ``global`` or a ``nonlocal``
    may bind in this text (a superset: the words of those statements, in strings too). Only
    through such a name does a dotted name ``a.b`` qualify (pynames.qualify_dotted: an import
    or a definition; a ``global`` is unsure), so no other name can head an enum member or a
    dtype the engine knows."""
    names = set(_DEFINED.findall(data))
    for match in _NAME_LIST.finditer(data):
        listed = _PARENTHESIZED.match(data, match.end()) or _CONTINUED_LINE.match(data, match.end())
        names.update(_WORD.findall(listed.group()))
    return frozenset(names)


def called_words(data: bytes) -> dict[bytes, int]:
    """How many times each name is written just before a ``(``, white space, line breaks and
    backslashes between them allowed (``f(x)``, ``f (x)``, ``self.f(x)``, ``f`` and a
    backslash, then ``(x)`` on the next line): a superset of the name's calls, its ``def``
    line among them. (One split at the brackets, then each piece's last word: whatever the
    number of names asked about.)"""
    counts: dict[bytes, int] = {}
    for piece in data.split(b"(")[:-1]:
        tail = piece.rstrip(b" \t\r\n\f\\")
        if not tail or IDENTIFIER_BYTES[tail[-1]] == 32:
            continue
        words = tail[-_LONGEST_WORD:].translate(IDENTIFIER_BYTES).split()
        word = words[-1] if len(words) > 1 or len(tail) <= _LONGEST_WORD else \
            tail.translate(IDENTIFIER_BYTES).split()[-1]  # (a word longer than the window)
        counts[word] = counts.get(word, 0) + 1
    return counts


_LONGEST_WORD = 128


def may_assign(data: bytes, name: bytes) -> bool:
    """Could a statement of this text bind ``name`` to a value: ``name = ...``, ``name: T =
    ...``, ``name := ...``, or ``name`` among the targets of an unpacking (``a, (b,\\n c) =
    ...``)? A superset read from the text (a keyword argument ``f(name=1)`` matches too); an
    augmented assignment, a loop or ``with`` target, an import is no value."""
    return next(assignments(data, name), None) is not None


def assignments(data: bytes, name: bytes):
    """Where :func:`may_assign` finds ``name`` bound: the offsets where each match starts and
    where its ``=`` is."""
    # (the name found as a literal, then one pattern compiled once matched after it: a pattern
    # per name cost a compile for each of the thousands of names a run asks about)
    for start, end in name_starts(data, name, _NAME_OR_DOT):
        match = _ASSIGNED_AFTER_NAME.match(data, end)
        if match is not None:
            yield start, match.end() - 1


_NAME_OR_DOT = _WORD_BYTES | {ord(".")}


# The two questions below are answered as these patterns would answer them, but searched for
# from the name (a literal the regex engine finds fast), as :func:`assignments` does: a pattern
# that starts with ``\b`` or ``^`` has no literal prefix and was tried at every byte.

def assigned_by_statement(data: bytes, name: bytes) -> bool:
    r"""``^[ \t]*name[ \t]*(\+|\|)?=[^=]`` (multi-line): a statement of its own binds or grows
    ``name`` (``name = ...``, ``name += ...``, ``name |= ...``)."""
    for start, end in name_starts(data, name, frozenset()):
        if _GROWN_AFTER_NAME.match(data, end) is not None:
            line_start = data.rfind(b"\n", 0, start) + 1
            if not data[line_start:start].strip(b" \t"):
                return True
    return False


def named_by_as(data: bytes, name: bytes) -> bool:
    r"""``\bas[ \t]+name\b``: ``import X as name``, ``with ... as name``, ``except ... as name``."""
    for start, end in name_starts(data, name, frozenset()):
        if _NAME_END_PATTERN.match(data, end) is not None:
            spaces = start
            while spaces > 0 and data[spaces - 1] in b" \t":
                spaces -= 1
            if spaces < start and spaces >= 2 and data[spaces - 2 : spaces] == b"as" and (
                    spaces == 2 or data[spaces - 3] not in _WORD_BYTES):
                return True
    return False


# the target text after a name (words, brackets, commas, an annotation, a line break after an
# opening bracket, a comma or a backslash) up to one ``=``
_ASSIGNED_AFTER_NAME = re.compile(
    NAME_END + rb"(?:[ \t\w\x80-\xff,()\[\]*:.'\"|]|[,(\[\\][ \t]*(?:#[^\n]*)?\r?\n)*?=(?!=)"
)
_GROWN_AFTER_NAME = re.compile(rb"[ \t]*[+|]?=[^=]")
_NAME_END_PATTERN = re.compile(NAME_END)
