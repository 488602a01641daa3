"""Property tests (hypothesis, hypothesmith): the engine never raises on any valid program,
findings do not move under formatting-only edits, and every applied fix gives code that
parses and no longer has that finding.

CI runs a bounded number of examples; ``scripts/fuzz`` runs many more
(``SGLANG_LINT_FUZZ_EXAMPLES``)."""

from __future__ import annotations

import functools
import os
import re

import hypothesmith
import libcst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fix_fixture_files, fixture_files
from snippets import CAPTURE_IMPORT, ENGINE_IMPORT
from sglang_lint import SourceError, lint
from sglang_lint.analysis.source import parse
from sglang_lint.engine.fixes import fix_text

EXAMPLES = int(os.environ.get("SGLANG_LINT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, derandomize="SGLANG_LINT_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
SOURCES = [path.read_text(encoding="utf-8") for path in fixture_files() + fix_fixture_files()]
HEAD = CAPTURE_IMPORT + ENGINE_IMPORT


@functools.lru_cache(maxsize=None)  # each fixture is drawn many times: linted once
def findings(source: str) -> tuple[tuple[int, int, str, str], ...]:
    return tuple((d.line, d.col, d.code, d.message) for d in lint(source, "fuzz.py"))


@FUZZ
@given(program=st.deferred(hypothesmith.from_grammar))  # (its grammar is compiled where the test runs: 5 s)
def test_the_engine_never_raises_on_a_valid_program(program):
    # A random program, and the same with catalog calls around it, so the parser runs.
    for source in (program, HEAD + program + "\nset_capture_flag_on_blocks(t, 'pre')\n"):
        try:
            lint(source, "fuzz.py")
        except SourceError:
            pass  # a clear error for this file is allowed (LibCST rejects some valid code)


@FUZZ
@given(program=hypothesmith.from_node(libcst.Module))
def test_the_engine_never_raises_on_a_random_syntax_tree(program):
    try:
        lint(HEAD + "\n" + program + "\nsgl.Engine(model_path='m', tp_sizee=1)\n", "fuzz.py")
    except SourceError:
        pass


@st.composite
def blank_lines(draw):
    """A fixture with blank lines inserted at random statement boundaries."""
    source = draw(st.sampled_from(SOURCES))
    lines = source.splitlines(keepends=True)
    # only before lines that start a statement at column 0 (never inside a bracket)
    candidates = [i for i, line in enumerate(lines) if line[:1].isalpha() and not line.startswith((" ", "\t"))]
    chosen = draw(st.sets(st.sampled_from(candidates), max_size=5)) if candidates else set()
    out, shift = [], {}
    added = 0
    for index, line in enumerate(lines):
        if index in chosen:
            out.append("\n")
            added += 1
        shift[index + 1] = index + 1 + added
        out.append(line)
    return source, "".join(out), shift


@FUZZ
@given(case=blank_lines())
def test_findings_move_with_inserted_blank_lines(case):
    source, edited, shift = case
    before = findings(source)
    after = findings(edited)
    moved = [(shift[line], col, code) for line, col, code, _ in before]
    assert moved == [(line, col, code) for line, col, code, _ in after]


@st.composite
def trailing_comments(draw):
    source = draw(st.sampled_from(SOURCES))
    lines = source.splitlines(keepends=True)
    plain = [i for i, line in enumerate(lines) if line.rstrip("\n").endswith((")", ",", "]")) and "#" not in line]
    chosen = draw(st.sets(st.sampled_from(plain), max_size=6)) if plain else set()
    for index in chosen:
        lines[index] = lines[index].rstrip("\n") + "  # a comment\n"
    return source, "".join(lines)


@FUZZ
@given(case=trailing_comments())
def test_findings_ignore_comments(case):
    source, edited = case
    assert [f[:3] for f in findings(source)] == [f[:3] for f in findings(edited)]


@st.composite
def parenthesized_literals(draw):
    """One string literal argument wrapped in parentheses: the same value, a new form."""
    source = draw(st.sampled_from(SOURCES))
    spots = [m for m in re.finditer(r"(?<=[(,=] )'[a-z_-]+'|(?<=[(,=])\"[a-z_-]+\"", source)]
    if not spots:
        return source, source, None
    spot = draw(st.sampled_from(spots))
    edited = source[: spot.start()] + "(" + spot.group(0) + ")" + source[spot.end():]
    return source, edited, spot.start()


@FUZZ
@given(case=parenthesized_literals())
def test_findings_survive_parentheses(case):
    source, edited, where = case
    before = {(line, code) for line, _, code, _ in findings(source)}
    after = {(line, code) for line, _, code, _ in findings(edited)}
    assert before == after


LETTERS = "abcdefghijklmnopqrstuvwxyz_-"


@st.composite
def misspelt_values(draw):
    """A fixture with some quoted words mangled: case, a dropped, doubled or swapped letter."""
    source = draw(st.sampled_from(SOURCES))
    spots = list(re.finditer(r"(['\"])([A-Za-z][A-Za-z0-9_-]{2,})\1", source))
    if not spots:
        return source
    chosen = draw(st.lists(st.sampled_from(spots), max_size=4, unique_by=lambda m: m.start()))
    for match in sorted(chosen, key=lambda m: m.start(), reverse=True):
        word = match.group(2)
        how = draw(st.sampled_from(["upper", "drop", "double", "dash", "swap"]))
        at = draw(st.integers(min_value=0, max_value=len(word) - 2))
        if how == "upper":
            word = word.upper()
        elif how == "drop":
            word = word[:at] + word[at + 1:]
        elif how == "double":
            word = word[:at] + word[at] + word[at:]
        elif how == "dash":
            word = word.replace("_", "-")
        else:
            word = word[:at] + word[at + 1] + word[at] + word[at + 2:]
        quote = match.group(1)
        source = source[: match.start()] + quote + word + quote + source[match.end():]
    return source


@FUZZ
@given(source=misspelt_values(), unsafe=st.booleans())
def test_fixes_give_code_that_parses_and_no_longer_has_the_finding(source, unsafe):
    try:
        result = fix_text(source, "fuzz.py", unsafe=unsafe)
    except SourceError:
        return
    parse(result.text)  # always parses
    again = fix_text(result.text, "fuzz.py", unsafe=unsafe)
    assert again.text == result.text and not again.fixed  # fixing twice changes nothing
    left = {(d.code, d.fix.new) for d in again.remaining if d.fix is not None and (d.fix.safe or unsafe)}
    assert not left  # nothing this mode could fix is left
