"""The screen of a list of launch flags (``other_args=[...]``, screen/argv.py) cannot
contradict the engine: a property test (hypothesis), as test_screen_agreement.py.

The list is written in each form analysis/built.py reads (a display at the call, a name, a
concatenation with a part it cannot read, ``*`` of one, a class's list read through
``self``/``cls``, a list a method sets, a class default that is empty, a wrapper's parameter
fed by a call of the wrapper, ``x = x + [...]``, ``x += [...]`` (in branches, a flag and its value in two steps, a
parameter's list, through a wrapper, in a loop), f-strings ``--flag={value}``...) with flags
and values drawn from both sides of each aspect's verdict (a misspelt flag, a bad choice, a
bad number, a relation); linting with the call-site screen and without it must give the same
findings, and the screen must rule out some of the clean ones (else it proves nothing).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_screen_agreement import PROPERTY, SCREENED, UNSCREENED

from sglang_lint import lint

HEADER = "from sglang.test.test_utils import popen_launch_server\n\n"
CALL = 'popen_launch_server("m", "u", 600, other_args={})'


def _forms(flag: str, value: str) -> dict[str, str]:
    words = f"{flag!r}, {value!r}"
    return {
        "display": CALL.format(f"[{words}]"),
        "joined-flag": CALL.format(f"[{flag + '=' + value!r}]"),
        "f-string": CALL.format(f'[f"{flag}={{{value!r}}}", f"{flag}={value}"]'),
        "named": f"args = [{words}]\n{CALL.format('args')}",
        "named-chained": f"base = args = [{words}]\n{CALL.format('args')}",
        "named-unpacked": f"args, other = [{words}], 1\n{CALL.format('args')}",
        "rebuilt": f"args = make()\nargs = args + [{words}]\n{CALL.format('args')}",
        "concatenated": CALL.format(f"[{flag!r}] + [{value!r}, '--trust-remote-code']"),
        "unknown-part": CALL.format(f"make() + [{words}]"),
        "unknown-star": CALL.format(f"[{flag!r}, *make(), {value!r}]"),
        "unknown-between": CALL.format(f"[{flag!r}, *EXTRA, {value!r}]"),
        "class-list": f"class T:\n    args = [{words}]\n\n    def go(self):\n        {CALL.format('self.args')}\n",
        "cls-list": (f"class T:\n    args = [{words}]\n\n    @classmethod\n    def go(cls):\n"
                     f"        {CALL.format('list(cls.args)')}\n"),
        "method-sets": (f"class T:\n    def setup(self):\n        self.args = [{words}]\n\n"
                        f"    def go(self):\n        {CALL.format('self.args')}\n"),
        "empty-default": (f"class T:\n    extra: list = []\n\n    def go(self):\n"
                          f"        {CALL.format(f'[{words}, *self.extra]')}\n"),
        "default-changed": (f"class T:\n    extra: list = []\n\n    def go(self):\n        self.extra.append('x')\n"
                            f"        {CALL.format(f'[{flag!r}, *self.extra, {value!r}]')}\n"),
        "wrapper": f"def launch(args):\n    {CALL.format('args')}\n\n\nlaunch([{words}])\n",
        "wrapper-part": f"def launch(extra):\n    {CALL.format('[*extra]')}\n\n\nlaunch([{words}])\n",
        "wrapper-joined": f"def launch(extra):\n    {CALL.format(f'[{flag!r}] + extra')}\n\n\nlaunch([{value!r}])\n",
        "method-wrapper": (f"class T:\n    def launch(self, args):\n        {CALL.format('args')}\n\n"
                           f"    def go(self):\n        self.launch([{words}])\n"),
        "loop": f"for args in ([{words}],):\n    {CALL.format('args')}\n",
        # words added with ``+=`` (analysis/built.py: the list before the statement, then the display)
        "stepped": f"args = ['--trust-remote-code']\nif c:\n    args += [{words}]\n{CALL.format('args')}\n",
        "stepped-split": f"args = [{flag!r}]\nargs += [{value!r}]\n{CALL.format('args')}\n",
        "stepped-twice": (f"args = []\nargs += [{flag!r}]\nif c:\n    args += [{value!r}]\n"
                          f"{CALL.format('args')}\n"),
        "stepped-param": (f"def run(extra=None):\n    if extra is None:\n        extra = []\n    if c:\n"
                          f"        extra += [{words}]\n    {CALL.format('extra')}\n"),
        "stepped-wrapped": (f"def _raw(other_args):\n    {CALL.format('other_args')}\n\n\n"
                            f"def run(other_args=None):\n    if other_args is None:\n        other_args = []\n"
                            f"    other_args += [{words}]\n    _raw(other_args=other_args)\n"),
        # a word written as a name: the engine evaluates it (analysis/resolve.py) or it is an unknown word
        "name-flag": f"FLAG = {flag!r}\n{CALL.format(f'[FLAG, {value!r}]')}\n",
        "name-value": f"VALUE = {value!r}\n{CALL.format(f'[{flag!r}, VALUE]')}\n",
        "name-default": f"def go(v={value!r}):\n    {CALL.format(f'[{flag!r}, v]')}\n",
        "name-unknown": f"level = get()\n{CALL.format(f'[{words}, {chr(39)}--log-level{chr(39)}, level]')}\n",
        "name-parameter": f"def go(level):\n    {CALL.format(f'[{words}, level]')}\n",
        "name-wrapped": (f"def go(v):\n    {CALL.format(f'[{flag!r}, v]')}\n\n\ngo({value!r})\n"),
        "stepped-loop": (f"args = [{flag!r}]\nfor v in range(2):\n    args += [{value!r}]\n"
                         f"{CALL.format('args')}\n"),
    }


FLAGS = ["--tp-size", "--tp-sizee", "--attention-backend", "--kv-cache-dtype", "--mem-fraction-static",
         "--speculative-dflash-block-size", "--speculative-draft-window-size", "--trust-remote-code",
         "--context-length", "--max-model-len"]
VALUES = ["2", "0", "-1", "triton", "tritn", "fp8_e5m2", "fp16", "0.8", "x", "--other"]
FORMS = sorted(_forms("--a", "b"))
KNOWN_NAMES = ("name-default", "name-flag", "name-value", "name-wrapped")  # words the engine may evaluate: unsure


def _agree(source: str) -> list:
    screened = lint(source, "example.py", SCREENED)
    unscreened = lint(source, "example.py", UNSCREENED)
    assert screened == unscreened, f"the screen disagrees with the engine on:\n{source}"
    return unscreened


@PROPERTY
@given(flag=st.sampled_from(FLAGS), value=st.sampled_from(VALUES), form=st.sampled_from(FORMS))
def test_screen_agrees_on_lists_of_flags(flag: str, value: str, form: str):
    _agree(HEADER + _forms(flag, value)[form])


def test_the_forms_reach_findings_and_the_screen_rules_some_out():
    """Not vacuous: each form the engine reads draws a finding for some flag and value, and
    for each form the screen rules out some clean case (where it can tell)."""
    silent, never_ruled_out = [], []
    for form in FORMS:
        sources = [HEADER + _forms(flag, value)[form] for flag in FLAGS for value in VALUES]
        if form not in ("loop", "default-changed") and not any(
                _agree(source) for source in sources):
            silent.append(form)
        if form not in ("default-changed", "stepped-loop", *KNOWN_NAMES) and not any(
                SCREENED.skip_reason(source) is not None for source in sources):
            never_ruled_out.append(form)
    assert not silent, f"no finding in any case of the forms {silent}"
    assert not never_ruled_out, f"the screen never rules out a case of the forms {never_ruled_out}"


def test_every_flag_and_value_agree_on_lists_built_in_steps_and_name_words():
    """``x += [...]`` (argv_screen ``_steps_may_know``) and a word written as a name
    (``DisplayReader.may_evaluate``): every flag and value of those forms, not a sample, since
    a subset of the steps the screen left out shows only on some."""
    for form in (form for form in FORMS if form.startswith(("stepped", "name-"))):
        for flag in FLAGS:
            for value in VALUES:
                _agree(HEADER + _forms(flag, value)[form])
