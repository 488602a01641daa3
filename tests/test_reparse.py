"""Parsing a document again after an edit (analysis/reparse.py), as the language server does: the tree
is always the one a full parse gives (LibCST's deep_equals), the statements' lines are right,
the findings are the same, and an edit in the middle re-reads only what it touched."""

from __future__ import annotations

import random

import libcst as cst
import pytest

from conftest import fixture_files
from sglang_lint.analysis.reparse import Reparser
from sglang_lint.core.model import SourceError
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import default_ruleset
from sglang_lint.text.pynames import lines_of
from snippets import CAPTURE_IMPORT

BASE = CAPTURE_IMPORT + '''

# a comment before f
def f(t):
    set_capture_flag_on_blocks(t, "pre")


class C:
    def g(self, t):
        if t:
            return set_capture_flag_on_blocks(t, mode="post")
        return None


MODE = "pre_rope"
set_capture_flag_on_blocks(x, MODE)
# the footer
'''


def _edits(text: str, rng: random.Random):
    """Random line edits: insert, delete, change a character, duplicate a block of lines."""
    lines = lines_of(text)
    kind = rng.choice(["insert", "delete", "change", "duplicate", "blank", "indent", "dedent"])
    at = rng.randrange(len(lines) + 1)
    if kind == "insert":
        lines.insert(at, rng.choice(["x = 1\n", "    y = 2\n", "# note\n", "def h():\n    return 3\n", "\n"]))
    elif kind == "delete" and lines:
        del lines[min(at, len(lines) - 1)]
    elif kind == "change" and lines:
        line = lines[min(at, len(lines) - 1)]
        if line.strip():
            i = rng.randrange(len(line.rstrip("\n")) or 1)
            line = line[:i] + rng.choice("aZ_ (),'\"") + line[i + 1:]
        lines[min(at, len(lines) - 1)] = line
    elif kind in ("indent", "dedent") and lines:
        i = min(at, len(lines) - 1)
        lines[i] = "    " + lines[i] if kind == "indent" else lines[i][4:] if lines[i].startswith("    ") else lines[i]
    elif kind == "duplicate" and lines:
        start = min(at, len(lines) - 1)
        lines[start:start] = lines[start:start + rng.randrange(1, 4)]
    else:
        lines.insert(at, "\n")
    return "".join(lines)


def _same_as_full_parse(reparser: Reparser, text: str) -> bool:
    """The reparser's tree of ``text`` is LibCST's full parse (or both fail); False if they fail."""
    try:
        full = cst.parse_module(text)
    except Exception:
        with pytest.raises(SourceError):
            reparser.parse(text)
        return False
    module = reparser.parse(text)
    # (full.code, not text: LibCST itself does not give back a blank line before an indented
    # comment at the end of a file)
    assert module.code == full.code and module.deep_equals(full)
    return True


def _check_sequence(text: str, steps: int, seed: int) -> int:
    rng = random.Random(seed)
    reparser = Reparser()
    ruleset = default_ruleset()
    for _ in range(steps):
        text = _edits(text, rng)
        if not _same_as_full_parse(reparser, text):
            continue
        lines, spans = reparser.layout()
        fresh = Reparser()
        fresh.parse(text)
        assert (lines, spans) == fresh.layout()
        assert lint(text, "app.py", ruleset, reparser=reparser) == lint(text, "app.py", ruleset)
    return reparser.reused


def test_random_edits_give_the_full_parse():
    reused = [_check_sequence(BASE, 25, seed) for seed in range(30)]
    assert sum(reused) >= 80  # most edits of the middle re-read only part of the text


@pytest.mark.parametrize("path", fixture_files()[:12], ids=lambda p: p.name)
def test_random_edits_of_fixtures(path):
    _check_sequence(path.read_text(encoding="utf-8"), 10, 7)


def test_an_edit_in_the_middle_reads_only_its_statement():
    reparser = Reparser()
    reparser.parse(BASE)
    edited = BASE.replace('mode="post"', 'mode="postrope"')  # in class C, the third statement
    first = reparser.module.body[0]
    module = reparser.parse(edited)
    # the import was kept, not parsed again (the chunk is C and one statement on each side)
    assert reparser.reused == 1 and module.body[0] is first
    assert module.deep_equals(cst.parse_module(edited))
    found = lint(edited, "app.py", default_ruleset(), reparser=reparser)
    assert [(d.line, d.col, d.code) for d in found] == [
        (line, col, code) for line, col, code in
        ((d.line, d.col, d.code) for d in lint(edited, "app.py", default_ruleset()))
    ] and any(d.code == "SGL001" for d in found)


@pytest.mark.parametrize("edit", [
    lambda text: "# a new first line\n" + text,  # the header
    lambda text: text + "# more footer\n",  # the footer
    lambda text: text.replace("    def g(self, t):", "  def g(self, t):"),  # mixed indentation
    lambda text: text.rstrip("\n"),  # the last newline
    # the last statement edited: before the footer, without a last newline, growing a block
    lambda text: text.replace("(x, MODE)", "(x, 'post')"),
    lambda text: text.replace("# the footer\n", "").rstrip("\n").replace("(x, MODE)", "(x, 'post')"),
    lambda text: text.replace("set_capture_flag_on_blocks(x, MODE)\n", "def z():\n    pass\n    # inside\n"),
])
def test_edits_at_the_edges_give_the_full_parse(edit):
    reparser = Reparser()
    reparser.parse(BASE)
    _same_as_full_parse(reparser, edit(BASE))


# Found by a longer run of random edits: the module's footer (comment lines after the last
# statement) goes to the last statement's block when that statement becomes indented or is
# removed, which a parse of the last statement alone cannot see: such edits are parsed whole.
_TAIL = CAPTURE_IMPORT + "\n\nclass C:\n    def g(self, t):\n        return None\n\n    \n"
FOOTER_CASES = [
    (_TAIL + "set_capture_flag_on_blocks(x, MODE)\n# the footer\n\n    \n",
     _TAIL + "    set_capture_flag_on_blocks(x, MODE)\n# the footer\n\n    \n"),
    (_TAIL + "set_capture_flag_on_blocks(x, MODE)\n        # the footer\n",
     _TAIL + "        # the footer\n"),
]


@pytest.mark.parametrize("before, after", FOOTER_CASES)
def test_an_edit_of_the_last_statement_before_a_footer_gives_the_full_parse(before, after):
    reparser = Reparser()
    reparser.parse(before)
    assert _same_as_full_parse(reparser, after)
    fresh = Reparser()
    fresh.parse(after)
    assert reparser.layout() == fresh.layout()
