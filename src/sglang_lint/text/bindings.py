"""The values a file's statements bind a name to, read from its text before anything is
parsed (the call-site screen's first look, screen/calls.py): where :func:`~sglang_lint.text.scan.may_assign`
finds the name bound, which of those are statements ``name = value`` and what they assign;
whether a method is called on it; whether a line continues an open bracket, and whether a
value is one the engine never evaluates."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from sglang_lint.text.pynames import NAME_BYTE
from sglang_lint.text.scan import BracketMap, assignments, scan_to_end, string_end, whole_word

# What may separate two tokens: white space, a backslash that continues the line, and inside
# brackets line breaks and comments (a parameter's default may be written ``mode  # why\n= "x"``).
_BETWEEN = rb"(?:[ \t\f\r\n\\]|#[^\r\n]*)*"
BINDING = re.compile(
    _BETWEEN + rb"(?:(?P<walrus>:=)|(?::[^=,()\n]*)?(?P<equals>=)(?!=)" + _BETWEEN
    + rb"(?P<literal>[-\"'0-9.]|[rRbBuUfF]{1,2}[\"']|None\b|True\b|False\b)?)"
)


def assigned_values(data: bytes, brackets: BracketMap, name: bytes):
    """The value of each statement ``name = value`` or ``name: T = value`` of the file
    (the bindings checks/fails_when/screen_values.py ``AstValues._name`` reads), found where
    :func:`~sglang_lint.text.scan.may_assign` finds ``name`` bound; None for any other
    binding it may be (an unpacking, ``:=``, a value that does not parse alone). What only
    looks like one binds no value: ``name`` in a comment or a string (but ``:=`` in an
    f-string), a keyword argument or a parameter's default (``f(name=1)``: a parameter's
    value is unknown to the engine), ``name.x = ...``, ``name[i] = ...``, ``a[name] = ...``,
    ``f(name, k=1)``."""
    for start, equals in assignments(data, name):
        code = brackets.code_at(start)
        match = BINDING.match(data, start + len(name))
        walrus = match is not None and match.group("walrus")
        if code is False or code is None and not walrus:
            continue  # in a comment or a string; in an f-string only ``:=`` binds
        if code is None or walrus:
            yield None
            continue
        depth = brackets.depth_at(start)
        if depth > 0 and match is not None:
            continue  # a keyword argument or a parameter's default
        following = data[start + len(name):equals].lstrip()[:1]
        if match is None:
            if brackets.depth_at(equals) > 0 or following in (b".", b"[") or brackets.in_call_or_subscript(start):
                continue  # a keyword's ``=`` (``f(name, k=1)``), ``name.x = ...``, ``a[name] = ...``
            if following != b":":
                yield None  # an unpacking (or what the text cannot tell)
                continue
            if depth > 0:
                continue  # ``def f(name: Dict[str, int] = ...)``: a parameter's default
            value_start = equals + 1  # ``name: Dict[str, int] = ...``
        else:
            value_start = match.end("equals")
        yield _value_assigned(data, start, value_start, name)


_METHOD_CALL = re.compile(rb"[ \t]*\.[ \t]*[A-Za-z_\x80-\xff]" + NAME_BYTE + rb"*[ \t]*\(")


def method_called_on(data: bytes, brackets: BracketMap, name: bytes) -> bool:
    """Is a method called on ``name`` in the file's code (``name.append(...)``: not in a
    comment or a string, not ``x.name.m(...)``)? The engine counts each such call as changing
    the object in place (analysis/bindings.py ``mutated_names``): this reads a subset of those."""
    index = data.find(name)
    while index >= 0:
        end = index + len(name)
        if whole_word(data, index, end) and _METHOD_CALL.match(data, end):
            before = index - 1
            while before >= 0 and data[before] in b" \t\r\n\\":
                before -= 1
            if (before < 0 or data[before] != ord(".")) and brackets.code_at(index) is True:
                return True
        index = data.find(name, end)
    return False


def _value_assigned(data: bytes, start: int, value_start: int, name: bytes) -> ast.expr | None:
    """The value a statement at ``start`` (``name = ...``, ``a = name = ...``, ``x = 1; name =
    ...``, ``if c: name = ...``, ``name: T = ...``) or after ``value_start`` binds ``name`` to;
    None where it does not parse alone, or ``name`` is one target of an unpacking."""
    line_start = data.rfind(b"\n", 0, start) + 1
    before = data[line_start:start].strip(b" \t")
    whole = not before
    if not whole and not before.endswith((b"=", b";", b":")):
        return None  # ``a, name = ...``, ``(name, b) = ...``: an unpacking, whose value is not name's
    text = statement_value(data, line_start if whole else value_start)
    try:
        if text is None:
            return None
        if not whole:
            return ast.parse(b"(" + text + b"\n)", mode="eval").body
        statement = ast.parse(text.strip()).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(statement) != 1 or not isinstance(statement[0], (ast.Assign, ast.AnnAssign)):
        return None
    targets = statement[0].targets if isinstance(statement[0], ast.Assign) else [statement[0].target]
    named = any(isinstance(target, ast.Name) and target.id == name.decode() for target in targets)
    return statement[0].value if named and statement[0].value is not None else None


def statement_value(data: bytes, start: int) -> bytes | None:
    """The text from ``start`` to the end of its logical line (brackets and strings
    followed across lines), or None past textscan's limit of a call's length."""
    end = scan_to_end(data, start, until_newline=True)
    return data[start:end] if end is not None else None


def inside_brackets(data: bytes, line_start: int) -> bool:
    """Does the line starting at ``line_start`` continue an open bracket (the code line
    before it ends with ``(``, ``[``, ``{``, ``,`` or a backslash)? Then ``name=value`` on
    it is a keyword argument, not a statement."""
    end = line_start - 1
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end]
        code = _code_of_line(line).rstrip()
        if code.strip():
            return code.endswith((b"(", b"[", b"{", b",", b"\\"))
        end = start - 1
    return False


def never_evaluated(data: bytes, start: int, attributes: bool, displays: bool) -> bool:
    """Is the value written from ``start`` (to the end of its statement) one the engine
    never evaluates: a call, a subscript, ``await``...; an attribute unless ``attributes``
    (enum members); a list, a dict or an operation unless ``displays`` (argv lists)?
    False when unsure."""
    text = statement_value(data, start)
    if text is None:
        return False
    if _ends_with_comma(text):
        return True  # a tuple (or a keyword argument): never a value the engine knows
    try:
        value = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return node_never_evaluated(value, attributes, displays)


def node_never_evaluated(value: ast.expr, attributes: bool, displays: bool) -> bool:
    """:func:`never_evaluated` of a value already parsed."""
    if isinstance(value, _NEVER_EVALUATED):
        return True
    if isinstance(value, ast.Attribute):
        return not attributes
    if isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.BinOp, ast.BoolOp)):
        return not displays
    return False


def _ends_with_comma(text: bytes) -> bool:
    """Is the last token of ``text`` a comma? Comments are not code: a ``# note`` after an
    element of a list written over several lines must not make it look like a tuple (and a
    ``#`` inside a string is no comment), so this reads tokens, not bytes."""
    last = None
    try:
        for token in tokenize.tokenize(io.BytesIO(text.strip()).readline):
            if token.type not in _NOT_CODE:
                last = token
    except (tokenize.TokenError, SyntaxError, ValueError):
        return False
    return last is not None and last.type == tokenize.OP and last.string == ","


_NOT_CODE = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER,
     tokenize.INDENT, tokenize.DEDENT}
)


def _code_of_line(line: bytes) -> bytes:
    """``line`` without its comment; a ``#`` inside a (one-line) string is not one."""
    index = 0
    while index < len(line):
        char = line[index]
        if char in b"'\"":
            end = string_end(line, index, len(line))
            if end is None:
                return line  # a string that goes on past the line: no comment to find
            index = end
            continue
        if char == ord("#"):
            return line[:index]
        index += 1
    return line


_NEVER_EVALUATED = (
    ast.Call, ast.Subscript, ast.Await, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.Compare, ast.JoinedStr,
)
