"""The language server's ast of a document kept between edits (screen/ast_reparse.py): after any edit
it finds every call where a fresh parse finds it, in the same scopes, with the same bindings,
and the screen answers as it does on a fresh parse; an edit in the middle parses only a
stretch of the text."""

from __future__ import annotations

import ast
import random

import pytest

from conftest import fixture_files
from sglang_lint.engine.ruletable import default_ruleset
from sglang_lint.screen.ast_reparse import AstChunks
from sglang_lint.screen.ast_scopes import AstFile
from test_reparse import BASE, _edits


def _scope_names(scopes: tuple) -> list[str]:
    return [getattr(scope, "name", type(scope).__name__) for scope in scopes]


def _same_as_fresh(chunks: AstChunks, text: str) -> bool:
    data = text.encode("utf-8")
    fresh = AstFile.read(data)
    kept = chunks.ast_file(data)
    if fresh is None:
        assert kept is None
        return False
    assert kept is not None
    calls = 0
    for node in ast.walk(fresh.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            end = fresh.starts[node.func.end_lineno - 1] + node.func.end_col_offset
            expected, found = fresh.call_at(end), kept.call_at(end)
            assert type(expected) is type(found)
            if expected is not None and expected is not True:
                assert ast.dump(found.call) == ast.dump(expected.call)
                assert _scope_names(found.scopes) == _scope_names(expected.scopes)
                calls += 1
    module_bindings = {name: [b[0] for b in found] for name, found in fresh.bindings(fresh.tree).items()}
    assert {name: [b[0] for b in found] for name, found in kept.bindings(kept.tree).items()} == module_bindings
    ruleset = default_ruleset()
    assert ruleset.skip_reason(data, "app", chunks) == ruleset.skip_reason(data, "app")
    return True


def _check_sequence(text: str, steps: int, seed: int, valid: bool = False) -> int:
    """Random edits (with ``valid``, only those after which the text still parses, as most
    of an editor's texts do), each text checked against a fresh parse."""
    rng = random.Random(seed)
    chunks = AstChunks()
    _same_as_fresh(chunks, text)
    for _ in range(steps):
        edited = _edits(text, rng)
        while valid and AstFile.read(edited.encode()) is None:
            edited = _edits(text, rng)
        text = edited
        _same_as_fresh(chunks, text)
    return chunks.reused


def test_random_edits_find_what_a_fresh_parse_finds():
    for seed in range(30):  # (most texts stop parsing after a few random edits: the fallback)
        _check_sequence(BASE, 25, seed)


def test_random_valid_edits_parse_only_a_stretch():
    reused = [_check_sequence(BASE, 25, seed, valid=True) for seed in range(20)]
    assert sum(reused) >= 300  # of 500 edits: all but those of the first lines (the header)


@pytest.mark.parametrize("path", fixture_files()[:12], ids=lambda p: p.name)
def test_random_edits_of_fixtures(path):
    _check_sequence(path.read_text(encoding="utf-8"), 12, 11)


def test_an_edit_in_the_middle_parses_only_its_stretch_and_keeps_the_rest():
    chunks = AstChunks()
    first = chunks.ast_file(BASE.encode())
    kept_import, kept_last = first.tree.body[0], first.tree.body[-1]
    edited = BASE.replace('mode="post"', 'mode="postrope"')  # in class C: C and one statement each side
    found = chunks.ast_file(edited.encode())
    assert chunks.reused == 1 and found.tree.body[0] is kept_import and found.shifts[-1] == 0
    assert _same_as_fresh(chunks, edited)
    again = edited.replace("        return None\n", "        # a note\n        return None\n")
    found = chunks.ast_file(again.encode())
    assert chunks.reused == 2 and found.tree.body[-1] is kept_last and found.shifts[-1] == 1  # one line down
    assert _same_as_fresh(chunks, again)


@pytest.mark.parametrize("edit", [
    lambda text: "# a new first line\n" + text,  # the header
    lambda text: "# -*- coding: latin-1 -*-\n" + text,  # an encoding line
    lambda text: text.replace("def f(t):", "def f(t:"),  # a bracket left open: the stretch fails alone
    lambda text: text.replace("MODE = ", "    MODE = "),  # indented into the statement before
    lambda text: text.rstrip("\n"),  # the last newline
])
def test_edits_that_cannot_be_read_alone_are_parsed_whole(edit):
    chunks = AstChunks()
    chunks.ast_file(BASE.encode())
    _same_as_fresh(chunks, edit(BASE))
