"""The screen agrees with the engine however the code is laid out: the agreement programs of
test_screen_agreement.py, written again with white space Python ignores (a space before a
call's bracket, around an attribute's dot, a line break inside brackets, a backslash before
a bracket). The screens read the text before any parse; a call they recognize only as
black writes it (``f(x)``) once hid findings on ``f (x)`` (screen.FileFacts.called_parameters).

Each rewritten program is checked to be the same program (the same ast, positions aside)
before it is linted.
"""

from __future__ import annotations

import ast
import io
import tokenize

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from test_argv_screen_agreement import FLAGS as ARGV_FLAGS, FORMS as ARGV_FORMS, HEADER as ARGV_HEADER
from test_argv_screen_agreement import VALUES as ARGV_VALUES, _forms as argv_forms
from test_screen_agreement import (
    CHECKED, CURATED, FLAGS, FORM_NAMES, LAUNCH, PROPERTY, _agree, _argv_forms, _forms,
)

LAYOUTS = ("space-before-bracket", "space-around-dot", "break-in-brackets", "backslash-before-bracket",
           "backslash-between-tokens", "comments-in-brackets", "non-ascii-names", "tabs", "semicolons",
           "crlf-line-ends", "cr-line-ends", "all")
# Statements that begin a block (or a decorator): never joined to another by a semicolon.
_COMPOUND = frozenset({"if", "elif", "else", "for", "while", "try", "except", "finally", "with", "def", "class",
                       "async", "match", "case", "@"})
# The programs' own names, which "non-ascii-names" spells with a last letter above ASCII (bytes
# patterns read ``\w`` and ``\b`` as ASCII: ``modé = "pre"`` was once no binding to the text stage)
OWN_NAMES = frozenset({"VALUE", "OTHER", "BASE", "OPTIONS", "options", "Runner", "Holder", "Mine", "Base", "Other",
                       "run", "go", "reset", "later", "value", "command", "args", "extra", "base", "other", "flag"})
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # (Python 3.12: an f-string's parts are tokens)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


def respaced(source: str, layout: str) -> str:
    """``source`` with white space added between tokens where Python allows it, as
    ``layout`` says (tabs for spaces; simple statements of a block joined by semicolons; line
    ends of Windows or old Macs); never inside a string (nor an f-string's fields)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    insertions: list[tuple[int, str]] = []
    replaced: list[tuple[int, int, str]] = []  # (start, end, new text)
    depth = in_fstring = 0
    previous = line_start = None
    space = "\t" if layout == "tabs" else " "
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if layout == "semicolons" and token.type == tokenize.NEWLINE and _joins(line_start, previous, following):
            replaced.append((starts[token.start[0] - 1] + token.start[1],
                             starts[following.start[0] - 1] + following.start[1], "; "))
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            line_start = None
        elif line_start is None and token.type not in (tokenize.NL, tokenize.COMMENT):
            line_start = token
        if token.type == _FSTRING_START:
            in_fstring += 1
        elif token.type == _FSTRING_END:
            in_fstring -= 1
        if in_fstring or token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        offset = starts[token.start[0] - 1] + token.start[1]
        after = starts[token.end[0] - 1] + token.end[1]
        follows_value = previous is not None and (previous.type == tokenize.NAME or previous.string in (")", "]"))
        # a line continued between two tokens: after an operator, before a name; after any
        # other token, before any but the line's end
        if layout == "backslash-between-tokens" and previous is not None and (
                token.type == tokenize.NAME if previous.type == tokenize.OP
                else previous.end[0] == token.start[0] and token.type not in (tokenize.NEWLINE, tokenize.ENDMARKER)):
            insertions.append((offset, " \\\n    "))
        if token.string in ("(", "[") and follows_value:
            if layout in ("space-before-bracket", "all", "tabs"):
                insertions.append((offset, space))
            if layout in ("backslash-before-bracket", "all"):
                insertions.append((offset, " \\\n    "))
        attribute_dot = token.string == "." and follows_value and tokens[index + 1].type == tokenize.NAME
        if attribute_dot and layout in ("space-around-dot", "all", "tabs"):
            insertions += [(offset, space), (after, space)]
        broken = {"break-in-brackets": "\n        ", "all": "\n        ", "tabs": "\n\t\t",
                  "comments-in-brackets": "  # (why)\n        "}.get(layout)
        if token.string in ("(", "[", "{"):
            depth += 1
            if broken:
                insertions.append((after, broken))
        elif token.string in (")", "]", "}"):
            depth -= 1
        elif token.string == "," and depth > 0 and broken:
            insertions.append((after, broken))
        previous = token
        if token.type == tokenize.NAME and token.string in OWN_NAMES and layout in ("non-ascii-names", "all"):
            insertions.append((after, "é"))
    text = source
    # (applied from the end; at one offset a name's new letter goes first: it ends the name)
    edits = [(offset, added != "é", offset, added) for offset, added in insertions]
    edits += [(start, True, end, added) for start, end, added in replaced]
    for offset, _, end, added in sorted(edits, reverse=True):
        text = text[:offset] + added + text[end:]
    line_end = {"crlf-line-ends": "\r\n", "cr-line-ends": "\r"}.get(layout)
    return text.replace("\n", line_end) if line_end else text


def _joins(line_start, last, following) -> bool:
    """May the simple statement that starts with ``line_start`` and ends with ``last`` be joined
    by a semicolon to the statement that starts at ``following``, on the next line?"""
    return (line_start is not None and last is not None and last.type != tokenize.COMMENT
            and line_start.string not in _COMPOUND and last.string != ":"
            and following.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                                       tokenize.ENDMARKER, tokenize.NEWLINE)
            and following.start[0] == last.end[0] + 1 and following.string not in _COMPOUND)


def _same_program(before: str, after: str) -> bool:
    """The same program, the names "non-ascii-names" respells aside."""
    try:
        ast.parse(after)
        return ast.dump(ast.parse(before)) == ast.dump(ast.parse(after.replace("é", "")))
    except SyntaxError:
        return False


def test_the_layouts_change_the_text_not_the_program():
    source = ("import m\nfrom . import n\n\n\n@m.deco(1)\ndef f(a, b=[1, 2]):\n"
              "    return m.g(a)[0].h(b, *a, **{'k': 2})\n\n\nx = f'{m.g(1)} (y)'\nrun(x)\n")
    for layout in LAYOUTS:
        text = respaced(source, layout)
        assert text != source and _same_program(source, text), (layout, text)
    assert "f'{m.g(1)} (y)'" in respaced(source, "all")  # (never inside a string)
    assert "g (a) [0]" in respaced(source, "space-before-bracket")
    assert "m . g" in respaced(source, "space-around-dot")
    assert "def f(\n        a,\n         b=[\n        1," in respaced(source, "break-in-brackets")
    assert "m.g \\\n    (a) \\\n    [0]" in respaced(source, "backslash-before-bracket")
    assert "def f(  # (why)\n        a,  # (why)" in respaced(source, "comments-in-brackets")
    assert respaced("VALUE = 'VALUE'\nrun(VALUE, x.VALUE)\n", "non-ascii-names") == \
        "VALUEé = 'VALUE'\nruné(VALUEé, x.VALUEé)\n"  # (never a string's text)
    assert "m\t.\tg\t(\n\t\ta" in respaced(source, "tabs")
    assert respaced("a = 1\nb = f(\n 2)\nif a:\n    c = 3\n    d = 4\n@m.deco\ndef g(): pass\n", "semicolons") == \
        "a = 1; b = f(\n 2)\nif a:\n    c = 3; d = 4\n@m.deco\ndef g(): pass\n"
    assert respaced(source, "cr-line-ends").count("\r") == source.count("\n") and "\n" not in respaced(
        source, "cr-line-ends")
    assert respaced(source, "crlf-line-ends") == source.replace("\n", "\r\n")


@PROPERTY
@given(
    checked=st.one_of(st.sampled_from(CURATED), st.sampled_from(CHECKED)), form=st.sampled_from(FORM_NAMES),
    layout=st.sampled_from(LAYOUTS), data=st.data(),
)
def test_the_screen_agrees_however_the_code_is_laid_out(checked, form, layout, data):
    v, w = (repr(data.draw(st.sampled_from(checked.values), label=label)) for label in ("value", "other"))
    forms = _forms(checked, v, w)
    source = checked.header + forms[form if form in forms else sorted(forms)[0]]
    text = respaced(source, layout)
    assume(_same_program(source, text))
    _agree(text)


@PROPERTY
@given(
    flag=st.sampled_from(FLAGS), value=st.sampled_from(["auto", "fp8", "flashinfr", "2", "x", "0.8", "--other"]),
    form=st.sampled_from(sorted(_argv_forms("--a", "b"))), layout=st.sampled_from(LAYOUTS),
)
def test_the_screen_agrees_on_launch_flags_however_laid_out(flag, value, form, layout):
    source = LAUNCH + _argv_forms(flag, value)[form]
    text = respaced(source, layout)
    assume(_same_program(source, text))
    _agree(text)


@PROPERTY
@given(flag=st.sampled_from(ARGV_FLAGS), value=st.sampled_from(ARGV_VALUES), form=st.sampled_from(ARGV_FORMS),
       layout=st.sampled_from(LAYOUTS))
def test_the_argv_screen_agrees_however_laid_out(flag, value, form, layout):
    """The lists of flags built in steps, from class attributes, through wrappers
    (test_argv_screen_agreement.py's forms), laid out anew."""
    source = ARGV_HEADER + argv_forms(flag, value)[form]
    text = respaced(source, layout)
    assume(_same_program(source, text))
    _agree(text)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("form", ["default", "wrapper", "method-wrapper", "constant", "comments", "dict-name"])
def test_the_curated_checks_find_the_same_however_laid_out(form, layout):
    """Each curated check's values written in the forms whose bindings the text stage reads
    (a parameter's default, a wrapper's call, a constant, a dict), in every layout: the same
    findings screened and not, and some found (a default continued over a line was once no
    default to the text stage)."""
    found = 0
    for checked in CURATED:
        for value in dict.fromkeys(repr(v) for v in checked.values[:5]):  # (allowed, then misspelt)
            forms = _forms(checked, value, value)
            if form not in forms:
                continue
            source = checked.header + forms[form]
            text = respaced(source, layout)
            assert _same_program(source, text), text
            found += bool(_agree(text))
    assert found > 0
