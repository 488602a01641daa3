"""The prefilter and the call-site screen skip files without parsing them; they must never
skip one the full engine would report on. Checked on every fixture (test_fixtures), rule
example (test_catalog), fix fixture and corpus mutation (here), against the engine with the
screen off; and the screen's own decisions on small calls."""

from __future__ import annotations

import ast

import re

import pytest
from hypothesis import given, settings, strategies as st

from conftest import fix_fixture_files
from snippets import CAPTURE_IMPORT, CAPTURE_MODULE, LAUNCH_IMPORT
from sglang_lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules, default_ruleset
from sglang_lint.screen.ast_scopes import AstFile
from sglang_lint.screen.calls import FileFacts
from sglang_lint.text.pynames import UNSURE

UNSCREENED = RuleSet(default_rules(), screen=False)


@pytest.mark.parametrize("path", fix_fixture_files(), ids=lambda p: p.name)
def test_screen_never_hides_a_finding(path):
    source = path.read_text(encoding="utf-8")
    assert lint(source, str(path), default_ruleset()) == lint(source, str(path), UNSCREENED)


@pytest.mark.parametrize(
    "body, may_fire",
    [
        ('set_capture_flag_on_blocks(t, "pre_rope")', False),  # an allowed literal
        ('set_capture_flag_on_blocks(t, "pre")', True),  # a literal the check rejects
        ("set_capture_flag_on_blocks(t, mode=self.mode)", False),  # an attribute: never evaluated
        ("set_capture_flag_on_blocks(t, mode=pick())", False),  # a call: never evaluated
        ("set_capture_flag_on_blocks(t)", False),  # the argument is absent
        ("set_capture_flag_on_blocks(t, *modes)", False),  # after *args: the engine cannot find it either
        ("set_capture_flag_on_blocks(t, **options)", False),  # an unbound name: no mapping the engine reads
        ('options = {"mode": "pre"}\nset_capture_flag_on_blocks(t, **options)', True),  # a mapping may hold it
        ("options = dict(mode=m)\nset_capture_flag_on_blocks(t, **options)", False),  # its value: an unbound name
        ("options = dict(mode='pre')\nset_capture_flag_on_blocks(t, **options)", True),
        ('options = {"mode": "pre_rope"}\nset_capture_flag_on_blocks(t, **options)', False),  # a passing value
        ("def f(**options):\n    set_capture_flag_on_blocks(t, **options)\n", False),  # a parameter no call feeds
        # (a parameter's mapping: the engine's lookup reads no parameter, engine/reach.py follows no ``**``)
        ("def f(**options):\n    set_capture_flag_on_blocks(t, **options)\nf(mode='x')\n", False),
        ("def f(options):\n    set_capture_flag_on_blocks(t, **options)\nf({'mode': 'x'})\n", False),
        ('set_capture_flag_on_blocks(t, **{"mode": "pre"})', True),  # a display's keys are read
        ('set_capture_flag_on_blocks(t, **{"mode": "pre_rope"})', False),
        ("set_capture_flag_on_blocks(t, **make())", False),  # a mapping the engine cannot read
        # the second look, on the file's ast
        ('# set_capture_flag_on_blocks(t, "pre")', False),  # a comment
        ('"""set_capture_flag_on_blocks(t, "pre")"""', False),  # a string
        ('def g(x):\n    x.set_capture_flag_on_blocks(t, "pre")\n', False),  # not the import
        ('def g():\n    MODE = "pre"\n\ndef h():\n    set_capture_flag_on_blocks(t, MODE)\n', False),  # other scope
        ('MODE = "pre"\ndef h():\n    set_capture_flag_on_blocks(t, MODE)\n', True),  # the module's
        ('MODE = "pre"\ndef h():\n    MODE = "pre_rope"\n    set_capture_flag_on_blocks(t, MODE)\n', False),
        # only the bindings that reach the call (screen/ast_flow.py, the engine's may_be_last_binding)
        ('if flag:\n    MODE = "pre"\nelse:\n    MODE = "pre_rope"\n    set_capture_flag_on_blocks(t, MODE)\n', False),
        ('if flag:\n    MODE = "pre"\nMODE = "pre_rope"\nset_capture_flag_on_blocks(t, MODE)\n', False),
        ('MODE = "pre_rope"\nset_capture_flag_on_blocks(t, MODE)\nMODE = "pre"\n', False),  # rebound after it
        ('MODE = "pre"\nif flag:\n    MODE = "pre_rope"\nset_capture_flag_on_blocks(t, MODE)\n', True),
        ('MODE = "pre"\nMODE = "pre_rope"; set_capture_flag_on_blocks(t, MODE)\n', True),  # one line: one place
        ('MODE = "pre"\nMODE = "pre_rope"; \\\nset_capture_flag_on_blocks(t, MODE)\n', True),  # continued
        # (seen from a function: the module's last binding)
        ('MODE = "pre"\ndef h():\n    set_capture_flag_on_blocks(t, MODE)\nMODE = "pre_rope"\n', False),
        ('MODE = "pre"\nif flag:\n    MODE = "x"\ndef h():\n    set_capture_flag_on_blocks(t, MODE)\n', True),
        ('def h(mode="pre"):\n    mode = "pre_rope"\n    set_capture_flag_on_blocks(t, mode)\n', False),
        ('def h():\n    MODE = "pre"\n    [set_capture_flag_on_blocks(t, MODE) for _ in x]\n    MODE = "pre_rope"\n',
         True),  # (a comprehension is no scope of the engine's: the call's statement is the use)
        ('for _ in x:\n    MODE = "pre_rope"\n    set_capture_flag_on_blocks(t, MODE)\n    MODE = "pre"\n', False),
        ('MODE = "pre_rope"\nfor _ in x:\n    set_capture_flag_on_blocks(t, MODE)\n    MODE = "pre"\n', True),
        ('def h():\n    global MODE\n    MODE = "pre"\n    set_capture_flag_on_blocks(t, MODE)\n', True),  # global
        ('def g():\n    global MODE\n    MODE = "pre"\ndef h():\n    set_capture_flag_on_blocks(t, MODE)\n', False),
        ("def h(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef k():\n    return h('x')\n", True),  # a wrapper
        ("class C:\n    def g(self, mode):\n        set_capture_flag_on_blocks(t, mode)\n"
         "    def h(self):\n        self.g('x')\n", True),  # a method called through self
        ("def g(mode):\n    set_capture_flag_on_blocks(t, mode)\nx.g('x')\n", False),  # not its call
        ('x = f"{set_capture_flag_on_blocks(t, MODE)}"\nMODE = "pre"\n', True),
        ('x = f"see set_capture_flag_on_blocks(t, \'pre\') in {doc}"', False),  # an f-string's text, no call
        ('x = (\n    f"see "\n    f"set_capture_flag_on_blocks(t, \'pre\') {doc}")', False),  # its second line
        ('x = f"{doc} set_capture_flag_on_blocks(t, \'pre\')"', False),  # in the text after a field: no call
        # a name a condition in force tests: the engine does not guess at its value (screen/ast_guards.py)
        ('MODE = "pre"\nif MODE:\n    set_capture_flag_on_blocks(t, MODE)', False),
        ('def g(mode):\n    if mode is None:\n        return\n    set_capture_flag_on_blocks(t, mode)\n\n\ng("pre")',
         False),
        ('def g(mode):\n    set_capture_flag_on_blocks(t, mode)\n\n\nM = "pre"\nassert M\ng(M)', False),
        ('MODE = "pre"\nif flag:\n    set_capture_flag_on_blocks(t, MODE)', True),
        ('def g(mode):\n    set_capture_flag_on_blocks(t, mode)\n\n\nM = "pre"\ng(M)\nassert M', True),
        ('x = f"{doc} {set_capture_flag_on_blocks(t, \'pre\')}"', True),  # in a field: a call
        ('x = f"{{doc}} {set_capture_flag_on_blocks(t, \'pre\')}"', True),  # after doubled braces, a field
        ('x = f"{{ set_capture_flag_on_blocks(t, \'pre\')"', False),  # a doubled brace is text
        ('x = f"{w:{n}} set_capture_flag_on_blocks(t, \'pre\')"', False),  # a nested field, closed
        ('x = f"{d[\'}\']} set_capture_flag_on_blocks(t, \'pre\')"', True),  # a quote in a field: unsure
        ('[set_capture_flag_on_blocks(t, m) for m in ("pre",)]', False),  # a comprehension's variable
        ('f = lambda mode="pre": set_capture_flag_on_blocks(t, mode)', True),  # a lambda's default
        ('class C:\n    MODE = "pre"\n    def f(self):\n        set_capture_flag_on_blocks(t, MODE)\n', False),
        ('class C:\n    MODE = "pre"\n    set_capture_flag_on_blocks(t, MODE)\n', True),  # its own body
        ('MODE = "pre"\n@set_capture_flag_on_blocks(t, MODE)\ndef f(): pass\n', True),  # a decorator
        ('MODE = "pre"\nfor MODE in modes: pass\nset_capture_flag_on_blocks(t, MODE)\n', True),
        ('set_capture_flag_on_blocks(t, "pre_rope" if a else "pre")', True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\n", False),  # a parameter no call feeds
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nf('x')\n", True),  # a wrapper
        ('MODE = "pre"\nset_capture_flag_on_blocks(t, MODE)\n', True),
        ("MODE = load()\nset_capture_flag_on_blocks(t, MODE)\n", False),  # bound to a call only
        ('def f(mode="pre"):\n    set_capture_flag_on_blocks(t, mode)\n', True),  # a default
        ('x: mode = "a"\nset_capture_flag_on_blocks(t, mode)\n', False),  # an annotation binds nothing
        ('set_capture_flag_on_blocks(t, (mode := "pre"))', False),  # the engine does not follow :=
        ('def set_capture_flag_on_blocks(t, mode="pre"): pass', False),  # a definition, not a call
        # a wrapper: what its calls in the file pass (engine/reach.py), judged as the call's own argument
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nf('pre_rope')\n", False),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nf(mode='pre')\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nf(load())\n", False),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nM = 'pre'\nf(M)\n", True),
        # (a call however written: the text stage once counted only ``f(``, and hid these)
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nM = 'pre'\nf (M)\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nM = 'pre'\n(f\n (M))\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nM = 'pre'\nf \\\n(M)\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nM = 'pre'\nxf(M)\n", False),  # another name
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef g(m):\n    f(m)\ng('pre')\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef g(m):\n    f(m)\ng('pre_rope')\n", False),
        # (a call of the name where it is bound to something else: no call of the wrapper, engine/reach.py)
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef g():\n    from m import f\n    f('pre')\n", False),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef g(f):\n    f('pre')\n", False),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\ndef g():\n    f('pre')\n", True),
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nf(*modes)\n", False),  # not found after *
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nx = f\"{f('pre')}\"\n", True),  # an f-string
        ("def f(mode):\n    set_capture_flag_on_blocks(t, mode)\nwith pytest.raises(E):\n    f('pre')\n", False),
        ("class C:\n    def g(self, mode):\n        set_capture_flag_on_blocks(t, mode)\n"
         "    def h(self):\n        self.g('pre_rope')\n", False),
        ("class C:\n    def g(self, mode):\n        set_capture_flag_on_blocks(t, mode)\n"
         "    def h(self):\n        self.g(mode='pre')\n", True),
        ("class C:\n    @staticmethod\n    def g(mode):\n        set_capture_flag_on_blocks(t, mode)\n"
         "    def h(self):\n        self.g('pre')\n", False),  # a static method is no method called through self
        ("def f(*modes):\n    set_capture_flag_on_blocks(t, modes)\nf('pre')\n", False),  # a *args parameter
        # partial(f, ...): a call of f with the arguments it binds (analysis/sites.py)
        ('from functools import partial\np = partial(set_capture_flag_on_blocks, mode="pre")', True),
        ('import functools\np = functools.partial(set_capture_flag_on_blocks, mode="pre_rope")', False),
        ('from functools import partial\nrun(partial(set_capture_flag_on_blocks, t, "pre"))', True),
        ('from functools import partial\np = partial(set_capture_flag_on_blocks, t)', False),  # nothing bound
        ('from functools import partial\np = partial(set_capture_flag_on_blocks, t)\np(mode="pre")', True),  # called
        ('from functools import partial\nq = partial(g, 1)\nrun(q, set_capture_flag_on_blocks)', False),  # a callback
        ('from functools import partial\nimport pytest\nwith pytest.raises(ValueError):\n'
         '    partial(set_capture_flag_on_blocks, t, "pre")()', False),  # a negative test
        ('from functools import partial\nfrom other import set_capture_flag_on_blocks as s2\n'
         'p = partial(s2, t, "pre")', False),  # another module's function of the same name
    ],
)
def test_screen_decisions(body, may_fire):
    source = CAPTURE_IMPORT + body + "\n"
    assert default_ruleset().may_match(source) is may_fire
    assert UNSCREENED.may_match(source) or not may_fire
    if not may_fire:  # what the screen skips, the engine finds clean
        assert lint(source, None, UNSCREENED) == []


@pytest.mark.parametrize(
    "source, may_fire",
    [
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nscf(t, 'pre')\n", True),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nscf(t, 'pre_rope')\n", False),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nscf(t, mode=self.m)\n", False),
        (f"import {CAPTURE_MODULE} as m\nm.set_capture_flag_on_blocks(t, 'pre')\n", True),
        (f"import {CAPTURE_MODULE} as m\nm.set_capture_flag_on_blocks(t, 'pre_rope')\n", False),
        ("from other.place import set_capture_flag_on_blocks\nset_capture_flag_on_blocks(t, 'pre')\n", False),
        # an import under another name: the calls of that name, and the partials of it
        ("from other.place import set_capture_flag_on_blocks as s2\ns2(t, 'pre')\n", False),
        (f"from {CAPTURE_MODULE} import helper\nfrom other.place import set_capture_flag_on_blocks as s2\n"
         "s2(t, 'pre')\n", False),  # sglang's module is imported, but the alias is another module's
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nfrom functools import partial\n"
         "p = partial(scf, t, 'pre')\n", True),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nfrom functools import partial\n"
         "p = partial(scf, t, 'pre_rope')\n", False),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nfrom functools import partial\n"
         "p = partial(scf, t)\np(mode='pre')\n", True),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nimport pytest\n"
         "with pytest.raises(ValueError):\n    scf(t, 'pre')\n", False),  # a negative test
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks as scf\nclass C:\n"
         "    def f(self):\n        scf(t, 'pre')\n", True),
        # a ``**`` dict the file changes in place: the engine reads no key of it (dict_literal)
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks\nkw = {{'mode': 'pre'}}\n"
         "set_capture_flag_on_blocks(t, **kw)\n", True),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks\nkw = {{'mode': 'pre'}}\nkw.update(x=1)\n"
         "set_capture_flag_on_blocks(t, **kw)\n", False),
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks\nkw = {{'mode': 'pre'}}\n"
         "def f():\n    kw['x'] = 1\nset_capture_flag_on_blocks(t, **kw)\n", False),
        # two imports of one name in one function: the engine qualifies it to neither
        (f"def f(x):\n    if x:\n        from {CAPTURE_MODULE} import set_capture_flag_on_blocks\n"
         "        set_capture_flag_on_blocks(t, 'pre')\n    else:\n"
         "        from other.place import set_capture_flag_on_blocks\n        set_capture_flag_on_blocks(t, 'pre')\n",
         False),
        (f"def f(x):\n    if x:\n        from {CAPTURE_MODULE} import set_capture_flag_on_blocks\n"
         "        set_capture_flag_on_blocks(t, 'pre')\n", True),
        (f"import {CAPTURE_MODULE} as m\ndef f():\n    m = other()\n    m.set_capture_flag_on_blocks(t, 'pre')\n",
         False),  # a local name of the head: the module import is not seen from the call
        (f"from {CAPTURE_MODULE} import set_capture_flag_on_blocks\ndef set_capture_flag_on_blocks(t, mode):\n"
         "    pass\nset_capture_flag_on_blocks(t, 'pre')\n", False),  # bound to the import and a def
    ],
)
def test_screen_follows_import_names(source, may_fire):
    """A function or class is matched by the name its import gives it (the engine's rule)."""
    assert default_ruleset().may_match(source) is may_fire
    assert (lint(source, None, UNSCREENED) != []) is may_fire


LAUNCH = "import subprocess\n" + LAUNCH_IMPORT
COMMENTED_ARGV = {
    # a comment after an element once made a list bound to a name look like a tuple
    "name-bound, comment after an element": (
        'args = [\n    "--kv-cache-dtype",  # the dtype\n    "fp16",\n]\n'
        'popen_launch_server("m", "u", 600, other_args=args)\n'
    ),
    "name-bound, comment line inside": (
        'args = [\n    # the dtype\n    "--kv-cache-dtype", "fp16",\n]\n'
        'popen_launch_server("m", "u", 600, other_args=args)\n'
    ),
    "name-bound, a # inside a string": (
        'args = ["--served-model-name", "a#b",\n        "--kv-cache-dtype", "fp16"]\n'
        'popen_launch_server("m", "u", 600, other_args=args)\n'
    ),
    "subprocess list, comment after the launcher": (
        'cmd = [\n    "python", "-m", "sglang.launch_server",  # the server\n'
        '    "--kv-cache-dtype", "fp16",\n]\nsubprocess.Popen(cmd)\n'
    ),
    "inline list, comments inside": (
        'popen_launch_server(\n    "m",  # the model\n    "u",\n    600,\n'
        '    other_args=[\n        "--attention-backnd",  # a typo\n        "triton",\n    ],\n)\n'
    ),
    "trailing comment after a one-line list": (
        'args = ["--kv-cache-dtype", "fp16"]  # the dtype, too\n'
        'popen_launch_server("m", "u", 600, other_args=args)\n'
    ),
}


@pytest.mark.parametrize("source", COMMENTED_ARGV.values(), ids=COMMENTED_ARGV.keys())
def test_comments_never_hide_an_argv_list(source):
    source = LAUNCH + source
    unscreened = lint(source, "launch.py", UNSCREENED)
    assert unscreened, "the case must have a finding to hide"
    assert lint(source, "launch.py", default_ruleset()) == unscreened


CALL = 'popen_launch_server("m", "u", 600, other_args={})\n'


@pytest.mark.parametrize(
    "body, may_fire",
    [
        ("import sys\n" + CALL.format("sys.argv[1:]"), False),  # a slice of what it cannot read
        (CALL.format("args or []"), False),  # neither a display nor a name it follows
        (CALL.format('["--tp-sizee", "2"] if big else []'), False),
        (CALL.format("make_args()"), False),
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("ARGS[1:]"), False),  # a part of a list: not followed
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("ARGS[:]"), True),  # a copy
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("list(ARGS)"), True),
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("ARGS.copy()"), True),
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("ARGS + extra()"), True),
        ('ARGS = ["--tp-sizee", "2"]\n' + CALL.format("extra() + ARGS"), True),
        (CALL.format('["--tp-sizee", "2"]'), True),
        ("args = make_args()\n" + CALL.format("args"), False),  # a name bound to a call
        ('args = make_args()\nargs.append("--tp-sizee")\n' + CALL.format("args"), True),  # words added later
        ('args = make_args()\nargs += ["--tp-sizee"]\n' + CALL.format("args"), True),
        ("def launch(args):\n    " + CALL.format("args"), False),  # a parameter no call feeds
        ("def launch(args):\n    " + CALL.format("args") + 'launch(["--tp-sizee", "2"])\n', True),  # a wrapper
        ("def launch(args):\n    " + CALL.format("args") + 'launch(["--tp-size", "2"])\n', False),  # fed clean
        ("def launch(args):\n    " + CALL.format("args") + "launch(make_args())\n", False),  # fed unknowable
        ("def launch(args):\n    " + CALL.format("args + ['--tp', '2']") + 'launch(["--tp-sizee"])\n', True),
        ("class T:\n    def launch(self):\n        " + CALL.format("self.args"), False),  # no value anywhere
        ("class T:\n    args = ['--tp-sizee', '2']\n    def launch(self):\n        " + CALL.format("self.args"),
         True),  # a class's list
        ("class T:\n    args = ['--tp-size', '2']\n    def launch(self):\n        " + CALL.format("self.args"),
         False),  # a class's list, every word fine
        ("class T:\n    def setup(self):\n        self.args = ['--tp-sizee']\n    def launch(self):\n        "
         + CALL.format("self.args"), True),  # the list a method sets
        ("class T:\n    args: list = []\n    def launch(self):\n        " + CALL.format("['--tp-size', *self.args]"),
         False),  # a class default that is empty
        ("class T:\n    args: list = []\n    def launch(self):\n        self.args.append('--tp-sizee')\n        "
         + CALL.format("['--tp-size', *self.args]"), True),  # changed in place: unsure
        ("args = make_args()\nargs = args + ['--tp-size', '2']\n" + CALL.format("args"), False),  # x = x + [...]
        ("args = make_args()\nargs = args + ['--tp-sizee', '2']\n" + CALL.format("args"), True),
        (CALL.format("['--tp-size', '2'] + make_args() + ['--trust-remote-code']"), False),  # a concatenation
        (CALL.format("['--tp-size'] + ['2', '--attention-backend', 'tritn']"), True),  # read together
        ("for args in ([], ['--tp-sizee']):\n    " + CALL.format("args"), False),  # a loop target: not followed
        (CALL.format("config.args"), False),
        ("from os import environ as args\n" + CALL.format("args"), False),  # an import is no list
    ],
)
def test_argv_list_decisions(body, may_fire):
    """A list of flags goes on only where analysis/built.py may know a word of it."""
    source = LAUNCH_IMPORT + body
    assert default_ruleset().may_match(source) is may_fire
    found = [d.code for d in lint(source, None, UNSCREENED)]
    if not may_fire:
        assert found == []
    elif "tp-sizee" in body and "append" not in body:  # (an in-place change: the engine knows nothing)
        assert found == ["SGL009"]
    elif "tritn" in body:
        assert found == ["SGL007"]
    assert [d.code for d in lint(source, None)] == found


KIMI = ("from functools import partial\n\nfrom sglang.srt.configs.kimi_k3 import KimiK3Config\n"
        "from sglang.srt.models.kimi_k3 import KimiK3ForConditionalGeneration\n\n"
        "model = KimiK3ForConditionalGeneration(KimiK3Config(encoder_only=True))\n")


@pytest.mark.parametrize(
    "body, may_fire, found",
    [
        ("model.set_dspark_layers_to_capture([8])", True, ["SGL005"]),
        ("head = model.lm_head", True, ["SGL005"]),  # an attribute target: its receiver judged too
        ("KimiK3ForConditionalGeneration(KimiK3Config(encoder_only=True)).lm_head", True, ["SGL005"]),
        ("capture = partial(model.set_dspark_layers_to_capture, [8])\ncapture()", True, ["SGL005"]),
        ("class K(KimiK3ForConditionalGeneration):\n    def f(self):\n        return self.lm_head", False, []),
        ("class K(KimiK3ForConditionalGeneration):\n    def f(self, ids):\n"
         "        self.language_model.set_dspark_layers_to_capture(ids)", False, []),  # no constructor call
        ("models = [model]\nmodels[0].set_dspark_layers_to_capture([8])", False, []),  # a subscript
        ("# model.lm_head is None for an encoder-only model", False, []),  # a comment
        # made by a call of something else: not shown to be a Kimi-K3 (the targets' receivers)
        ("other = load()\nother.set_dspark_layers_to_capture([8])", False, []),
    ],
)
def test_guarded_member_decisions(body, may_fire, found):
    """A guarded member (a method or an attribute) goes on only where the engine may find
    the call that made its receiver (guarded_member.made_receiver)."""
    source = KIMI + body + "\n"
    assert default_ruleset().may_match(source) is may_fire
    assert [d.code for d in lint(source, None, UNSCREENED)] == found
    assert [d.code for d in lint(source, None)] == found


@pytest.mark.parametrize("body, ast_read", [
    ('MODE = "pre_rope"\nset_capture_flag_on_blocks(t, MODE)', False),  # a value the check accepts
    ('MODE = "pre"\nset_capture_flag_on_blocks(t, MODE)', True),  # one it rejects: the ast decides
    ('MODE = "pre_rope" if c else "post_rope"\nset_capture_flag_on_blocks(t, MODE)', False),
    ('BASE = "pre_rope"\nMODE = BASE\nset_capture_flag_on_blocks(t, MODE)', False),  # through a name
    ('A = MODE = "pre_rope"\nset_capture_flag_on_blocks(t, MODE)', False),  # a chained assignment
    ('A = MODE = "pre"\nset_capture_flag_on_blocks(t, MODE)', True),
    ('x, MODE = 1, "pre_rope"\nset_capture_flag_on_blocks(t, MODE)', True),  # an unpacking: unsure
    ('def f(mode="pre_rope"):\n    set_capture_flag_on_blocks(t, mode)', True),  # a default: unsure
    ("MODE = load()\nset_capture_flag_on_blocks(t, MODE)", False),  # a value the engine never knows
])
def test_the_text_stage_judges_the_values_a_name_is_assigned(body, ast_read, monkeypatch):
    """Before the file's ast is read, a bare name at a call is judged by every value the
    file's statements assign it (FileFacts.name_may_fail), each as the check judges a literal
    at the call; the file's ast is read only where one of them may fail (or cannot be read)."""
    reads = []
    real_read = AstFile.read.__func__
    monkeypatch.setattr(AstFile, "read", classmethod(lambda cls, *a, **k: reads.append(1) or real_read(cls, *a, **k)))
    source = CAPTURE_IMPORT + body + "\n"
    may_fire = default_ruleset().may_match(source)
    assert bool(reads) is ast_read
    monkeypatch.undo()
    assert may_fire is ("pre\"" in body.replace("pre_rope", ""))  # (the ast's verdict where it is read)
    assert [d.code for d in lint(source, None)] == [d.code for d in lint(source, None, UNSCREENED)]


ENCODER_OUTPUT = "from sglang.srt.multimodal.encoder_preprocessing import EncoderPreprocessOutput\n\n"


@pytest.mark.parametrize("body, found", [
    # (fails-when, ``not list(mm_items)``: an empty display is a value the engine knows)
    ("items = []\nEncoderPreprocessOutput({}, mm_items=items)\n", True),
    ("items = ()\nEncoderPreprocessOutput({}, mm_items=items)\n", True),
    ("items = [1]\nEncoderPreprocessOutput({}, mm_items=items)\n", False),
    ("items = make()\nEncoderPreprocessOutput({}, mm_items=items)\n", False),
    # changed in place (a method called on it): the engine gives it no value (CallValues._name)
    ("items = []\nitems.append(make())\nEncoderPreprocessOutput({}, mm_items=items)\n", False),
    ("items = []\n# items.append(make())\nEncoderPreprocessOutput({}, mm_items=items)\n", True),
    ("items = []\nx.items.append(make())\nEncoderPreprocessOutput({}, mm_items=items)\n", True),
    ("def f():\n    items = []\n    for x in xs:\n        items.append(x)\n"
     "    return EncoderPreprocessOutput({}, mm_items=items)\n", False),
])
def test_an_empty_display_is_a_known_value(body, found):
    """The fails-when screen reads a name's values off the file's statements before the ast
    (ast_values.TextValues) and on it (AstValues): an empty list is one it must read (the
    text screen once read only the values inside displays, and hid this finding), and a list
    the file changes in place is one the engine does not."""
    source = ENCODER_OUTPUT + body
    codes = [d.code for d in lint(source, None, UNSCREENED)]
    rule = next(r for r in default_ruleset().rules if "EncoderPreprocessOutput requires at least one item" in r.title)
    assert (rule.code in codes) is found
    assert default_ruleset().may_match(source) is found
    assert [d.code for d in lint(source, None)] == codes
    assert [d.code for d in lint(source, None, tree=ast.parse(source))] == codes  # (flake8's way: its ast given)


ENGINE_WRAPPER = ("def Engine(*args, **kwargs):\n    from sglang.srt.entrypoints.engine import Engine\n\n"
                  "    return Engine(*args, **kwargs)\n")


@pytest.mark.parametrize("caller, found", [
    ("", []),  # (sglang/lang/api.py: the inner call is sglang's Engine, no call of the wrapper)
    ("\n\nEngine(model_path='m', tp_sizee=2)\n", ["SGL009"]),  # the wrapper called: its keywords judged
    ("\n\ndef go():\n    from sglang import Engine\n    Engine(model_path='m')\n", []),
])
def test_a_wrapper_named_as_what_it_wraps(caller, found):
    """A wrapper's ``**kwargs`` are followed to the calls of the wrapper (engine/reach.py), which are
    the calls of its name where the name is bound to it, not to an import of the same name."""
    source = ENGINE_WRAPPER + caller
    assert default_ruleset().may_match(source) is bool(found)
    assert [d.code for d in lint(source, None, UNSCREENED)] == found
    assert [d.code for d in lint(source, None)] == found


@pytest.mark.parametrize("keywords, may_fire, found", [
    ("speculative_dflash_block_size=0", True, ["SGL010"]),
    ("speculative_dflash_block_size=4", False, []),  # a positive field above 0 breaks nothing
    ("speculative_draft_window_size=2, speculative_num_draft_tokens=4", True, ["SGL010"]),
    ("speculative_draft_window_size=8, speculative_num_draft_tokens=4", True, []),  # (each side alone may)
    ("speculative_draft_window_size=w, speculative_num_draft_tokens=n", False, []),  # no number the engine knows
])
def test_a_relation_is_broken_only_by_numbers(keywords, may_fire, found):
    """The relations aspect (SGL010) finds something only where a field of a relation is set
    to a number (server_args._may_break_relation): the screen rules out every other value."""
    source = f"import sglang as sgl\nsgl.Engine(model_path='m', {keywords})\n"
    assert default_ruleset().may_match(source) is may_fire
    assert [d.code for d in lint(source, None, UNSCREENED)] == found
    assert [d.code for d in lint(source, None)] == found


@pytest.mark.parametrize(
    "command, may_fire, found",
    [
        ('[sys.executable, "-m", "sglang.launch_server", "--tp-sizee", "2"]', True, ["SGL009"]),
        ('[sys.executable, "-c", f"import {module}", "--tp-sizee", "2"]', False, []),  # runs code, no launcher
        ('[sys.executable, "-m", f"sglang.launch_server", "--tp-sizee", "2"]', True, ["SGL009"]),  # no field
        ('[sys.executable, "-m", f"{pkg}.launch_server", "--tp-sizee", "2"]', False, []),  # known up to its field
        ('LAUNCHER = "sglang.launch_server"\nsubprocess.run([sys.executable, "-m", LAUNCHER, "--tp-sizee", "2"])',
         True, ["SGL009"]),  # a name: may be the launcher
        ('HEAD = ["python", "-m", "sglang.launch_server"]\nsubprocess.run([*HEAD, "--tp-sizee", "2"])', True,
         ["SGL009"]),  # spliced words: may be
        ('[shutil.which("sglang"), "serve", "--tp-sizee", "2"]', False, []),  # a call: no command the engine knows
        ('["/opt/bin/sglang", "serve", "--tp-sizee", "2"]', True, ["SGL009"]),
        ('[sys.executable, "-m", "sglang.launch_server", "--tp-size", "2"]', False, []),  # its flags judged: clean
    ],
)
def test_subprocess_command_decisions(command, may_fire, found):
    """A command list goes on only where the engine may find sglang's launcher in its words
    (launch_flags.after_launcher)."""
    call = command if "subprocess.run" in command else f"subprocess.run({command})"
    # (the comment passes the text stage: the launcher's name is in the file)
    source = f"import shutil\nimport subprocess\nimport sys\n\n# not sglang.launch_server, sglang serve\n{call}\n"
    assert default_ruleset().may_match(source) is may_fire
    assert [d.code for d in lint(source, None, UNSCREENED)] == found
    assert [d.code for d in lint(source, None)] == found


@pytest.mark.parametrize(
    "args, codes",
    [
        # a display of literals is judged by the check itself (checks/server_args/screens.py display_judge)
        ('["--tp-size", "2", "--attention-backend", "triton"]', None),
        ('("--tp-size", "2", "--trust-remote-code")', None),
        ('["--tp-size", str(tp), "--context-length", 8192, "--mem-fraction-static", 0.5 + x]', None),
        ('["--tp-sizee", "2"]', ["SGL009"]),
        ('["--tp", "2", "--attention-backend", "tritn"]', ["SGL007"]),
        ('["--tp-size", "2", "--enable-lora", "--lora-backend", "tritn"]', ["SGL006"]),  # plugin choices
        # a name bound nowhere in the file: a word of no value the engine knows (a bound one:
        # test_argv_screen_agreement's name forms)
        ('["--tp-size", TP]', None),
        ('["--tp-sizee", TP]', ["SGL009"]),
        # what the engine may know more of: an f-string's prefix, a ``*`` list
        ('[f"--tp-sizee={tp}"]', ["SGL009"]),
        ('[f"--tp-size={tp}", f"--attention-backend={backend}"]', None),  # an f-string's literal prefix
        ('[f"--tp-size={tp}", f"--speculative-dflash-block-size=0"]', ["SGL010"]),
        ('["--speculative-dflash-block-size", "0"]', ["SGL010"]),  # relations: a field of one set
        ('["--speculative-dflash-block-size", "4"]', None),  # ...to a number that breaks none
        ('["--speculative-draft-window-size", "2", "--speculative-num-draft-tokens", "4"]', ["SGL010"]),
        # relations: only a number breaks one (eagle_fixture's f-strings of class attributes)
        ('[f"--speculative-draft-window-size={w}", f"--speculative-num-draft-tokens={n}"]', None),
        ('["--speculative-draft-window-size", "8"]', "may"),  # the other side may be set elsewhere
        ('["--trust-remote-code", *EXTRA]', None),  # a list it cannot read: one unknown word
        ('["--trust-remote-code", *make_args(), "--tp-size", "2"]', None),
        ('["--trust-remote-code", *[FLAG]]', "may"),
    ],
)
def test_a_display_of_flags_is_judged_by_its_check(args, codes):
    source = LAUNCH_IMPORT + CALL.format(args)
    found = [d.code for d in lint(source, None, UNSCREENED)]
    if codes is None:
        assert default_ruleset().skip_reason(source) is not None
        assert found == []
    elif codes == "may":
        assert default_ruleset().may_match(source)
    else:
        assert default_ruleset().may_match(source)
        assert sorted(set(found)) == codes
        assert [d.code for d in lint(source, None)] == found


def test_a_binding_at_the_very_start_of_the_file():
    """The screen's binding search once read the byte before offset 0 and crashed the file."""
    source = f'MODE: str = "pre"\n{CAPTURE_IMPORT}set_capture_flag_on_blocks(t, MODE)\n'
    assert [(d.line, d.col, d.code) for d in lint(source, "x.py")] == [(3, 30, "SGL001")]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_second_look_finds_the_call_whatever_the_line_ends(newline, bom):
    """The ast stage finds a call by byte offset: line ends and a byte-order mark must not move it."""
    source = bom + (CAPTURE_IMPORT + 'x = "é"; set_capture_flag_on_blocks(t, "pre")\n').replace("\n", newline)
    data = source.encode("utf-8")
    assert default_ruleset().may_match(data) and lint(data, None, default_ruleset()) != []


SANA_CONFIG = "sglang/multimodal_gen/configs/models/dits/sana_wm.py"
SANA_IMPORT = "import sglang.multimodal_gen.configs.models.dits.sana_wm as sana_wm\n"


@pytest.mark.parametrize("path, source, may_fire", [
    (SANA_CONFIG, "class SanaWMArchConfig:\n    gdn_backend: str = 'cuda'\n", True),  # the config class itself
    ("sglang/other/place.py", SANA_IMPORT + "class SanaWMArchConfig:\n    gdn_backend: str = 'cuda'\n",
     False),  # another module's class of the same name
    ("sglang/other/place.py",
     SANA_IMPORT + "class Mine(sana_wm.SanaWMArchConfig):\n    gdn_backend: str = 'cuda'\n", True),  # a subclass
    ("sglang/other/place.py",  # nested: the engine names no nested class (analysis/bindings.py _qualified)
     SANA_IMPORT + "def f():\n    class SanaWMArchConfig:\n        gdn_backend: str = 'cuda'\n", False),
    ("sglang/other/place.py",  # bases from elsewhere (sglang.api.v1's msgspec classes)
     SANA_IMPORT + "import msgspec\nclass Mine(msgspec.Struct, frozen=True):\n    gdn_backend: str = 'cuda'\n", False),
    ("sglang/other/place.py",  # ... a class of the file that is none either
     SANA_IMPORT + "class Base(dict): pass\nclass Mine(Base):\n    gdn_backend: str = 'cuda'\nMine(gdn_backend='x')\n",
     False),
    ("sglang/other/place.py",  # a subclass of a subclass
     SANA_IMPORT + "class Base(sana_wm.SanaWMArchConfig): pass\nclass Mine(Base):\n    gdn_backend: str = 'cuda'\n",
     True),
    ("sglang/other/place.py",  # imported under another name
     "from sglang.multimodal_gen.configs.models.dits.sana_wm import SanaWMArchConfig as Cfg\n"
     "class Mine(Cfg):\n    gdn_backend: str = 'cuda'\n", True),
    ("sglang/other/place.py",  # a local subclass's call
     "from sglang.multimodal_gen.configs.models.dits.sana_wm import SanaWMArchConfig as Cfg\n"
     "def f():\n    class Mine(Cfg):\n        pass\n    return Mine(gdn_backend='cuda')\n", True),
    ("sglang/other/place.py",  # imported under another name, subclassed twice
     "from sglang.multimodal_gen.configs.models.dits.sana_wm import SanaWMArchConfig as Cfg\n"
     "class Base(Cfg):\n    pass\nclass Mine(Base):\n    gdn_backend = 'cuda'\n", True),
    ("sglang/other/place.py",  # imported under another name, a default that passes
     "from sglang.multimodal_gen.configs.models.dits.sana_wm import SanaWMArchConfig as Cfg\n"
     "class Mine(Cfg):\n    gdn_backend: str = 'triton'\n", False),
])
def test_a_config_class_line_is_the_config_class_or_may_be_a_subclass(path, source, may_fire):
    from sglang_lint.text.pynames import module_name_for

    module, is_package = module_name_for(path)
    assert (default_ruleset().skip_reason(source, module, None, is_package) is None) is may_fire
    if not may_fire:
        assert lint(source, path, UNSCREENED) == []
    if may_fire and (path == SANA_CONFIG or "Mine" in source):
        assert [d.code for d in lint(source, path, UNSCREENED)] == ["SGL003"]
        assert lint(source, path, default_ruleset()) == lint(source, path, UNSCREENED)


@pytest.mark.parametrize("body, found", [
    ("p = partial(model.set_dflash_layers_to_capture, None)\n", ["SGL004"]),  # a method bound by partial
    ("p = partial(model.set_dflash_layers_to_capture, None)\nmodel.set_dflash_layers_to_capture(layers)\n",
     ["SGL004"]),
    ("p = partial(model.set_dflash_layers_to_capture, [1, 2])\n", []),
    ("run(model.set_dflash_layers_to_capture, None)\n", []),  # a callback, no partial
])
def test_a_method_bound_by_partial_is_a_call_of_it(body, found):
    """analysis/sites.py reads ``partial(obj.method, ...)`` as a call of the method: the prefilter and
    the screen must let it through as they do ``obj.method(...)``."""
    source = "from functools import partial\n\ndef f(model, layers):\n" + "".join(
        "    " + line + "\n" for line in body.splitlines())
    assert [d.code for d in lint(source, "p.py", UNSCREENED)] == found
    assert lint(source, "p.py", default_ruleset()) == lint(source, "p.py", UNSCREENED)
    assert (default_ruleset().may_match(source)) is bool(found)


# -- the text facts the fails-when screen reads before any parse (text/scan.py) ---------------


def test_qualifying_names_are_every_name_an_import_definition_or_global_may_bind():
    from sglang_lint.text.scan import qualifying_names

    source = (
        b"import os.path, sys as system\n"
        b"from pkg import (  # a comment with a ) in it\n"
        b"    alpha,\n"
        b"    beta as gamma,\n"
        b")\n"
        b"from pkg.sub import delta, \\\n"
        b"    epsilon\n"
        b"def func(arg):\n"
        b"    global counter, total\n"
        b"    nonlocal_ish = 1\n"
        b"class Mode:\n"
        b"    pass\n"
        b"value = other.attr\n"
    )
    names = qualifying_names(source)
    for name in (b"os", b"system", b"alpha", b"gamma", b"delta", b"epsilon", b"func", b"counter", b"total",
                 b"Mode"):
        assert name in names, name
    for name in (b"value", b"other", b"arg", b"attr", b"nonlocal_ish"):
        assert name not in names, name


@pytest.mark.parametrize(
    "source, assigned",
    [
        (b"x = 1\n", True),
        (b"x: int = 1\n", True),
        (b"x: 'Dict[str, int]' = {}\n", True),
        (b"if (x := f()):\n    pass\n", True),
        (b"y, x = 1, 2\n", True),
        (b"(y,\n x) = 1, 2\n", True),
        (b"[y, \\\n x] = 1, 2\n", True),
        (b"f(x=1)\n", True),  # a keyword: a superset, only costs a parse
        (b"x == 1\n", False),
        (b"x += 1\n", False),
        (b"self.x = 1\n", False),
        (b"self.x, x = 1, 2\n", True),
        (b"ax = 1\n", False),
        (b"for x in y:\n    pass\n", False),
        (b"def f(x):\n    return x\n", False),
        (b"print(x)\ny = 2\n", False),
    ],
)
def test_may_assign_reads_every_statement_that_binds_a_name_to_a_value(source, assigned):
    from sglang_lint.text.scan import may_assign

    assert may_assign(source, b"x") is assigned


# --- the text questions, against the patterns they answer -----------------------------------

_PIECES = ["x", "xy", "as", "has", " ", "\t", "\n", "\r\n", "=", "==", "+", "|", "+=", "|=", "(", ".", "é", "_"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14), st.sampled_from(["x", "xy", "as", "_"]))
def test_the_text_binding_questions_answer_as_their_patterns(pieces, name):
    """may_rename and assigned_anyhow search from the name (fast) for what one regex tried at
    every byte of the file: the same answer on any text."""
    data = "".join(pieces).encode()
    word = re.escape(name.encode())
    bound = re.search(rb"^[ \t]*" + word + rb"[ \t]*(\+|\|)?=[^=]", data, re.M) is not None
    # (a byte of a non-ASCII letter is part of an identifier: ``as xé`` renames to ``xé``)
    renamed = re.search(rb"(?<![\w\x80-\xff])as[ \t]+" + word + rb"(?![\w\x80-\xff])", data) is not None or bound
    facts = FileFacts(data)
    assert (facts.assigned_anyhow(name), facts.may_rename(name)) == (bound, renamed)


@pytest.mark.parametrize(
    "source, expected",
    [
        # rebound through ``global`` in the function: the engine sees an unknown binding there
        ("def f():\n    global cfg\n    cfg = load()\n    return cfg.x\n", None),
        ("import numpy as cfg\n\n\ndef f():\n    global cfg\n    cfg = load()\n    return cfg.x\n", None),
        # an import through ``global``, or a ``global`` alone (the module's import): not told
        ("def f():\n    global cfg\n    import numpy as cfg\n    return cfg.x\n", UNSURE),
        ("import numpy as cfg\n\n\ndef f():\n    global cfg\n    return cfg.x\n", UNSURE),
        ("import numpy as cfg\n\n\ndef f():\n    return cfg.x\n", "numpy.x"),
    ],
)
def test_a_name_bound_through_global_qualifies_as_the_engine_reads_it(source, expected):
    """pynames.qualify_dotted: a ``global`` binding leaves the screen unsure, unless another
    binding the engine sees too rules every qualified name out (the engine: None)."""
    syntax = AstFile.read(source.encode())
    function = syntax.tree.body[-1]
    qualified = syntax.qualify(function.body[-1].value, (syntax.tree, function))
    assert qualified is expected if expected in (None, UNSURE) else qualified == expected


GATHER_IMPORT = ("from functools import partial\n"
                 "from sglang.kernels.ops.attention.flash_attn.cute.topk_gather_kv import CpasyncGatherKVManager\n"
                 "from other import Info\n")


@pytest.mark.parametrize(
    "body, may_fire",
    [
        # ``p = partial(obj.method, ...)`` then ``p(...)``: the arguments are not read there, the
        # receiver still is (a method rule that asks for receiver evidence, SGL4419's ``create``)
        ("p = partial(Info.create, 1)\np(2)", False),
        ("p = partial(thing.create, 1)\np(2)", False),
        ("p = partial(CpasyncGatherKVManager.create, 1)\np(2)", True),
        ("p = partial(Info.create, 1)", False),
    ],
)
def test_a_bound_partial_of_a_method_is_judged_by_its_receiver(body, may_fire):
    source = GATHER_IMPORT + body + "\n"
    assert default_ruleset().may_match(source) is may_fire
    assert UNSCREENED.may_match(source)
    if not may_fire:
        assert lint(source, None, UNSCREENED) == []
