"""Facts about Python source that every stage reads the same way: a file's module name, what a
relative import names, and the value of a literal written in :mod:`ast` form.

A leaf: the engine (:mod:`sglang_lint.analysis.bindings`), the call-site screen and the deriver all use
these, so that the three cannot read ``from ..x import y`` or ``-1`` differently.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import PurePath

MAX_HOPS = 8  # how many name-to-name hops a value may take before the engine counts it unknown
LINE_END = re.compile(r"\r\n|\r|\n")  # the line ends Python (and LibCST) count
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # a line with its end, as LINE_END splits them

# A byte of an identifier as bytes patterns must spell it: ``\w`` of a bytes pattern is ASCII
# only, and a name may hold any letter (``modé``: its UTF-8 bytes are all above 0x7f); and the
# edges of a name (``\b`` would see none after ``é``).
NAME_BYTE = rb"[\w\x80-\xff]"
NAME_END = rb"(?![\w\x80-\xff])"
WORD_BYTES = frozenset(b"_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")  # ``\w`` of a bytes pattern
_NAME_BYTES = WORD_BYTES | frozenset(range(128, 256))


def name_occurrences(data: bytes, name: bytes, after: bytes = NAME_END):
    """For each place ``name`` starts a name (no byte of one just before it) and the pattern
    ``after`` matches right after it, that match (its ``end()`` is where the whole ends).
    The name is found as a literal and ``after`` compiled once: a pattern per name cost a
    compile for each of the thousands of names a run asks about."""
    tail = _compiled(after)
    for _, end in name_starts(data, name):
        match = tail.match(data, end)
        if match is not None:
            yield match


def name_starts(data: bytes, name: bytes, not_before: frozenset = _NAME_BYTES):
    """``(start, end)`` of each ``name`` in ``data``, found as a literal, with no byte of
    ``not_before`` just before it (where it ends is the caller's pattern to check)."""
    start = data.find(name)
    while start >= 0:
        if start == 0 or data[start - 1] not in not_before:
            yield start, start + len(name)
        start = data.find(name, start + 1)  # (``self.x, x = ...``: the next one may be inside)


@functools.lru_cache(maxsize=64)
def _compiled(pattern: bytes) -> re.Pattern:
    return re.compile(pattern)


def name_matches(data: bytes, pattern: re.Pattern):
    """Each match of ``pattern``, which starts with a name (or one of several), where that
    name starts a name. Searched for from the name, a literal the regex engine finds fast: a
    pattern that starts with ``\\b`` or a lookbehind is tried at every byte."""
    match = pattern.search(data)
    while match is not None:
        start = match.start()
        if start == 0 or data[start - 1] not in _NAME_BYTES:
            yield match
        match = pattern.search(data, start + 1)


def lines_of(text: str) -> list[str]:
    """``text``'s lines, each with its line end (the last one may have none)."""
    return _LINE.findall(text)


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts (an offset), line 1 first."""
    return [0] + [match.end() for match in LINE_END.finditer(text)]


class _NotLiteral:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_LITERAL"

    def __reduce__(self) -> str:  # (kept rules, ruletable.load_rules: unpickled as the one instance)
        return "NOT_LITERAL"


NOT_LITERAL = _NotLiteral()  # what a literal reader returns for anything that is not one
SCALARS = (str, int, float, bool)  # the literal types the checks compare


@dataclass(frozen=True)
class Ref:
    """A dotted name that resolved through imports, e.g. an enum member
    ``sglang.srt.model_executor.forward_batch_info.ForwardMode.EXTEND``."""

    qualified: str

    def __repr__(self) -> str:
        return ".".join(self.qualified.split(".")[-2:])


def module_name_for(path: str | None) -> tuple[str | None, bool]:
    """``.../sglang/srt/models/x.py`` -> (``sglang.srt.models.x``, is_package=False).

    Only files inside a folder named ``sglang`` get a module name: that is all relative
    imports need (user code importing sglang uses absolute imports)."""
    if not path:
        return None, False
    parts = PurePath(path).parts
    if not parts or not parts[-1].endswith(".py"):
        return None, False
    dirs = parts[:-1]
    if "sglang" not in dirs:
        return None, False
    start = len(dirs) - 1 - dirs[::-1].index("sglang")
    stem = parts[-1][:-3]
    is_package = stem == "__init__"
    names = list(dirs[start:]) + ([] if is_package else [stem])
    if not all(n.isidentifier() for n in names):
        return None, False
    return ".".join(names), is_package


def resolve_relative(module_name: str | None, is_package: bool, level: int, module: str | None) -> str | None:
    """The absolute module ``from <level dots><module> import ...`` names, written in the
    module ``module_name`` (a package's ``__init__`` when ``is_package``); None when the
    dots climb above the top package or the importing module is unknown."""
    if not module_name:
        return None
    package = module_name.split(".")
    if not is_package:
        package = package[:-1]
    if level - 1 > len(package) - 1:
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def ast_literal(node: ast.AST) -> object:
    """The value of a scalar literal (a string, a number, a negative number, True, False,
    None) written as an :mod:`ast` expression, or :data:`NOT_LITERAL`."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if value is None or isinstance(value, SCALARS) else NOT_LITERAL
    if (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    return NOT_LITERAL


def ast_dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, written as an :mod:`ast` expression; else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


PARTIAL = "partial"  # ``partial(f, ...)`` (functools.partial, by its last name) binds a call of f
IGNORED = object()  # a binding qualify_dotted passes over
UNSURE = object()  # a qualified name that cannot be told (the ast side: a ``global`` binding)


def qualify_dotted(dotted: str | None, bindings, qualified_of) -> object:
    """The one qualified name the dotted name ``a.b.c`` refers to, given every binding of its
    head (``bindings``; None: unbound) and ``qualified_of(binding)``: the binding's qualified
    name (an import, a top-level definition), None for any other binding, :data:`IGNORED`
    (``except ImportError: f = None``: where the name is not the import, using it fails
    anyway) or :data:`UNSURE`. None unless every binding names the same thing. The engine
    (analysis/resolve.py) and the screen (screen/ast_scopes.py) qualify through this one rule. An UNSURE
    binding (the screen's ``global x``, bound elsewhere too) cannot change a None that the
    others give for certain (``global args; args = parse()``: the engine sees that assignment)."""
    if dotted is None or bindings is None:
        return None
    names = set()
    unsure = False
    for binding in bindings:
        qualified = qualified_of(binding)
        if qualified is UNSURE:
            unsure = True
        elif qualified is not IGNORED:
            names.add(qualified)
    if len(names) > 1 or None in names:
        return None
    if unsure:
        return UNSURE
    if not names:
        return None
    (qualified,) = names
    rest = dotted.partition(".")[2]
    return f"{qualified}.{rest}" if rest else qualified


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()  # an argument that may be passed, but where cannot be told (``*args``, ``**kw``)


def find_argument(args, name: str | None, position: int | None, expand=None):
    """Which argument a call passes for the parameter ``name`` (by keyword, or inside a
    ``**`` mapping ``expand`` can read) or at ``position`` (0-based, without ``self``).

    ``args``: the call's arguments in order, as (keyword or None, star: "", "*" or "**",
    value) triples: LibCST's and :mod:`ast`'s calls both read this way, so the engine and
    the call-site screen find the same argument. ``expand(value)``: the (key, item) pairs of
    a ``**value`` mapping, or None when they are unknown. Returns (value, mapping) with the
    ``**`` value it came through (or None); None when the argument is absent; UNKNOWN when
    it may be there but cannot be found (after ``*args``, or in a mapping ``expand`` cannot
    read)."""
    unknown = False
    if name is not None:
        for keyword, star, value in args:
            if keyword == name:
                return value, None
            if star == "**":
                pairs = expand(value) if expand is not None else None
                if pairs is None:
                    unknown = True
                    continue
                for key, item in pairs:
                    if key == name:
                        return item, value
    if position is not None:
        index = 0
        for keyword, star, value in args:
            if keyword is not None or star == "**":
                break
            if star == "*":
                return UNKNOWN
            if index == position:
                return value, None
            index += 1
    return UNKNOWN if unknown else None


def literal_in(value: object, values) -> bool:
    """Is ``value`` one of ``values`` as a literal is, type and all (1 == True in Python; a
    rule that allows True must not allow 1)?"""
    return any(type(value) is type(v) and value == v for v in values)


def condition_passes(holds: str, values: tuple, value: object) -> bool:
    """Does a literal pass a condition (``in`` / ``not in`` values, ``truthy``, ``falsy``)? The
    one reading, for the engine's conditions, the call-site screen's and the deriver's."""
    if holds in ("truthy", "falsy"):
        return bool(value) == (holds == "truthy")
    return literal_in(value, values) == (holds == "in")
