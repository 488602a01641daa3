"""The screen of a launch command written as a Python list (``subprocess.Popen([sys.executable,
"-m", "sglang.launch_server", ...])``, screen/argv.py with the check's own judge) cannot
contradict the engine: linting with the call-site screen and without it gives the same
findings, for flags and values drawn from both sides of each aspect's verdict, and the screen
rules out some clean commands (so a clean launch file never reaches LibCST)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_argv_screen_agreement import _agree
from test_screen_agreement import PROPERTY, SCREENED

HEADER = "import subprocess\nimport sys\n\n"
SERVER = "sys.executable, '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B'"


def _forms(flag: str, value: str) -> dict[str, str]:
    words = f"{flag!r}, {value!r}"
    return {
        "display": f"subprocess.Popen([{SERVER}, {words}])\n",
        "named": f"command = [{SERVER}, {words}]\nsubprocess.Popen(command)\n",
        "stepped": f"command = [{SERVER}]\ncommand += [{words}]\nsubprocess.Popen(command)\n",
        "appended": f"command = [{SERVER}]\ncommand.extend([{words}])\nsubprocess.Popen(command)\n",
        "wrapped": f"subprocess.Popen(['nsys', 'profile', '--trace', 'cuda', 'python3', '-m', 'sglang.launch_server', "
                   f"{words}])\n",
        "serve": f"subprocess.Popen(['sglang', 'serve', '--model-path', 'm', {words}])\n",
        "script": f"subprocess.Popen([sys.executable, '-m', 'sglang.bench_one_batch', {words}])\n",
        "name-launcher": f"LAUNCH = 'sglang.launch_server'\nsubprocess.Popen(['python', '-m', LAUNCH, {words}])\n",
        "name-value": f"VALUE = {value!r}\nsubprocess.Popen([{SERVER}, {flag!r}, VALUE])\n",
        "environment": f"subprocess.Popen([{SERVER}, {words}], env={{'SGLANG_ENABLE_JIT_DEEPGEMM': '0'}})\n",
        "no-launcher": f"subprocess.Popen(['python', 'train.py', {words}])\n",
        "run": f"subprocess.run([{SERVER}, {words}], check=True)\n",
    }


FLAGS = ["--tp-size", "--tp-sizee", "--attention-backend", "--kv-cache-dtype", "--mem-fraction-static",
         "--page-size", "--chunked-prefill-size", "--enable-dp-attention", "--dp-size", "--port"]
VALUES = ["2", "0", "-1", "3", "triton", "tritn", "fp8_e5m2", "0.8", "abc", "--trust-remote-code"]
FORMS = sorted(_forms("--a", "b"))
UNSURE = ("appended", "serve", "script", "name-launcher", "name-value")  # the engine may read more: never ruled out


@PROPERTY
@given(flag=st.sampled_from(FLAGS), value=st.sampled_from(VALUES), form=st.sampled_from(FORMS))
def test_screen_agrees_on_launch_commands(flag: str, value: str, form: str):
    _agree(HEADER + _forms(flag, value)[form])


def test_every_flag_and_value_agree_on_a_command_display():
    for flag in FLAGS:
        for value in VALUES:
            _agree(HEADER + _forms(flag, value)["display"])


def test_the_forms_reach_findings_and_the_screen_rules_clean_commands_out():
    """Not vacuous: each form that starts the server draws a finding for some flag and value,
    and the screen rules out some clean command of each form it can read whole."""
    silent, never_ruled_out = [], []
    for form in FORMS:
        sources = [HEADER + _forms(flag, value)[form] for flag in FLAGS for value in VALUES]
        if form not in ("no-launcher", "script") and not any(_agree(source) for source in sources):
            silent.append(form)
        if form not in UNSURE and not any(SCREENED.skip_reason(source) is not None for source in sources):
            never_ruled_out.append(form)
    assert not silent, f"no finding in any case of the forms {silent}"
    assert not never_ruled_out, f"the screen never rules out a case of the forms {never_ruled_out}"


def test_a_clean_launch_command_is_ruled_out_before_libcst():
    """The benchmark's file: an argv launch of a model on two GPUs, nothing wrong with it."""
    source = HEADER + f"subprocess.Popen([{SERVER}, '--tp', '2'])\n"
    assert SCREENED.skip_reason(source) is not None
    assert _agree(source) == []
