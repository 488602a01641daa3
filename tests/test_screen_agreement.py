"""The screen cannot contradict the engine: a property test (hypothesis).

For every value check of the catalog (one argument judged by the check kind's ``fails``) and
for the server-argument checks, the checked argument is written in each form the engine
follows (a literal by keyword or position, a module constant, an annotated constant, a
parameter default, a wrapper function or method, a conditional, ``**{...}``, a dict name,
``functools.partial``, an import alias, comments inside the call, a guard, a rebinding, a
negative test...) with values drawn from both sides of the verdict; linting with the
call-site screen and without it must give the same findings. A form the engine learns and
the screen does not shows up here as a finding only the unscreened run has.

CI runs a bounded, derandomized number of examples; ``SGLANG_LINT_FUZZ_EXAMPLES`` asks for
more (and random ones), as in test_fuzz.py.
"""

from __future__ import annotations

import ast
import itertools
import os
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import engine_table
from sglang_lint import lint
from sglang_lint.checks import CHECK_KINDS
from sglang_lint.engine.ruletable import RuleSet, default_rules

EXAMPLES = int(os.environ.get("SGLANG_LINT_FUZZ_EXAMPLES", "250"))
PROPERTY = settings(
    max_examples=EXAMPLES, deadline=None, derandomize="SGLANG_LINT_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)
SCREENED = RuleSet(default_rules())
UNSCREENED = RuleSet(default_rules(), screen=False)


@dataclass(frozen=True)
class Checked:
    """A callable a value check judges, how to import and call it, and values to try."""

    code: str
    header: str  # the import that makes the callee resolve
    callee: str  # how the call is written
    argument: str | None
    position: int | None
    values: tuple
    fields: bool = False  # a config class: its fields' defaults in a subclass are keywords too


COMMON_VALUES = (None, True, False, 0, 1, -1, 2.5, "", "x", "auto")


class Expr(str):
    """A value written as code (an enum member), not as a literal."""

    def __repr__(self) -> str:
        return str(self)


def _value_checks() -> list[Checked]:
    found = []
    for rule in default_rules():
        for check in rule.checks:
            if CHECK_KINDS[check.kind].fails is None:
                continue
            values = tuple(getattr(check.params, "values", ()))
            near = tuple(f"{v}_" for v in values if isinstance(v, str))  # a misspelling of each
            enum = getattr(check.params, "enum", None)
            prelude = ""
            if enum:  # members of the enum, allowed and not, by the enum's name
                module, _, owner = enum.rpartition(".")
                prelude = f"from {module} import {owner}\n"
                values, near = tuple(Expr(f"{owner}.{v}") for v in values), tuple(Expr(f"{owner}.{v}X") for v in values)
            for target in check.targets:
                if target.kind in ("function", "class"):
                    module, _, name = target.name.rpartition(".")
                    header, callee = f"{prelude}from {module} import {name}\n", name
                elif target.kind == "method" and not target.receivers:
                    header, callee = prelude, f"thing.{target.name}"
                elif target.kind == "method":  # on an instance the engine can tell is one of the receivers
                    module, _, owner = target.receivers[0].rpartition(".")
                    header, callee = f"{prelude}from {module} import {owner}\n", f"{owner}().{target.name}"
                else:
                    continue
                found.append(Checked(rule.code, header, callee, target.argument, target.position,
                                     values + near + COMMON_VALUES, bool(getattr(target, "fields", False))))
    return found


def _server_arg_checks() -> list[Checked]:
    """Keywords of ``sglang.Engine``: every field with choices, and a few typed ones."""
    table = engine_table()
    found = []
    with_choices = [f for f in table.fields.values() if f.choices][:20]
    typed = [f for f in table.fields.values() if not f.choices and f.type in ("int", "float", "bool", "str")][:10]
    for field in with_choices + typed:
        near = tuple(f"{c}_" for c in field.choices[:2] if isinstance(c, str))
        found.append(Checked("SGL006", "import sglang as sgl\n", "sgl.Engine", field.name, None,
                             tuple(field.choices[:3]) + near + COMMON_VALUES + ("2",)))
    return found


CHECKED = _value_checks() + _server_arg_checks()
# Half the draws go to the curated rules (SGL001-SGL099: enum members, receivers, wrappers...),
# which would otherwise be a few among hundreds of derived targets.
CURATED = [c for c in CHECKED if int(c.code[3:]) < 100]


def _call(checked: Checked, value: str, positional: bool = False) -> str:
    if positional:
        return f"{checked.callee}({'0, ' * checked.position}{value})"
    return f"{checked.callee}({checked.argument}={value})"


def _forms(checked: Checked, v: str, w: str) -> dict[str, str]:
    """The ways the checked argument can be written, each a module's source."""
    call = lambda value: _call(checked, value, checked.argument is None)  # noqa: E731
    forms = {
        "literal": call(v),
        "constant": f"VALUE = {v}\n{call('VALUE')}",
        "annotated-constant": f"VALUE: object = {v}\n{call('VALUE')}",
        "chained-constant": f"OTHER = VALUE = {v}\n{call('VALUE')}",
        "unpacked-constant": f"VALUE, OTHER = {v}, {w}\n{call('VALUE')}",
        "constant-of-a-constant": f"BASE = {v}\nVALUE = BASE if flag else BASE\n{call('VALUE')}",
        "default": f"def run(value={v}):\n    {call('value')}\n",
        "wrapper": f"def run(value):\n    {call('value')}\n\n\nrun({v})\n",
        "wrapper-called-in-a-function": f"def run(value):\n    {call('value')}\n\n\ndef go():\n    run({v})\n",
        "wrapper-shadowed": (f"def run(value):\n    {call('value')}\n\n\ndef go():\n    from elsewhere import run\n"
                             f"    run({v})\n"),
        "method-wrapper": (
            f"class Runner:\n    def run(self, value):\n        {call('value')}\n\n"
            f"    def go(self):\n        self.run({v})\n"
        ),
        "conditional": call(f"{v} if flag else {w}"),
        "rebound": f"VALUE = {v}\nVALUE = {w}\n{call('VALUE')}",
        "branches": f"if flag:\n    VALUE = {v}\nelse:\n    VALUE = {w}\n{call('VALUE')}",
        "guarded": f"VALUE = {v}\nif VALUE is not None:\n    {call('VALUE')}\n",
        "walrus": call(f"(value := {v})"),
        "negative-test": f"import pytest\n\nwith pytest.raises(ValueError):\n    {call(v)}\n",
        "in-loop": f"for VALUE in ({v}, {w}):\n    {call('VALUE')}\n",
        **_guard_forms(call, v, w),
        **_flow_forms(call, v, w),
    }
    if checked.argument is not None:
        name = checked.argument
        forms.update({
            "comments": f"{checked.callee}(\n    # why\n    {name}={v},  # note\n)\n",
            "dict-literal": f"{checked.callee}(**{{{name!r}: {v}}})",
            "dict-name": f"options = {{{name!r}: {v}}}\n{checked.callee}(**options)",
            "dict-changed": f"options = {{{name!r}: {v}}}\noptions[{name!r}] = {w}\n{checked.callee}(**options)",
            # dicts that do not hold the argument (ast_scopes.mapping_lacks): one read, two in branches
            "dict-lacks-it": f"options = {{'zz_other': 1}}\n{checked.callee}({name}={v}, **options)",
            "dict-lacks-it-branches": (f"if flag:\n    options = {{'zz_other': 1}}\nelse:\n    options = dict(zz=2)\n"
                                       f"{checked.callee}(**options)"),
            "dict-has-it-in-a-branch": (f"if flag:\n    options = {{{name!r}: {v}}}\nelse:\n    options = {{}}\n"
                                        f"{checked.callee}(**options)"),
            # a dict the file changes in place (any method called on it, an item set, anywhere):
            # the engine reads no key of it (analysis/resolve.py dict_literal)
            "dict-updated": (f"options = {{{name!r}: {v}}}\noptions.update(zz_other=1)\n"
                             f"{checked.callee}(**options)"),
            "dict-read-by-a-method": (f"options = {{{name!r}: {v}}}\nprint(options.get('zz'))\n"
                                      f"{checked.callee}(**options)"),
            "dict-changed-elsewhere": (f"options = dict({name}={v})\n\n\ndef later():\n    options['zz'] = 1\n\n\n"
                                       f"{checked.callee}(**options)"),
            # a dict bound once (ast_scopes.one_dict: its values judged as the call's own)
            "dict-call-name": f"options = dict({name}={v}, zz_other=2)\n{checked.callee}(**options)",
            "dict-name-in-a-function": (f"OPTIONS = {{{name!r}: {v}}}\n\n\ndef go():\n"
                                        f"    {checked.callee}(**OPTIONS)\n"),
            "dict-name-rebound-by-global": (f"options = {{{name!r}: {v}}}\n\n\ndef reset():\n    global options\n"
                                            f"    options = {{}}\n\n\n{checked.callee}(**options)"),
            # a wrapper's mapping: followed by the server-argument checks only (engine/reach.py)
            "kwargs-wrapper": f"def run(**options):\n    {checked.callee}(**options)\n\n\nrun({name}={v})\n",
            "dict-parameter-wrapper": (f"def run(options):\n    {checked.callee}(**options)\n\n\n"
                                       f"run({{{name!r}: {v}}})\n"),
            "partial": f"import functools\n\nrun = functools.partial({checked.callee}, {name}={v})\nrun()\n",
            "keyword-parenthesized": f"{checked.callee}({name}=({v}))",
        })
        if checked.header.startswith("from ") and "." not in checked.callee:
            module = checked.header.split()[1]
            forms["alias"] = f"from {module} import {checked.callee} as other\nother({name}={v})"
            if checked.fields:
                forms["alias-subclass-field"] = (
                    f"from {module} import {checked.callee} as Other\n\n\nclass Mine(Other):\n    {name} = {v}\n")
        if checked.fields:
            forms.update({
                "subclass-field": f"class Mine({checked.callee}):\n    {name}: object = {v}\n",
                "subclass-of-subclass-field": (
                    f"class Base({checked.callee}):\n    pass\n\n\nclass Mine(Base):\n    {name} = {v}\n"),
                "subclass-call": f"class Mine({checked.callee}):\n    pass\n\n\nMine({name}={v})\n",
                "other-base-field": f"import msgspec\n\n\nclass Mine(msgspec.Struct):\n    {name} = {v}\n",
            })
    if checked.position is not None:
        forms["positional"] = _call(checked, v, positional=True)
        forms["positional-after-star"] = f"{checked.callee}(*rest, {v})"
    return forms


def _guard_forms(call, v: str, w: str) -> dict[str, str]:
    """The argument a name that a condition in force at the call may test (analysis/guards.py): the
    engine does not guess at its value there, nor the screen (screen/ast_guards.py)."""
    return {
        "guard-assert": f"VALUE = {v}\nassert VALUE\n{call('VALUE')}\n",
        "guard-early-exit": f"def run(value={v}):\n    if value is None:\n        return\n    {call('value')}\n",
        "guard-wrapper": (f"def run(value):\n    if not value:\n        raise ValueError\n    {call('value')}\n\n\n"
                          f"run({v})\n"),
        "guard-at-wrapper-call": f"def run(value):\n    {call('value')}\n\n\nVALUE = {v}\nif VALUE:\n    run(VALUE)\n",
        "guard-and": f"VALUE = {v}\nVALUE and {call('VALUE')}\n",
        "guard-if-expression": f"VALUE = {v}\n{call('VALUE')} if VALUE else None\n",
        "guard-attribute": f"VALUE = {v}\nif config.VALUE:\n    {call('VALUE')}\n",
        "guard-rebound": f"VALUE = {v}\nif VALUE is None:\n    VALUE = {w}\n{call('VALUE')}\n",
        "guard-before-def": f"VALUE = {v}\nassert VALUE\n\n\ndef run():\n    {call('VALUE')}\n",
        "guard-elif": f"VALUE = {v}\nif flag:\n    pass\nelif VALUE is None:\n    raise ValueError\n{call('VALUE')}\n",
        # not in force: another name tested, an exit with an ``else``, a test after the call
        "unguarded-other-name": f"VALUE = {v}\nif flag:\n    {call('VALUE')}\n",
        "unguarded-exit-with-else": (f"VALUE = {v}\nif VALUE is None:\n    raise ValueError\nelse:\n    pass\n"
                                     f"{call('VALUE')}\n"),
        "unguarded-test-after": f"VALUE = {v}\n{call('VALUE')}\nassert VALUE\n",
    }


def _flow_forms(call, v: str, w: str) -> dict[str, str]:
    """The argument a name bound more than once, where only some bindings reach the call
    (screen/ast_flow.py: the engine's may_be_last_binding), and where they all may."""
    return {
        "flow-rebound-after-a-branch": f"if flag:\n    VALUE = {v}\nVALUE = {w}\n{call('VALUE')}\n",
        "flow-in-a-branch": (f"def go(flag):\n    if flag:\n        VALUE = {v}\n        {call('VALUE')}\n"
                             f"    else:\n        VALUE = {w}\n"),
        "flow-in-the-else-branch": f"if flag:\n    VALUE = {w}\nelse:\n    VALUE = {v}\n    {call('VALUE')}\n",
        "flow-in-an-elif": (f"if flag:\n    VALUE = {w}\nelif other:\n    VALUE = {v}\n    {call('VALUE')}\n"
                            f"else:\n    VALUE = {w}\n"),
        "flow-rebound-after-it": f"VALUE = {v}\n{call('VALUE')}\nVALUE = {w}\n",
        "flow-one-line": f"VALUE = {v}\nVALUE = {w}; {call('VALUE')}\n",
        "flow-one-continued-line": f"VALUE = {v}\nVALUE = {w}; \\\n{call('VALUE')}\n",
        "flow-semicolon-at-the-end": f"VALUE = {w};\nVALUE = {v}\n{call('VALUE')}\n",
        "flow-suite": f"VALUE = {v}\nif flag: VALUE = {w}; {call('VALUE')}\n",
        "flow-from-a-function": f"VALUE = {w}\n\n\ndef go():\n    {call('VALUE')}\n\n\nVALUE = {v}\n",
        "flow-branch-from-a-function": f"VALUE = {v}\nif flag:\n    VALUE = {w}\n\n\ndef go():\n    {call('VALUE')}\n",
        "flow-comprehension": (f"def go():\n    VALUE = {v}\n    out = [{call('VALUE')} for _ in range(2)]\n"
                               f"    VALUE = {w}\n    return out\n"),
        "flow-lambda": f"VALUE = {w}\nrun = lambda: {call('VALUE')}\nVALUE = {v}\n",
        "flow-class-body": f"VALUE = {w}\n\n\nclass Holder:\n    VALUE = {v}\n    {call('VALUE')}\n",
        "flow-parameter-rebound": f"def go(value={w}):\n    value = {v}\n    {call('value')}\n",
        "flow-parameter-in-a-branch": f"def go(value={v}):\n    if flag:\n        value = {w}\n    {call('value')}\n",
        "flow-try": f"try:\n    VALUE = {v}\nexcept Exception:\n    VALUE = {w}\n{call('VALUE')}\n",
        "flow-with": f"VALUE = {w}\nwith lock:\n    VALUE = {v}\n{call('VALUE')}\n",
        "flow-loop-rebinds-later": f"VALUE = {v}\nfor _ in range(2):\n    {call('VALUE')}\n    VALUE = {w}\n",
        "flow-match": (f"match flag:\n    case 1:\n        VALUE = {w}\n    case _:\n        VALUE = {v}\n"
                       f"{call('VALUE')}\n"),
        "flow-decorator": f"VALUE = {v}\n\n\n@{call('VALUE')}\ndef go():\n    pass\n\n\nVALUE = {w}\n",
        "flow-chain": f"VALUE = {v}\nOTHER = VALUE\nVALUE = {w}\n{call('OTHER')}\n",
    }


FLOW_FORMS = sorted(_flow_forms(str, "1", "2"))
TEXT_FORMS = ["constant", "annotated-constant", "chained-constant", "unpacked-constant", "constant-of-a-constant",
              "rebound", "branches"]
GUARDED_FORMS = sorted(name for name in _guard_forms(str, "1", "2") if name.startswith("guard-"))
FORM_NAMES = sorted({name for checked in CHECKED for name in _forms(checked, "1", "2")})


def _agree(source: str) -> list:
    """The program's findings, the same screened, unscreened and screened with its ast given."""
    screened = lint(source, "example.py", SCREENED)
    unscreened = lint(source, "example.py", UNSCREENED)
    assert screened == unscreened, f"the screen disagrees with the engine on:\n{source}"
    # flake8's way too: its ast given, the text stage asks less and the second look reads it
    with_tree = lint(source, "example.py", SCREENED, tree=ast.parse(source))
    assert with_tree == unscreened, f"the screen, given the ast, disagrees with the engine on:\n{source}"
    return unscreened


@PROPERTY
@given(
    checked=st.one_of(st.sampled_from(CURATED), st.sampled_from(CHECKED)), form=st.sampled_from(FORM_NAMES),
    data=st.data(),
)
def test_screened_and_unscreened_linting_agree(checked: Checked, form: str, data):
    v, w = (repr(data.draw(st.sampled_from(checked.values), label=label)) for label in ("value", "other"))
    forms = _forms(checked, v, w)
    if form not in forms:
        form = sorted(forms)[0]
    _agree(checked.header + forms[form])


LAUNCH = "import subprocess\n\n"


def _argv_forms(flag: str, value: str) -> dict[str, str]:
    head = '"python", "-m", "sglang.launch_server"'
    return {
        "list": f"subprocess.Popen([{head}, {flag!r}, {value!r}])",
        "inline": f"subprocess.Popen([{head}, {flag + '=' + value!r}])",
        "named": f"command = [{head}, {flag!r}, {value!r}]\nsubprocess.Popen(command)",
        "named-chained": f"base = command = [{head}, {flag!r}, {value!r}]\nsubprocess.Popen(command)",
        "named-unpacked": f"command, other = [{head}, {flag!r}, {value!r}], 1\nsubprocess.Popen(command)",
        "comments": f"subprocess.Popen([\n    {head},  # the server\n    {flag!r},  # why\n    {value!r},\n])",
        "concatenated": f"subprocess.Popen([{head}] + [{flag!r}, {value!r}])",
        "named-parts": f"BASE = [{head}]\nsubprocess.Popen(BASE + [{flag!r}, {value!r}])",
        "changed": f"command = [{head}]\ncommand += [{flag!r}, {value!r}]\nsubprocess.Popen(command)",
        "wrapped-launcher": f"subprocess.Popen([\"nsys\", \"profile\", {head}, {flag!r}, {value!r}])",
        # words the engine reads as no launcher (argv_screen._may_name_launcher), and those it may
        "python-c": f"import sys\nsubprocess.run([sys.executable, '-c', f'import {{m}}', {flag!r}, {value!r}])",
        "executable": (f"import sys\n"
                       f"subprocess.run([sys.executable, '-m', 'sglang.launch_server', {flag!r}, {value!r}])"),
        "launcher-f-string": f"subprocess.run(['python', '-m', f'sglang.launch_server', {flag!r}, {value!r}])",
        "launcher-field": f"subprocess.run(['python', '-m', f'{{pkg}}.launch_server', {flag!r}, {value!r}])",
        "launcher-name": (f"LAUNCHER = 'sglang.launch_server'\n"
                          f"subprocess.run(['python', '-m', LAUNCHER, {flag!r}, {value!r}])"),
        "launcher-spliced": f"HEAD = [{head}]\nsubprocess.run([*HEAD, {flag!r}, {value!r}])",
        "serve": f"subprocess.run(['sglang', 'serve', {flag!r}, {value!r}])",
        "serve-path": f"subprocess.run([f'/opt/bin/sglang', 'serve', {flag!r}, {value!r}])",
        "serve-field": f"subprocess.run([f'{{root}}/sglang', 'serve', {flag!r}, {value!r}])",
        "serve-call": f"import shutil\nsubprocess.run([shutil.which('sglang'), 'serve', {flag!r}, {value!r}])",
    }


def _flags() -> list[str]:
    table = engine_table()
    flags = sorted(table.by_flag)[:40]
    return flags + ["--tp", "--tensor-parallel-siz", "--max-model-len", "--gpu-memory-utilization", "--mem-frac"]


FLAGS = _flags()


@PROPERTY
@given(
    flag=st.sampled_from(FLAGS),
    value=st.sampled_from(["auto", "fp8", "flashinfer", "flashinfr", "2", "x", "0.8", "--other"]),
    form=st.sampled_from(sorted(_argv_forms("--a", "b"))),
)
def test_screen_agrees_on_launch_flags(flag: str, value: str, form: str):
    _agree(LAUNCH + _argv_forms(flag, value)[form])


def test_the_forms_reach_findings():
    """The property is not vacuous: in each form, some value draws a finding from the engine."""
    silent = []
    for form in FORM_NAMES:
        if form in ("negative-test", "guarded", "walrus", "in-loop", "positional-after-star", "dict-changed",
                    "other-base-field", "dict-lacks-it-branches", "dict-has-it-in-a-branch", "dict-updated",
                    "dict-read-by-a-method", "dict-changed-elsewhere", "dict-name-rebound-by-global", "kwargs-wrapper",
                    "wrapper-shadowed", "dict-parameter-wrapper", *GUARDED_FORMS):
            continue  # forms the engine deliberately does not judge (a class of another base is no config)
        cases = [c for c in CHECKED if form in _forms(c, "1", "2")]
        if not any(
            lint(c.header + _forms(c, repr(v), repr(v))[form], "example.py", UNSCREENED)
            for c in cases[:40] for v in c.values
        ):
            silent.append(form)
    assert not silent, f"no finding in any case of the forms {silent}"
    assert any(lint(LAUNCH + _argv_forms("--max-model-len", "2")[form], "x.py") for form in ("list", "named"))


CONFIG_FORMS = ["subclass-field", "subclass-of-subclass-field", "subclass-call", "alias-subclass-field",
                "other-base-field"]


@pytest.mark.parametrize("form", CONFIG_FORMS)
def test_config_class_forms_agree(form):
    """Every config class of the catalog, subclassed in each form, with a value each side of
    its check: the screen agrees with the engine (an aliased import once hid a subclass's
    field from the screen), and the engine does find the failing defaults."""
    found, path = 0, "sglang/other/example.py"  # (a module of sglang's: then the engine names its classes)
    for checked in (c for c in CHECKED if c.fields):
        for value in (checked.values[0], checked.values[len(checked.values) // 2], None):
            forms = _forms(checked, repr(value), repr(value))
            if form in forms:
                source = checked.header + forms[form]
                screened = lint(source, path, SCREENED)
                assert screened == lint(source, path, UNSCREENED), source
                found += bool(screened)
    assert (found > 20) is (form != "other-base-field"), found


def _agreeing_in(form: str):
    """Every curated check and every fifth derived one written in ``form``, with values each
    side of the check: each program's findings, the same screened and unscreened (and
    screened with flake8's ast given)."""
    for checked in [*CURATED, *CHECKED[::5]]:
        middle = checked.values[len(checked.values) // 2]
        for value in dict.fromkeys(repr(v) for v in (checked.values[0], middle, None)):
            forms = _forms(checked, value, value)
            if form in forms:
                source = checked.header + forms[form]
                screened = lint(source, "example.py", SCREENED)
                assert screened == lint(source, "example.py", UNSCREENED), source
                assert screened == lint(source, "example.py", SCREENED, tree=ast.parse(source)), source
                yield checked, screened


@pytest.mark.parametrize("form", sorted(_guard_forms(str, "1", "2")))
def test_guard_forms_agree(form):
    """The argument a name a condition in force may test: the screen agrees with the engine,
    which reports the failing values where no guard is in force, and only there (the
    checked rule's own findings, not another's of an argument left out)."""
    found = sum(any(d.code == checked.code for d in screened) for checked, screened in _agreeing_in(form))
    assert (found > 0) is (form not in GUARDED_FORMS), found


@pytest.mark.parametrize("form", ["kwargs-wrapper", "dict-parameter-wrapper",
                                  "dict-name", "dict-lacks-it", "dict-lacks-it-branches", "dict-has-it-in-a-branch",
                                  "dict-updated", "dict-read-by-a-method", "dict-changed-elsewhere", "dict-call-name",
                                  "dict-name-in-a-function", "dict-name-rebound-by-global"])
def test_mapping_forms_agree(form):
    """A ``**name`` mapping whose dicts do not hold the argument, or hold it in one branch only
    (the engine reads one dict display, not two), or that the file changes in place: the
    screen agrees with the engine."""
    assert len(list(_agreeing_in(form))) > 20  # (every program checked, not only the first)


@pytest.mark.parametrize("form", FLOW_FORMS)
def test_flow_forms_agree(form):
    """A name bound more than once, of which only some bindings reach the call (a rebinding
    dominates it, comes after it, or is in another branch) or all may (one line, a loop, a
    branch seen from a function): the screen reads the bindings the engine reads, and the
    engine finds the failing value that reaches the call (``v``: the value drawn; ``w`` the
    one that does not reach it, or may)."""
    found = 0
    for checked in [*CURATED, *CHECKED[::10]]:
        middle = checked.values[len(checked.values) // 2]
        values = list(dict.fromkeys(repr(v) for v in (checked.values[0], middle, None)))
        for v, w in itertools.permutations(values, 2):
            source = checked.header + _forms(checked, v, w)[form]
            screened = lint(source, "example.py", SCREENED)
            assert screened == lint(source, "example.py", UNSCREENED), source
            found += any(d.code == checked.code for d in screened)
    assert found > 0


@pytest.mark.parametrize("form", TEXT_FORMS)
def test_text_forms_agree(form):
    """A name bound to literals at the top of the file, which the text stage judges by their
    values before any ast is read (screen/calls.py ``FileFacts.name_may_fail``): the same findings
    screened and not, for every curated check and every fifth derived one, and the failing
    value found (a chained assignment, ``A = B = 0``, was once missed by the text stage of a
    check that ignores parameter defaults, and of an enum rule; with flake8's ast given, an
    unpacked or chained assignment was no binding to the text stage); each value of a curated
    check, three of a derived one."""
    found = 0
    for checked in [*CURATED, *CHECKED[::5]]:
        values = checked.values if checked in CURATED else (
            checked.values[0], checked.values[len(checked.values) // 2], None)
        for value in dict.fromkeys(repr(v) for v in values):
            source = checked.header + _forms(checked, value, value)[form]
            screened = lint(source, "example.py", SCREENED)
            assert screened == lint(source, "example.py", UNSCREENED), source
            # (flake8's way: its ast given, the text stage asks only whether the name is bound)
            assert screened == lint(source, "example.py", SCREENED, tree=ast.parse(source)), source
            found += any(d.code == checked.code for d in screened)
    assert found > 0
