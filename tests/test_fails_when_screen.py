"""The call-site screen of fails-when rules (checks/fails_when/check.py ``_screen``,
checks/fails_when/screen_values.py): every value the engine may give an argument, read on
:mod:`ast`; the call is parsed with LibCST only where the rule's expression may be true for one
of them.

* every argument written in every form a program writes it (a name, a chain of names, a
  rebinding of itself, branches, a loop, a ``global``, a function's scope, a guard, a negative
  test, a class of the file that shadows the rule's record class...), with every pair of values
  from both sides of the verdict: where the screen rules a file out, the engine without the
  screen finds nothing in it;
* the screen's own decisions: the forms it now rules out without LibCST, and those it must not.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from pathlib import Path

import pytest

from sglang_lint import lint
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.sites.writing import write_catalog
from sglang_lint.engine.ruletable import RuleSet, load_rules
from sglang_lint.screen.prefilter import SKIPPED_BY_SCREEN
from sglang_lint.text.pynames import module_name_for

TREE = Path(__file__).resolve().parent / "derive_tree"
HEADER = """\
import pytest
import torch
from types import SimpleNamespace

from sglang.modes.objects import Backend, WindowConfig, backend_path, block_sizes, fused_norm
from sglang.modes.objects import pack_sizes, resolve_window
from sglang.modes.paths import patchify, plan_layers, target_depth
from sglang.modes import objects as objects_module
"""

# (the call with ``{}`` where the argument goes, values for it: the rule's bad ones and good ones)
CALLS = [
    ("plan_layers({}, 8)", ["9", "4", "0", "-1", "8.5"]),
    ("target_depth({})", ["0", "12", "None"]),
    ("target_depth(config={})", ['{"num_hidden_layers": 0}', '{"num_hidden_layers": 3}', "{**BASE}",
                                 '{**BASE, "num_hidden_layers": 0}', "dict(num_hidden_layers=0)"]),
    ("patchify({})", ["torch.zeros(1, 16, 1, 63, 64)", "torch.zeros(1, 16, 1, 64, 64)", "torch.zeros(4, 8)",
                      "torch.zeros(1, 16, 1, 63, 64).view(1, 16, 1, 4032, 1)"]),
    ("patchify({}, patch_size=3)", ["torch.zeros(1, 2, 1, 9, 9)", "torch.zeros(1, 2, 1, 9, 10)"]),
    ("fused_norm({})", ["torch.zeros(4, 8)", 'torch.zeros(4, 8, device="cuda")', "torch.zeros(4, 8).cuda()",
                        'torch.ones(2, device=torch.device("cpu"))']),
    ("block_sizes({})", ['torch.device("cpu")', 'torch.device("cuda")', "None"]),
    ("resolve_window({}, server_window=4)", ["WindowConfig(window=8)", "WindowConfig(window=2)",
                                             "SimpleNamespace(window=8)", "SimpleNamespace(window=4)"]),
    ("backend_path({})", ["Backend.VMOBA", "Backend.SDPA", "Backend.SLIDING", "None"]),
    # an enum member through a module's name: the dotted name's head is an import (textscan.qualifying_names)
    ("backend_path({})", ["objects_module.Backend.VMOBA", "objects_module.Backend.SDPA", "holder.Backend.VMOBA"]),
    ("pack_sizes({})", ["[4096, 6000]", "[4096, 0, 8192]", "(64, 128)", "[64 * 3, 100 + 28]"]),
]

# How a program writes the argument: ``{call}`` is the call with ``x`` in the argument's place,
# ``{value}`` and ``{other}`` are values of the same call's list.
FORMS = [
    "{direct}",
    "x = {value}\n{call}",
    "x = {value}\ny = x\n{call_y}",
    "x = {value}\nx = x\n{call}",
    "x = {value}\nif flag:\n    x = {other}\n{call}",
    "if flag:\n    x = {value}\nelse:\n    x = {other}\n{call}",
    "x = {value}\nfor _ in range(2):\n    x = x\n{call}",
    "x = {value}\nx = x if flag else x\n{call}",
    "x = {value}\ndef f():\n    {call}\n",
    "def f():\n    x = {value}\n    {call}\n",
    "def f(x={value}):\n    {call}\n",
    "def f(x):\n    {call}\nf({value})\n",
    "x = {other}\ndef g():\n    global x\n    x = {value}\n{call}",
    "x = {value}\nif x is not None:\n    {call}\n",
    "x = {value}\nx.update(a=1)\n{call}",
    "x = {value}\nx.append(1)\n{call}",
    "x = {value}\n# x.append(1)\ny.x.append(1)\n'x.append(1)'\n{call}",
    "with pytest.raises(ValueError):\n    {direct}\n",
    "with pytest.raises(ValueError, match='x'):\n    x = {value}\n    {call}\n",
    "class T:\n    def test(self):\n        with self.assertRaises(ValueError):\n            {direct}\n",
    "try:\n    {direct}\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError('no raise')\n",
    "try:\n    {direct}\nexcept ValueError:\n    pass\nelse:\n    print('no raise')\n",
    "pytest.raises(ValueError, lambda: {direct})\n",
    "class WindowConfig:\n    def __init__(self, window=None):\n        self.window = window\n{direct}",
    "def f():\n    class WindowConfig:\n        pass\n    {direct}\n",
    # (relative imports: resolved where the file's module is known, see MODULE_PATH)
    "from .objects import WindowConfig\n{direct}",
    "from .objects import WindowConfig as Config\nx = Config(window=8)\n{call}",
    "from .missing import WindowConfig\n{direct}",
    "from ... import WindowConfig\n{direct}",
    "x = {value}\nBASE = {{'num_hidden_layers': 0}}\n{call}",
    "BASE = {{'num_hidden_layers': 5}}\nx = {value}\n{call}",
    # a ``**`` mapping, read as analysis/resolve.py's dict_literal reads one
    "kw = {{'start_layer': {value}}}\nplan_layers(**kw, end_layer=8)\n",
    "kw = dict(start_layer={value})\nplan_layers(**kw, end_layer=8)\n",
    "kw = make_kwargs()\nplan_layers(**kw, end_layer=8)\n",
    "def f(**kw):\n    plan_layers(**kw, end_layer=8)\nf(start_layer={value})\n",
    "kw = {{}}\nkw['start_layer'] = {value}\nplan_layers(**kw, end_layer=8)\n",
    # the bindings the text screen must see as assignments (textscan.may_assign)
    "x: object = {value}\n{call}",
    "x, y = {value}, {other}\n{call}",
    "(y,\n x) = {other}, {value}\n{call}",
    "[y, \\\n x] = {other}, {value}\n{call}",
    "if (x := {value}) is not None:\n    {call}\n",
    "class K:\n    x = {value}\n    {call}\n",
    "def g():\n    global x\n    x = {value}\ng()\n{call}",
    # the values the text screen reads off each binding (screen/calls.py ``_assigned_values``)
    "def f(x):\n    {call}\nf(x={value})\n",
    "def f(y, x):\n    {call}\nf(1,\n  x={value})\n",
    "def f(x: object = {value}):\n    {call}\n",
    "x: dict[str, object] = {value}\n{call}",
    "x = (\n    {value}\n)  # note\n{call}",
    "if flag: x = {value}\n{call}",
    "y = x = {value}\n{call}",
    "x = y = {value}\n{call}",
    "x = {value}; y = 1\n{call}",
    "print(f'{{(x := {value})}}')\n{call}",
    "for x in [{value}]:\n    {call}\n",
    "x, *rest = {value}, {other}\n{call}",
    "(x,) = ({value},)\n{call}",
    "x = make()\nx.attr = {value}\n{call}",
    "x = {value}\ntable[x] = {other}\n{call}",
    "print('x = {value}')  # x = {value}\nx = make()\n{call}",
    # only the bindings that reach the call (screen/ast_flow.py), or all that may
    "if flag:\n    x = {other}\nx = {value}\n{call}",
    "if flag:\n    x = {other}\nelse:\n    x = {value}\n    {call}\n",
    "x = {value}\n{call}\nx = {other}\n",
    "x = {other}\nx = {value}; {call}\n",
    "x = {other}\nx = {value}; \\\n{call}\n",
    "x = {other}\ndef f():\n    {call}\nx = {value}\n",
    "def f():\n    x = {value}\n    y = [{call} for _ in range(2)]\n    x = {other}\n",
    "def f(x={other}):\n    x = {value}\n    {call}\n",
    "x = {value}\ny = x\nx = {other}\n{call_y}",
    "x = {other}\nfor _ in range(2):\n    {call}\n    x = {value}\n",
]


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    rules = tmp_path_factory.mktemp("rules")
    write_catalog(derive_sites(TREE, index_raises=True), rules)
    return RuleSet([r for r in load_rules([rules]) if r.checks[0].kind == "fails-when"])


def _program(call: str, form: str, value: str, other: str) -> str:
    body = form.format(direct=call.format(value), call=call.format("x"), call_y=call.format("y"),
                       value=value, other=other)
    return HEADER + "flag = len(__name__) > 3\n" + body + "\n"


# A file inside the stand-in package: its module is known (sglang.modes.user_test), so its
# top-level classes and its relative imports are qualified.
MODULE_PATH = "sglang/modes/user_test.py"


@pytest.mark.parametrize("call, values", CALLS, ids=[call for call, _ in CALLS])
def test_the_screen_never_hides_a_finding(ruleset, call, values):
    # every form, every pair of values: where the screen rules the file out, the engine
    # without it must find nothing (where it lets the file through, the same engine runs)
    unscreened = RuleSet(ruleset.rules, screen=False)
    screened = found = 0
    for form, value, other in itertools.product(FORMS, values, values):
        source = _program(call, form, value, other)
        for path in ("user.py", MODULE_PATH) if "WindowConfig" in form else ("user.py",):
            if _skip(ruleset, source, path) is not None:
                screened += 1
                assert lint(source, path, unscreened) == [], (path, source)
            elif lint(source, path, ruleset):
                found += 1
    assert screened and found  # both sides of the verdict are tried


def _skip(ruleset, source: str, path: str) -> str | None:
    """Why the screens skip the file: from its text, and (flake8's way) with its ast given;
    where either skips it, the engine without the screen must find nothing, so the stricter
    verdict of the two is the one the tests hold to."""
    module, is_package = module_name_for(path)
    reasons = [ruleset.skip_reason(source, module, None, is_package),
               ruleset.skip_reason(source, module, ast.parse(source), is_package)]
    return next((reason for reason in reasons if reason is not None), None)


def _stage(ruleset, body: str) -> str | None:
    return ruleset.skip_reason(HEADER + body, None)


@pytest.mark.parametrize(
    "body",
    [
        # names bound to tensors, displays and records the rule's expression is false for
        'x = torch.zeros(4, 8, device="cuda")\nfused_norm(x)\n',
        'x = torch.zeros(4, 8, device="cuda")\nx = x.view(8, 4)\nfused_norm(x)\n',  # rebinds itself
        'x = torch.zeros(4, 8, device="cuda")\nfor _ in range(3):\n    x = x.contiguous()\nfused_norm(x)\n',
        "cfg = WindowConfig(window=2)\nresolve_window(cfg, server_window=4)\n",
        "LENS = [64, 128]\nLENS2 = LENS\npack_sizes(LENS2)\n",
        "def f():\n    lens = (64 * 2, 64)\n    pack_sizes(lens)\n",
        "x = torch.zeros(1, 16, 1, 64, 64)\ny = x if flag else x\npatchify(y)\n",
        "c = {'num_hidden_layers': 3}\ntarget_depth(config=c)\n",
        # two tensors are never known to be equal: a conditional between them is unknown
        "x = torch.zeros(1, 16, 1, 63, 64)\ny = x if flag else x\npatchify(y)\n",
        # the module's own binding reaches the call; the function's ``global`` one is not called before it
        "n = 0\ndef g():\n    global n\n    n = 9\nplan_layers(n, 8)\n",
        # negative tests: the engine makes no site of the call
        "with pytest.raises(ValueError):\n    fused_norm(torch.zeros(4, 8))\n",
        "class T:\n    def test(self):\n        with self.assertRaises(ValueError):\n            plan_layers(9, 8)\n",
        "try:\n    plan_layers(9, 8)\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError\n",
        "x = torch.zeros(4, 8)\nwith pytest.raises(ValueError):\n    fused_norm(x)\n",
        # a ``**`` mapping bound to a call that is no ``dict(...)``: never read as a dict
        "def f():\n    kw = make_kwargs()\n    plan_layers(**kw, end_layer=8)\n",
        "kw = dict(base, start_layer=9)\nplan_layers(**kw, end_layer=8)\n",
        # ``self`` in a class that cannot derive from the receiver's (ast_receivers.receiver_may_be)
        "from sglang.modes.objects import DenseBuilder\nclass Other:\n    def go(self):\n        self.set_rate(1.5)\n",
    ],
)
def test_forms_the_screen_rules_out(ruleset, body):
    assert _stage(ruleset, body) == SKIPPED_BY_SCREEN
    assert lint(HEADER + body, "user.py", RuleSet(ruleset.rules, screen=False)) == []


@pytest.mark.parametrize(
    "body, line",
    [
        ("x = torch.zeros(4, 8)\nfused_norm(x)\n", 10),
        ('x = torch.zeros(4, 8, device="cuda")\nx = x.cpu()\nfused_norm(x)\n', None),  # .cpu(): not followed
        ("x = torch.zeros(4, 8)\ny = x.view(8, 4)\nfused_norm(y)\n", 11),
        ("x = torch.zeros(4, 8)\nx = x.view(8, 4)\nfused_norm(x)\n", None),  # a name rebound from itself
        ("cfg = WindowConfig(window=8)\nresolve_window(cfg, server_window=4)\n", 10),
        ("LENS = [64, 100]\nLENS2 = LENS\npack_sizes(LENS2)\n", 11),
        # a call that may pass a bad value in some way the engine reads: parsed, whatever the verdict
        ("if flag:\n    n = 9\nelse:\n    n = 0\nplan_layers(n, 8)\n", None),
        ("n = 0\ndef g():\n    global n\n    n = 9\n    plan_layers(n, 8)\n", None),  # a ``global``
        ("try:\n    plan_layers(9, 8)\nexcept ValueError:\n    pass\nelse:\n    print('no raise')\n", 10),
    ],
)
def test_forms_the_screen_lets_through(ruleset, body, line):
    assert _stage(ruleset, body) is None
    found = [d.line for d in lint(HEADER + body, "user.py", ruleset)]
    assert found == ([line] if line else [])


@pytest.mark.parametrize("window, screened", [(2, True), (8, False)])
def test_a_relative_import_of_a_record_class_is_followed_where_the_module_is_known(ruleset, window, screened):
    source = f"from .objects import WindowConfig as Config, resolve_window\nresolve_window(Config(window={window}), " \
             "server_window=4)\n"
    assert (_skip(ruleset, source, MODULE_PATH) == SKIPPED_BY_SCREEN) is screened
    assert [d.line for d in lint(source, MODULE_PATH, ruleset)] == ([] if screened else [2])
    # outside a known package the import cannot be resolved: the engine knows no record there
    assert _skip(ruleset, source, "user.py") == SKIPPED_BY_SCREEN
    assert lint(source, "user.py", RuleSet(ruleset.rules, screen=False)) == []


# Methods matched on their receiver's class (engine/dispatch.py ``effective_target``): each receiver
# form, with a bad and a good value; ``{r}`` is the receiver, ``{v}`` the value.
RECEIVER_HEADER = """\
from sglang.modes.objects import Backend, CpuPlatform, DenseBuilder, GpuPlatform, SparseBuilder
from sglang.modes import objects
from sglang.modes.objects import DenseBuilder as Builder
"""
# ``self.b`` made one of the receiver's class, and written once more in another method
ATTRIBUTE_FORM = ("class T:\n    def __init__(self):\n        self.b = {{make}}\n    def reset(self, other):\n"
                  "        {write}\n    def go(self):\n        self.b.{{method}}({{v}})\n")
RECEIVER_FORMS = [
    "{make}.{method}({v})",
    "b = {make}\nb.{method}({v})",
    "b = {make}\nc = b\nc.{method}({v})",
    "b = {make}\nif flag:\n    b = SparseBuilder()\nb.{method}({v})",
    "def f():\n    b = {make}\n    b.{method}({v})\n",
    "b = {make}\ndef f(b):\n    b.{method}({v})\n",
    "class Mine({cls}):\n    def go(self):\n        self.{method}({v})\n",
    "class Mine({cls}):\n    def go(self):\n        super().{method}({v})\n",
    "class Other:\n    def go(self):\n        self.{method}({v})\n",
    # ``self`` of a method: its class may be the receiver's only where it may derive from it
    "class Base({cls}):\n    pass\nclass Mine(Base):\n    def go(self):\n        self.{method}({v})\n",
    "class Mine({cls}):\n    def go(self):\n        def inner():\n            self.{method}({v})\n        inner()\n",
    "class Mine({cls}):\n    def go(self):\n        return lambda: self.{method}({v})\n",
    "class Mine({cls}):\n    def go(self):\n        self = make()\n        self.{method}({v})\n",
    "class Other:\n    def go(self):\n        def inner():\n            self.{method}({v})\n        inner()\n",
    "class Other:\n    @staticmethod\n    def go(self):\n        self.{method}({v})\n",
    "def go(self):\n    self.{method}({v})\n",
    "class Other(Unknown):\n    def go(self):\n        self.{method}({v})\n",
    "class Mine({cls}):\n    pass\nMine().{method}({v})\n",
    "class Mine({cls}):\n    pass\nMine.{method}({v})\n",
    "{cls}.{method}({v})",
    "holder.b.{method}({v})",
    "class T:\n    def __init__(self):\n        self.b = {make}\n    def go(self):\n        self.b.{method}({v})\n",
    # ``self.b``: evidence where the class annotates b or assigns it only values that may be
    # evidence (screen/ast_receivers.py)
    *(ATTRIBUTE_FORM.format(write=write) for write in (
        "self.b, self.n = other, 1", "[self.b, *rest] = other", "self.b += other", "for self.b in other: pass",
        "with other as self.b: pass", "self.b = other", "self.b: {cls} = other", "self.c = other",
        "[0 for self.b in other]", "class Inner:\n            def f(self):\n                self.b = other")),
    "class T:\n    b: {cls}\n    def go(self):\n        self.b.{method}({v})\n",
    "class T:\n    b = {make}\n    def go(self):\n        self.b.{method}({v})\n",
    "class T:\n    def go(self):\n        self.b.{method}({v})\n",
    "def g():\n    global b\n    b = {make}\ndef f():\n    b.{method}({v})\n",
    "with pytest.raises(ValueError):\n    {make}.{method}({v})\n",
]
RECEIVER_CALLS = [  # (class as written, how it is made, method, values)
    (cls, make, "set_rate", ["1.5", "0.5"])
    for cls, make in [("DenseBuilder", "DenseBuilder()"), ("Builder", "Builder()"),
                      ("objects.DenseBuilder", "objects.DenseBuilder()"), ("SparseBuilder", "SparseBuilder()")]
] + [(cls, f"{cls}()", "pick_backend", ["Backend.SLIDING", "Backend.SDPA", "Backend.VMOBA, heads=3"])
     for cls in ("CpuPlatform", "GpuPlatform")]


@pytest.mark.parametrize("cls, make, method, values", RECEIVER_CALLS, ids=[c[1] for c in RECEIVER_CALLS])
def test_the_receiver_screen_never_hides_a_finding(ruleset, cls, make, method, values):
    unscreened = RuleSet(ruleset.rules, screen=False)
    screened = found = 0
    for form, value in itertools.product(RECEIVER_FORMS, values):
        source = "import pytest\n" + RECEIVER_HEADER + "flag = len(__name__) > 3\n" + form.format(
            make=make, cls=cls, method=method, v=value) + "\n"
        if _skip(ruleset, source, "user.py") is not None:
            screened += 1
            assert lint(source, "user.py", unscreened) == [], source
        elif lint(source, "user.py", ruleset):
            found += 1
    assert screened and (found or cls == "SparseBuilder")  # (no stand-in rule of SparseBuilder reads 1.5)


@pytest.mark.parametrize("write", ["self.n = 1", "self.d[0] = 1", "for self.n in range(2): pass",
                                   "with open(p) as self.f: pass", "(self.a, [*self.b]) = (1, [2])"])
def test_a_method_that_writes_through_self_still_reads_self_as_its_parameter(ruleset, write):
    """``self.n = ...`` binds no name (analysis/syntax.py ``target_names``): ``self`` stays the
    method's parameter, so a class that cannot derive from the receiver's is ruled out."""
    for cls, found in (("DenseBuilder", True), ("object", False)):
        source = RECEIVER_HEADER + textwrap.dedent(f"""
            class Mine({cls}):
                def go(self, p):
                    {write}
                    self.set_rate(1.5)
            """)
        assert bool(lint(source, "user.py", RuleSet(ruleset.rules, screen=False))) is found
        assert _skip(ruleset, source, "user.py") == (None if found else SKIPPED_BY_SCREEN)


@pytest.mark.parametrize("write, found", [
    ("self.b, self.n = other, 1", False),  # unpacked, added to, a loop or ``with`` target: no one value
    ("self.b += other", False),
    ("for self.b in other: pass", False),
    ("with other as self.b: pass", False),
    ("self.b = other", False),  # an unannotated parameter, read where it is written: no evidence
    ("self.b = DenseBuilder()", True),
    ("self.b: DenseBuilder = other", True),  # annotated: the annotation is the evidence
])
def test_a_self_attribute_the_class_gives_no_one_value_is_ruled_out_by_the_screen(ruleset, write, found):
    form = ATTRIBUTE_FORM.format(write=write)
    source = RECEIVER_HEADER + form.format(make="DenseBuilder()", method="set_rate", v="1.5")
    assert bool(lint(source, "user.py", RuleSet(ruleset.rules, screen=False))) is found
    screened = write.startswith(("self.b,", "self.b +=", "for", "with", "self.b = other"))
    assert _skip(ruleset, source, "user.py") == (SKIPPED_BY_SCREEN if screened else None)


@pytest.mark.parametrize(
    "body, ast_read",
    [
        # an attribute whose head no import or definition binds: never an enum member or dtype
        ("def f(self):\n    backend_path(self.backend)\n", False),
        ("def f(cfg):\n    fused_norm(cfg.model.tensor)\n", False),
        # a name no statement of the file assigns (a parameter, a loop variable)
        ("def f(y):\n    plan_layers(y, 8)\n", False),
        ("for n in range(3):\n    plan_layers(n, 8)\n", False),
        ("def f(n):\n    if n == 3:\n        plan_layers(n, 8)\n", False),
        # what the file assigns the name, read statement by statement (screen/calls.py ``_assigned_values``)
        ("def f(n=9):\n    plan_layers(n, 8)\n", False),  # a parameter's default: not read by the engine
        ("def f(n):\n    plan_layers(n, 8)\nf(n=9)\n", False),  # a keyword argument binds nothing here
        ("n = make()\nplan_layers(n, 8)\n", False),  # a value the engine cannot know
        ("n = other = make()\n# n = 9\nprint('n = 9')\nn.x = 9\nd[n] = 9\nplan_layers(n, 8)\n", False),
        ("def f(n: dict[str, int] = {}):\n    plan_layers(n, 8)\n", False),
        ("n = 9\nplan_layers(n, 8)\n", True),  # a literal
        ("n = make()\nm = n\nplan_layers(m, 8)\n", False),  # through a name, to what it holds
        ("n = 9\nm = n\nplan_layers(m, 8)\n", True),
        ("n: dict[str, int] = 9\nplan_layers(n, 8)\n", True),
        ("print(f'{(n := 9)}')\nplan_layers(n, 8)\n", True),  # ``:=`` in an f-string
        ("n, m = 9, 1\nplan_layers(n, 8)\n", True),  # an unpacking: unsure
        # what the file's words may make known: read on the ast
        ("def f(self):\n    backend_path(objects_module.Backend.VMOBA)\n", True),  # a module alias heads it
        ("class Mode:\n    VMOBA = 1\ndef f():\n    backend_path(Mode.VMOBA)\n", True),  # a class of the file
        ("def f(y):\n    y2, n = y, 9\n    plan_layers(n, 8)\n", True),  # an unpacking assigns n
        ("def f():\n    global n\n    plan_layers(n, 8)\n", True),
    ],
)
def test_what_the_text_screen_decides_before_the_ast(ruleset, body, ast_read, monkeypatch):
    # textscan.qualifying_names / may_assign: decided on the call's own text and the file's
    # words, the file's ast never read; a file it rules out has no finding without the screen
    from sglang_lint.screen import ast_scopes

    reads = []
    real_read = ast_scopes.AstFile.read.__func__
    monkeypatch.setattr(ast_scopes.AstFile, "read", classmethod(lambda cls, *a, **k: reads.append(1)
                                                                or real_read(cls, *a, **k)))
    skipped = _stage(ruleset, body)
    assert reads == ([1] if ast_read else [])
    monkeypatch.undo()
    if not ast_read:
        assert skipped == SKIPPED_BY_SCREEN
        assert lint(HEADER + body, "user.py", RuleSet(ruleset.rules, screen=False)) == []
