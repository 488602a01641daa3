"""The types every layer shares, and nothing else: a leaf (no import of ours, no LibCST).

* What the engine reports: :class:`Diagnostic`, its fix as text (:class:`Edit`), a file that
  cannot be linted (:class:`SourceError`), and one file's outcome (:class:`FileResult`), with
  the one plain-data form the result cache and the language server both use.
* What a check answers: a :class:`Finding`, with a :class:`Fix` on a syntax node (turned into
  an :class:`Edit` once positions exist), and a word of text no syntax tree holds
  (:class:`Span`). What the walk hands to the checks, a ``Site``, is analysis/site.py's.
"""

from __future__ import annotations

import ast

from dataclasses import dataclass, field
from typing import Any

# What a crash of ours is reported as (a rule's, or the whole file's in the flake8 plugin).
CRASH_CODE = "SGL900"

# How sure a finding is to stop sglang: "error", it raises (the launch or the call fails);
# "warning", sglang goes on and says so (a deprecated flag it still accepts). flake8 has one
# level; the command's JSON, SARIF and GitHub formats and the language server show both.
SEVERITIES = ("error", "warning")


def keepable(codes) -> bool:
    """May a result with findings of these ``codes`` be kept by a cache? Not with a crash of
    ours (a rule's may come from outside the file and the rules: a recursion limit, memory)."""
    return CRASH_CODE not in codes


@dataclass(frozen=True)
class Edit:
    """A finding's fix as text: replace ``old`` (from ``line``:``col`` to ``end_line``:
    ``end_col``, 1-based lines, 0-based columns in characters) by ``new``."""

    line: int
    col: int
    end_line: int
    end_col: int
    old: str
    new: str
    safe: bool

    def describe(self) -> str:
        """``'BFLOAT16' -> 'bfloat16'``: the values as the messages quote them, whatever the
        source wrote (a Python string literal, a shell word, a keyword's name)."""
        return f"{_quoted(self.old)} -> {_quoted(self.new)}"

    def to_data(self) -> list:
        """Plain data (JSON and marshal can hold it); :meth:`from_data` reads it back."""
        return [self.line, self.col, self.end_line, self.end_col, self.old, self.new, self.safe]

    @classmethod
    def from_data(cls, data) -> "Edit":
        line, col, end_line, end_col, old, new, safe = data
        return cls(line, col, end_line, end_col, old, new, bool(safe))


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. ``line`` is 1-based, ``col`` 0-based (what flake8 wants from plugins)."""

    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Edit | None = field(default=None, compare=False)
    # first and last line of the call the finding is in (where a ``# noqa`` also counts)
    span: tuple = field(default=(), compare=False)
    severity: str = field(default="error", compare=False)  # one of SEVERITIES

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col + 1}: {self.code} {self.message}"

    def to_data(self) -> list:
        fix = None if self.fix is None else self.fix.to_data()
        return [self.line, self.col, self.code, self.message, self.end_line, self.end_col, fix, list(self.span),
                self.severity]

    @classmethod
    def from_data(cls, data) -> "Diagnostic":
        line, col, code, message, end_line, end_col, fix, span, severity = data
        return cls(line, col, code, message, end_line, end_col, None if fix is None else Edit.from_data(fix),
                   tuple(span), severity)


class SourceError(Exception):
    """The file cannot be linted (undecodable, or not Python LibCST can parse)."""

    def __init__(self, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass(frozen=True)
class FileResult:
    """What linting one file gave: ``ok`` (its diagnostics, and the stage it reached),
    ``source-error`` (it cannot be decoded or parsed; where), ``crash`` (a bug of ours) or
    ``unreadable`` (the file could not be read)."""

    status: str  # "ok", "source-error", "crash", "unreadable"
    diagnostics: tuple = ()
    stage: str = ""
    message: str = ""
    line: int = 0
    col: int = 0

    OK = "ok"
    SOURCE_ERROR = "source-error"
    CRASH = "crash"
    UNREADABLE = "unreadable"

    @classmethod
    def ok(cls, diagnostics, stage: str) -> "FileResult":
        return cls(cls.OK, tuple(diagnostics), stage)

    @classmethod
    def source_error(cls, error: SourceError) -> "FileResult":
        return cls(cls.SOURCE_ERROR, message=error.message, line=error.line, col=error.col)

    @property
    def failed(self) -> bool:
        """A crash or an unreadable file: an error of the run, with nothing to report."""
        return self.status in (self.CRASH, self.UNREADABLE)

    @property
    def cacheable(self) -> bool:
        """Everything but our own crash (of the run, or of one rule: :func:`keepable`) depends
        only on the file's bytes and the rules."""
        return self.status in (self.OK, self.SOURCE_ERROR) and keepable({d.code for d in self.diagnostics})

    def to_data(self) -> tuple:
        return (self.status, tuple(d.to_data() for d in self.diagnostics), self.stage, self.message,
                self.line, self.col)

    @classmethod
    def from_data(cls, data) -> "FileResult":
        status, diagnostics, stage, message, line, col = data
        return cls(status, tuple(Diagnostic.from_data(d) for d in diagnostics), stage, message, line, col)


@dataclass(frozen=True)
class Span:
    """A word in a file's text that no syntax tree holds (a shell command in a string, a shell
    script, a Markdown code block): characters ``start`` to ``end`` of the text (of the source of
    ``within``, a string literal, in a Python file). ``exact``:
    the source there is the word itself (no quotes or escapes), so a fix may rewrite it."""

    start: int
    end: int
    text: str
    exact: bool
    within: Any = None  # in a Python file: the string literal node the offsets count in (its source)


@dataclass(frozen=True)
class Fix:
    """Replace the source text of ``node`` by ``text``. ``safe`` fixes are certain (the bad
    value differs from one allowed value only by case, ``-``/``_``/space, or is a unique
    prefix of it); unsafe ones only the unique nearest spelling."""

    node: Any
    old: str  # the node's source text now (checked before the edit is made)
    text: str
    safe: bool


@dataclass(frozen=True)
class Finding:
    """What a check reports: the node to point at, the message, and a fix if one is certain
    enough to offer."""

    node: Any
    message: str
    fix: Fix | None = None
    severity: str = ""  # "" for the rule's own (Rule.severity); else one of SEVERITIES


def _quoted(text: str) -> str:
    """A string literal's value, or the text itself, as repr() quotes it."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" or text[:1] in "rRbBuU" and text[1:2] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        if isinstance(value, str):
            return repr(value)
    return repr(text)
