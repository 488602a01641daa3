"""Positions computed per top-level statement (analysis/positions.py) are the positions LibCST computes
over the whole module: for every node of every fixture, and of sources whose line ends,
indentation, header comments and decorators could shift a statement's lines, with the
statements' lines read from Python's ast as the engine reads them and from the module's
generated code; and so are those of the whole module, which analysis/positions.py computes with a
code generation state of its own."""

from __future__ import annotations

import ast
import functools

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from conftest import fixture_files
from sglang_lint.analysis.positions import Positions, ast_layout, code_ranges, statement_layout
from sglang_lint.text.pynames import lines_of

ODD_SOURCES = {
    "header comments and blank lines": "#!/usr/bin/env python\n# a comment\n\n\nimport os\n\n\nx = f(1)\n# end\n",
    "CRLF": "import os\r\n\r\ndef f():\r\n    return g('a',\r\n             'b')\r\n\r\nx = f()\r\n",
    "lone CR": "import os\r\rdef f():\r    return g('a')\rx = 1\r",
    "two-space indent": "class A:\n  def f(self):\n    if x:\n      return call(a, b=1)\n\n\ny = A()\n",
    "tabs": "def f():\n\tif x:\n\t\treturn call(a,\n\t\t\tb=1)\n\nz = f()\n",
    "decorators": "@dec(1)\n@other\ndef f():\n    pass\n\n\n@dec\nclass C:\n    x: int = 1\n",
    "semicolons and a last line without newline": "a = 1; b = g(2)\nif a: c = h(3)\nd = 'x'",
    "a string over lines": 'x = """a\nb\nc"""\ny = f(x)\nz = ("p"\n     "q")\n',
    "form feed": "import os\n\x0c\ndef f():\n    return g(1)\n",
    "comments a block keeps": "def f():\n    return g(1)\n    # kept by the block\n\n# the next one's\nx = f()\n",
    "a statement opening with a bracket": "(\n    a\n).b = g(1)\n# c\n\n[x] = h(2)\n",
    "comments between decorators": "# lead\n@dec\n# between\n@other(1)\n\ndef f():\n    pass\ny = f()\n",
}
# Sources whose ast places a statement on another line than LibCST's tree begins it (a decorator
# written in brackets begins with the bracket; its ast with the expression inside): the
# statement's code is not the lines given, and the generated layout places it.
MISPLACED = {
    "a decorator in brackets over lines": "x = 1\n@(\n    dec\n)\ndef f():\n    return g(1)\ny = f()\n",
}


POINTED_AT = (cst.BaseExpression, cst.BaseSmallStatement, cst.Arg)  # what findings point at


def _check(source: str, most: int = 80) -> None:
    """Every node, in one Positions, last first; and up to ``most`` of the nodes findings
    point at, each asked of a new Positions (no earlier answer helps), found without the
    whole-module fallback; with the layout of the ast (the same as the generated one) and with
    the generated one."""
    module = cst.parse_module(source)
    assert ast_layout(source, module) == _generated(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = [node for node in whole if node is not module]
    assert code_ranges(module) == dict(whole)  # (the whole module's, where a node is in no statement)
    for layout in (functools.partial(ast_layout, source, module), None):
        shared = Positions(module, layout)
        for node in reversed(nodes):
            assert shared.of(node) == whole[node], (type(node).__name__, module.code_for_node(node)[:60])
        pointed = [node for node in nodes if isinstance(node, POINTED_AT)]
        for node in pointed[:: max(1, len(pointed) // most)]:
            positions = Positions(module, layout)
            assert positions.of(node) == whole[node], module.code_for_node(node)[:60]
            assert not positions._whole, module.code_for_node(node)[:60]


@pytest.mark.parametrize("name", sorted(ODD_SOURCES))
def test_odd_sources(name):
    _check(ODD_SOURCES[name])


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixtures(path):
    _check(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(MISPLACED))
def test_a_statement_the_ast_misplaces_is_placed_by_its_generated_code(name):
    source = MISPLACED[name]
    module = cst.parse_module(source)
    placed = ast_layout(source, module)
    assert placed is not None and placed != _generated(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    calls = [node for node in whole if isinstance(node, cst.Call)]
    for call in calls:  # g(1) inside the misplaced statement, f() after it
        positions = Positions(module, functools.partial(ast_layout, source, module))
        assert (positions.of(call), positions._whole) == (whole[call], False), module.code_for_node(call)
    assert len(calls) == 2


def test_an_ast_of_other_statements_gives_no_layout():
    source = "x = 1\ny = f(2)\n"
    module = cst.parse_module(source)
    assert ast_layout(source, module, ast.parse("x = 1\n")) is None
    assert ast_layout(source, module, ast.parse("x = 1; y = f(2)\nz = 3\n")) is None
    assert ast_layout("x = (", module) is None  # (a text the ast cannot parse)
    call = next(node for node in MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
                if isinstance(node, cst.Call))
    positions = Positions(module, functools.partial(ast_layout, source, module, ast.parse("x = 1\n")))
    assert (positions.of(call).start.line, positions._whole) == (2, False)


def _generated(source: str) -> tuple:
    """The lines and the statements' lines of the module's generated code."""
    return lines_of(source), statement_layout(cst.parse_module(source))[1]


def test_a_node_outside_the_module_is_a_key_error():
    positions = Positions(cst.parse_module("x = f(1)\n"))
    with pytest.raises(KeyError):
        positions.of(cst.Call(func=cst.Name("made_up")))
