"""The environment variables certainly set for each launch, where the user wrote them: before a
shell command, through ``env``, by ``export``/``unset`` earlier in a script or Markdown block
(launch/shell_env.py); in a YAML file's Compose ``environment``, Kubernetes ``env`` or CI ``env``
(launch/yaml_env.py); in Python, through ``os.environ``, ``os.putenv``, a subprocess's ``env=`` and the
command itself (checks/server_args/environment.py). A variable whose value is not certain is absent."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from sglang_lint.checks import CHECK_KINDS
from sglang_lint.checks.server_args.environment import python_launch_env
from sglang_lint.checks.server_args.flags import Launch
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules
from sglang_lint.launch.commands import launch_commands, launch_commands_in_file
from sglang_lint.launch.shell_env import (
    command_env, launch_commands_in_file_with_env, launch_commands_with_env, yaml_launch_commands_with_env,
)

UNSCREENED = RuleSet(default_rules(), screen=False)
LAUNCH = "python -m sglang.launch_server --model-path m"


def shell(text: str, inherited=None) -> list[dict]:
    """The env of each launch in a shell text, checking the launches are launch_text's own."""
    found = launch_commands_with_env(text, None, inherited)
    assert [(f.launcher, f.args) for f in found] == [(f.launcher, f.args) for f in launch_commands(text)]
    return [f.env for f in found]


def one(text: str, inherited=None) -> dict:
    (env,) = shell(text, inherited)
    return env


# --- one command --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, env", [
    (f"SGLANG_X=1 FOO=bar {LAUNCH}", {"SGLANG_X": "1", "FOO": "bar"}),
    (f'SGLANG_X="a b" Y=\'c d\' Z=e\\ f {LAUNCH}', {"SGLANG_X": "a b", "Y": "c d", "Z": "e f"}),
    (f"SGLANG_X= {LAUNCH}", {"SGLANG_X": ""}),
    (f"env SGLANG_X=1 {LAUNCH}", {"SGLANG_X": "1"}),
    (f"A=1 env B=2 nohup env C=3 {LAUNCH}", {"A": "1", "B": "2", "C": "3"}),
    (f"A=1 env -u A B=2 {LAUNCH}", {"B": "2"}),
    (f"A=1 B=1 C=1 env --unset=A -uB {LAUNCH}", {"C": "1"}),
    (f"A=1 env -i B=2 {LAUNCH}", {"B": "2"}),
    (f"A=1 env - B=2 {LAUNCH}", {"B": "2"}),
    (f"A=1 env -C /tmp B=2 {LAUNCH}", {"A": "1", "B": "2"}),
    (f"A=1 env -S 'B=2 python' {LAUNCH}", {}),
    ("SGLANG_X=1 CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc-per-node 2 -m sglang.launch_server", {
        "SGLANG_X": "1", "CUDA_VISIBLE_DEVICES": "0,1"}),
    ("SGLANG_X=1 uv run --with x python -m sglang.launch_server", {"SGLANG_X": "1"}),
    ("SGLANG_X=1 sglang serve --model-path m", {"SGLANG_X": "1"}),
    ("SGLANG_X=1 $PYTHON -m sglang.launch_server", {"SGLANG_X": "1"}),
])
def test_assignments_and_env_before_the_command(text, env):
    assert one(text) == env


@pytest.mark.parametrize("text", [
    f"SGLANG_X=$Y {LAUNCH}", f"SGLANG_X=${{Y:-1}} {LAUNCH}", f'SGLANG_X="$(cat f)" {LAUNCH}',
    f"SGLANG_X=`cat f` {LAUNCH}", f"SGLANG_X=~/x {LAUNCH}", f"SGLANG_X+=1 {LAUNCH}", f"SGLANG_X[0]=1 {LAUNCH}",
    f"env SGLANG_X=$Y {LAUNCH}",
])
def test_a_value_the_shell_computes_is_unknown(text):
    assert one(text) == {}


@pytest.mark.parametrize("text, env", [
    (f"SGLANG_X=1 docker run img {LAUNCH}", {}),  # runs in a container: the host's variables stay
    (f"SGLANG_X=1 ssh host {LAUNCH}", {}),
    (f"SGLANG_X=1 mpirun -np 2 {LAUNCH}", {}),
    (f"SGLANG_X=1 srun --export=NONE {LAUNCH}", {}),
    (f"SGLANG_X=1 srun -N 1 {LAUNCH}", {"SGLANG_X": "1"}),
    (f"SGLANG_X=1 sudo {LAUNCH}", {}),  # sudo resets the environment
    (f"SGLANG_X=1 sudo -E {LAUNCH}", {"SGLANG_X": "1"}),
    (f"SGLANG_X=1 Y=2 sudo --preserve-env=Y {LAUNCH}", {"Y": "2"}),
    (f"sudo -u me SGLANG_X=1 {LAUNCH}", {"SGLANG_X": "1"}),
    (f"SGLANG_X=1 $RUNNER {LAUNCH}", {}),
])
def test_what_runs_the_launch_elsewhere_passes_nothing(text, env):
    assert one(text) == env


def test_command_env_reads_an_argv_list_without_shell_assignments():
    words = [type("W", (), {"text": t, "opaque": False})() for t in ["X=1", "env", "Y=2", "python", "-m", "m"]]
    assert command_env(words, 5, {}, shell=True) == {"X": "1", "Y": "2"}
    assert command_env(words, 5, {}, shell=False) == {}  # an argv list runs "X=1": not the launch
    assert command_env(words[1:], 4, {"Z": "3"}, shell=False) == {"Y": "2", "Z": "3"}


# --- a script, in order ---------------------------------------------------------------------------

def test_exports_before_the_launch_count_in_order():
    text = textwrap.dedent(f"""\
        #!/bin/bash
        export SGLANG_A=1
        export SGLANG_B="two words" SGLANG_C=3
        SGLANG_D=4
        export SGLANG_D
        export SGLANG_E=5
        unset SGLANG_E
        export SGLANG_F=$HOME
        SGLANG_G=7  # not exported: only a shell variable (the caller's may be exported)
        {LAUNCH} &
        export SGLANG_A=9
        {LAUNCH}
        """)
    first = {"SGLANG_A": "1", "SGLANG_B": "two words", "SGLANG_C": "3", "SGLANG_D": "4"}
    assert shell(text) == [first, {**first, "SGLANG_A": "9"}]


@pytest.mark.parametrize("write", [
    "if [ -n \"$X\" ]; then export SGLANG_A=2; fi",
    "if true\nthen\n  export SGLANG_A=2\nfi",
    "for i in 1; do export SGLANG_A=2; done",
    "while false; do export SGLANG_A=2; done",
    "case $X in a) export SGLANG_A=2 ;; esac",
    "setup() { export SGLANG_A=2; }",
    "function setup { export SGLANG_A=2; }",
    "( export SGLANG_A=2 )",
    "{ export SGLANG_A=2; }",
    "false && export SGLANG_A=2",
    "true || export SGLANG_A=2",
    "export SGLANG_A=2 | cat",
    "export SGLANG_A=2 &",
    "export SGLANG_A=$(date)",
    "read SGLANG_A",
    "unset SGLANG_A",
    "export -n SGLANG_A",
    "declare +x SGLANG_A",
])
def test_a_write_that_may_not_happen_makes_the_variable_unknown(write):
    assert one(f"export SGLANG_A=1 SGLANG_B=1\n{write}\n{LAUNCH}\n") == {"SGLANG_B": "1"}


@pytest.mark.parametrize("write", ["source ./env.sh", ". ./env.sh", "eval \"$SETUP\"", "export $VARS"])
def test_what_may_set_anything_makes_everything_unknown(write):
    assert one(f"export SGLANG_A=1\n{write}\nSGLANG_B=2 {LAUNCH}\n") == {"SGLANG_B": "2"}


@pytest.mark.parametrize("text, env", [
    (f"export SGLANG_A=1 && {LAUNCH}", {"SGLANG_A": "1"}),  # the launch runs only if the export ran
    (f"cd /x && export SGLANG_A=1 && {LAUNCH}", {"SGLANG_A": "1"}),
    (f"cd /x && export SGLANG_A=1\n{LAUNCH}", {}),
    (f"false || export SGLANG_A=1 && {LAUNCH}", {}),
    (f"export SGLANG_A=1; {LAUNCH} | tee log", {"SGLANG_A": "1"}),
    (f"set -a\nSGLANG_A=1\nset +a\nSGLANG_B=2\n{LAUNCH}", {"SGLANG_A": "1"}),
    (f"declare -x SGLANG_A=1\nreadonly SGLANG_B=2\n{LAUNCH}", {"SGLANG_A": "1"}),
    (f"export SGLANG_A=1\nSGLANG_A=2\n{LAUNCH}", {"SGLANG_A": "2"}),  # already exported: the new value
    (f"export SGLANG_A=1\ncat > run.sh <<EOF\nexport SGLANG_A=2\nEOF\n{LAUNCH}", {"SGLANG_A": "1"}),
])
def test_lists_pipelines_and_here_docs(text, env):
    assert one(text) == env


def test_a_launch_in_a_loop_or_a_function_may_run_after_later_writes():
    text = textwrap.dedent(f"""\
        export SGLANG_A=1 SGLANG_B=1
        serve() {{
          {LAUNCH}
        }}
        export SGLANG_B=2
        serve
        for i in 1 2; do
          SGLANG_C=1 {LAUNCH}
          export SGLANG_B=3
        done
        """)
    assert shell(text) == [{"SGLANG_A": "1"}, {"SGLANG_A": "1", "SGLANG_C": "1"}]


def test_a_bash_c_script_inherits_the_command_and_sets_nothing_for_its_caller():
    text = f"export SGLANG_A=1\nSGLANG_B=2 bash -c 'export SGLANG_C=3; unset SGLANG_A; SGLANG_D=4 {LAUNCH}'\n{LAUNCH}\n"
    assert shell(text) == [{"SGLANG_B": "2", "SGLANG_D": "4"}, {"SGLANG_A": "1"}]
    assert shell(f"export SGLANG_A=1\nssh host bash -c '{LAUNCH}'\n") == [{}]


def test_a_here_doc_body_runs_elsewhere():
    assert shell(f"export SGLANG_A=1\nssh host <<EOF\nSGLANG_B=2 {LAUNCH}\nEOF\n") == [{"SGLANG_B": "2"}]


def test_the_caller_s_environment_is_changed_by_the_script():
    env = one(f"unset A\nexport B=2\nC=3 {LAUNCH}", inherited={"A": "1", "D": "4"})
    assert env == {"B": "2", "C": "3", "D": "4"}


def test_markdown_blocks_are_read_each_on_its_own():
    text = textwrap.dedent(f"""\
        # Run

        ```bash
        export SGLANG_A=1
        SGLANG_B=2 {LAUNCH}
        ```

        ```console
        $ export SGLANG_C=3
        $ {LAUNCH} \\
        >   --tp 2
        some output SGLANG_D=4
        ```
        """)
    found = launch_commands_in_file_with_env("README.md", text)
    plain = launch_commands_in_file("README.md", text)
    assert [(f.launcher, f.args) for f in found] == [(f.launcher, f.args) for f in plain]
    assert [f.env for f in found] == [{"SGLANG_A": "1", "SGLANG_B": "2"}, {"SGLANG_C": "3"}]


# --- YAML -----------------------------------------------------------------------------------------

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang
    environment:
      SGLANG_A: "1"
      SGLANG_B: 2
      SGLANG_C: 'three'
      SGLANG_NULL:
      SGLANG_HOST: ${HOST_VALUE}
      SGLANG_BOOL: true
    command: python3 -m sglang.launch_server --model-path m
  listed:
    environment:
      - SGLANG_A=1
      - "SGLANG_B=two words"
      - SGLANG_FROM_HOST
      - SGLANG_C=$X
    entrypoint: ["python3", "-m"]
    command: ["sglang.launch_server", "--tp", "2"]
  flow:
    environment: [SGLANG_A=1, "SGLANG_B=2"]
    command: SGLANG_C=3 python3 -m sglang.launch_server
  none:
    command: python3 -m sglang.launch_server
"""


def test_compose_environment():
    assert [f.env for f in yaml_launch_commands_with_env(COMPOSE)] == [
        {"SGLANG_A": "1", "SGLANG_B": "2", "SGLANG_C": "three"},
        {"SGLANG_A": "1", "SGLANG_B": "two words"},
        {"SGLANG_A": "1", "SGLANG_B": "2", "SGLANG_C": "3"},
        {},
    ]


KUBERNETES = """\
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang
          command: ["python3", "-m", "sglang.launch_server"]
          env:
            - name: SGLANG_A
              value: "1"
            - name: SGLANG_SECRET
              valueFrom:
                secretKeyRef: {name: s, key: k}
            - name: SGLANG_EMPTY
            - name: SGLANG_REF
              value: "$(OTHER)"
          envFrom:
            - configMapRef: {name: c}
          args: ["--tp", "2"]
        - name: wrapped
          command:
          - /bin/sh
          - -c
          - |
            export SGLANG_C=3
            SGLANG_D=4 python3 -m sglang.launch_server --tp 2
          env:
          - name: SGLANG_B
            value: '2'
          - name: SGLANG_C
            value: "9"
        - name: other
          command: ["python3", "-m", "sglang.launch_server"]
"""


def test_kubernetes_env_of_the_same_container():
    assert [f.env for f in yaml_launch_commands_with_env(KUBERNETES)] == [
        {"SGLANG_A": "1", "SGLANG_EMPTY": ""},
        {"SGLANG_B": "2", "SGLANG_D": "4"},  # SGLANG_C: the script exports it again (not read in order here)
        {},
    ]


WORKFLOW = """\
env:
  SGLANG_A: "1"
  SGLANG_B: "1"
jobs:
  serve:
    env:
      SGLANG_B: "2"
    steps:
      - name: start
        env:
          SGLANG_C: ${{ matrix.c }}
          SGLANG_D: "4"
        run: |
          python -m sglang.launch_server --model-path m
  other:
    runs-on: x
    steps:
      - run: python -m sglang.launch_server
        env: {SGLANG_E: "5"}
"""


def test_a_ci_step_gets_its_own_env_and_those_around_it():
    assert [f.env for f in yaml_launch_commands_with_env(WORKFLOW)] == [
        {"SGLANG_A": "1", "SGLANG_B": "2", "SGLANG_D": "4"},
        {"SGLANG_A": "1", "SGLANG_B": "1"},  # a flow mapping is not read
    ]


def test_yaml_launches_are_launch_text_s_own():
    for text in (COMPOSE, KUBERNETES, WORKFLOW):
        found = launch_commands_in_file_with_env("a.yaml", text)
        assert [(f.launcher, f.args) for f in found] == [
            (f.launcher, f.args) for f in launch_commands_in_file("a.yaml", text)]


# --- files through the engine: Launch.env reaches the check kinds ----------------------------------------

LAUNCH_FIXTURES = ROOT / "tests" / "fixtures" / "launch"


def _text_envs(monkeypatch, path: str, text: str) -> list[dict]:
    """The ``env`` of each launch the text check kinds get, in order."""
    seen: list[Launch] = []  # (kept: each launch once, however many rules judge it)
    kind = CHECK_KINDS["server-args"]

    def run_text(check, launch: Launch):
        if not any(launch is other for other in seen):
            seen.append(launch)
        return iter(())

    monkeypatch.setitem(CHECK_KINDS, "server-args", dataclasses.replace(kind, run_text=run_text))
    lint(text, path)
    return [launch.env for launch in seen]


def test_launch_env_reaches_the_text_check_kinds(monkeypatch):
    text = f"#!/bin/bash\nexport SGLANG_A=1\nSGLANG_B=2 {LAUNCH} --tp 2\n"
    assert _text_envs(monkeypatch, "run.sh", text) == [{"SGLANG_A": "1", "SGLANG_B": "2"}]
    assert _text_envs(monkeypatch, "compose.yaml", COMPOSE) == [f.env for f in yaml_launch_commands_with_env(COMPOSE)]


@pytest.mark.parametrize("path", sorted(p for p in LAUNCH_FIXTURES.rglob("*") if p.suffix in (".sh", ".md", ".yaml")
                                        or p.name == "serve"), ids=lambda p: p.name)
def test_the_fixtures_launches_are_unchanged(path: Path):
    text = path.read_text(encoding="utf-8")
    found = launch_commands_in_file_with_env(str(path), text)
    plain = launch_commands_in_file(str(path), text)
    assert [(f.launcher, f.args) for f in found] == [(f.launcher, f.args) for f in plain]


# --- Python ---------------------------------------------------------------------------------------

def python_envs(monkeypatch, source: str) -> dict[int, dict]:
    """{line of the call: python_launch_env} for each launch site the server-args rules judge,
    with the site and target they get (every rule's target agreeing)."""
    found: dict[int, dict] = {}
    kind = CHECK_KINDS["server-args"]

    def run(site, rule, check, target):
        env = python_launch_env(site, target)
        line = site.model.line_of(site.node)
        assert found.setdefault(line, env) == env, line
        return iter(())

    monkeypatch.setitem(CHECK_KINDS, "server-args", dataclasses.replace(kind, run=run))
    lint(textwrap.dedent(source), "t.py", UNSCREENED)
    return found


HEAD = "import os, subprocess\nimport sglang as sgl\n"


def test_module_level_writes_in_order(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        os.environ.update({"SGLANG_B": "2", "SGLANG_C": value})
        os.environ.update(SGLANG_D="4")
        os.environ.setdefault("SGLANG_E", "5")
        os.environ["SGLANG_F"] = f"6"
        os.environ["SGLANG_G"] = str(7)
        os.environ["SGLANG_H"] = f"{x}"
        os.environ["SGLANG_I"] = VALUE
        os.environ["SGLANG_J"] = "10"
        del os.environ["SGLANG_J"]
        os.environ["SGLANG_K"] = "11"
        os.environ.pop("SGLANG_K", None)
        sgl.Engine(model_path="m")
        os.environ.clear()
        os.environ["SGLANG_L"] = "12"
        sgl.Engine(model_path="m")
        """)
    assert python_envs(monkeypatch, source) == {
        15: {"SGLANG_A": "1", "SGLANG_B": "2", "SGLANG_D": "4", "SGLANG_F": "6", "SGLANG_G": "7"},
        18: {"SGLANG_L": "12"},
    }


def test_only_writes_on_every_path_count(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        os.environ["SGLANG_B"] = "1"
        if fast:
            os.environ["SGLANG_A"] = "2"
        try:
            os.environ["SGLANG_C"] = "3"
        except KeyError:
            pass
        for name in names:
            os.environ[name] = "1"  # (a key not known: every variable)
        sgl.Engine(model_path="m")
        """)
    assert python_envs(monkeypatch, source) == {13: {}}
    source = source.replace('os.environ[name] = "1"', "print(name)")
    assert python_envs(monkeypatch, source) == {13: {"SGLANG_B": "1"}}


def test_the_blocks_that_hold_the_call(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        if __name__ == "__main__":
            os.environ["SGLANG_B"] = "2"
            for attempt in range(3):
                os.environ["SGLANG_C"] = "3"
                sgl.Engine(model_path="m")
                os.environ["SGLANG_D"] = "4"
                os.environ["SGLANG_B"] = "5"
        """)
    assert python_envs(monkeypatch, source) == {8: {"SGLANG_A": "1", "SGLANG_C": "3"}}


def test_a_function_reads_the_module_before_it_and_its_own_statements(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        os.environ["SGLANG_B"] = "1"
        os.environ["SGLANG_C"] = "1"

        def setup():
            os.environ["SGLANG_B"] = "2"

        def main():
            os.environ["SGLANG_D"] = "4"
            setup()
            sgl.Engine(model_path="m")

        def other():
            os.environ["SGLANG_C"] = "3"
            os.environ.pop("SGLANG_A")
            sgl.Engine(model_path="m")
        """)
    assert python_envs(monkeypatch, source) == {
        13: {"SGLANG_D": "4"},  # A and C are written in other(), B in setup() (called before)
        18: {"SGLANG_C": "3"},
    }


def test_a_module_write_after_the_function_is_not_known_there(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        def main():
            sgl.Engine(model_path="m")
        os.environ["SGLANG_A"] = "2"
        os.environ["SGLANG_B"] = "2"
        main()
        """)
    assert python_envs(monkeypatch, source) == {5: {}}


def test_mock_patch_dict_and_monkeypatch(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        from unittest import mock
        os.environ["SGLANG_A"] = "1"

        @mock.patch.dict(os.environ, {"SGLANG_B": "2"})
        def test_decorated():
            sgl.Engine(model_path="m")

        def test_with():
            with mock.patch.dict(os.environ, {"SGLANG_C": "3"}, clear=True):
                sgl.Engine(model_path="m")

        def test_monkeypatch(monkeypatch):
            monkeypatch.setenv("SGLANG_D", "4")
            monkeypatch.delenv("SGLANG_A")
            sgl.Engine(model_path="m")
        """)
    assert python_envs(monkeypatch, source) == {
        8: {"SGLANG_B": "2"},  # SGLANG_A: test_monkeypatch removes it (it may run before)
        12: {"SGLANG_C": "3"},
        17: {"SGLANG_D": "4"},
    }


def test_putenv_reaches_a_child_process_only(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        os.putenv("SGLANG_B", "2")
        sgl.Engine(model_path="m")
        subprocess.Popen(["python", "-m", "sglang.launch_server"])
        subprocess.Popen(["python", "-m", "sglang.launch_server"], env=dict(os.environ))
        os.unsetenv("SGLANG_A")
        subprocess.Popen(["python", "-m", "sglang.launch_server"])
        """)
    assert python_envs(monkeypatch, source) == {
        5: {"SGLANG_A": "1"},
        6: {"SGLANG_A": "1", "SGLANG_B": "2"},
        7: {"SGLANG_A": "1"},
        9: {"SGLANG_B": "2"},
    }


def test_a_subprocess_env_argument(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        CMD = ["python", "-m", "sglang.launch_server"]
        subprocess.Popen(CMD, env={"SGLANG_B": "2"})
        subprocess.Popen(CMD, env={**os.environ, "SGLANG_B": "2"})
        subprocess.Popen(CMD, env=dict(os.environ, SGLANG_B="2"))
        subprocess.Popen(CMD, env={"SGLANG_B": "2", "SGLANG_A": "0", **os.environ})
        subprocess.Popen(CMD, env={"SGLANG_B": "2", **other})
        subprocess.Popen(CMD, env=os.environ.copy() | {"SGLANG_B": "2"})
        subprocess.Popen(CMD, env=None)
        subprocess.Popen(CMD, env=make_env())
        subprocess.Popen(CMD, **options)
        """)
    assert python_envs(monkeypatch, source) == {
        5: {"SGLANG_B": "2"},
        6: {"SGLANG_A": "1", "SGLANG_B": "2"},
        7: {"SGLANG_A": "1", "SGLANG_B": "2"},
        8: {"SGLANG_A": "1"},  # os.environ (merged last) may hold SGLANG_B: its SGLANG_A is known
        9: {},
        10: {"SGLANG_A": "1", "SGLANG_B": "2"},
        11: {"SGLANG_A": "1"},
        12: {},
        13: {},  # env= may be in **options
    }


def test_the_running_interpreter_as_the_command_word(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        import sys
        subprocess.Popen([sys.executable, "-m", "sglang.launch_server"], env={"SGLANG_B": "2"})
        subprocess.Popen([interpreter(), "-m", "sglang.launch_server"], env={"SGLANG_B": "2"})
        subprocess.Popen([runner, "sglang.launch_server"], env={"SGLANG_B": "2"})
        """)
    # an opaque word followed by -m runs a module: the interpreter, whatever its path
    assert python_envs(monkeypatch, source) == {4: {"SGLANG_B": "2"}, 5: {"SGLANG_B": "2"}, 6: {}}


def test_an_env_dict_built_in_steps(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        CMD = ["python", "-m", "sglang.launch_server"]
        os.environ["SGLANG_A"] = "1"
        os.environ["SGLANG_B"] = "1"

        def launch(flag):
            env = os.environ.copy()
            env["SGLANG_C"] = "3"
            env.update({"SGLANG_D": "4"}, SGLANG_E="5")
            del env["SGLANG_A"]
            env.pop("SGLANG_D")
            if flag:
                env["SGLANG_F"] = "6"
            env.setdefault("SGLANG_G", "7")
            os.environ["SGLANG_B"] = "2"  # (after the copy, but a second call copies it)
            return subprocess.Popen(CMD, env=env)

        def handed_on():
            env = {"SGLANG_H": "8"}
            tweak(env)
            subprocess.Popen(CMD, env=env)

        def rebound(envs):
            env = {"SGLANG_H": "8"}
            for env in envs:
                pass
            subprocess.Popen(CMD, env=env)
        """)
    assert python_envs(monkeypatch, source) == {
        17: {"SGLANG_C": "3", "SGLANG_E": "5"},
        22: {},
        28: {},
    }


def test_popen_launch_server_env(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        from sglang.test.test_utils import popen_launch_server
        os.environ["SGLANG_A"] = "1"
        popen_launch_server("m", "http://x", 60, other_args=["--tp", "2"])
        popen_launch_server("m", "http://x", 60, other_args=["--tp", "2"], env={"SGLANG_B": "2"})
        """)
    assert python_envs(monkeypatch, source) == {5: {"SGLANG_A": "1"}, 6: {"SGLANG_B": "2"}}


def test_the_command_s_own_environment(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        import shlex
        os.environ["SGLANG_A"] = "1"
        subprocess.Popen(["env", "-u", "SGLANG_A", "SGLANG_B=2", "python", "-m", "sglang.launch_server"])
        subprocess.Popen(["SGLANG_B=2", "python", "-m", "sglang.launch_server"])
        subprocess.run("SGLANG_B=2 python -m sglang.launch_server --tp 2", shell=True)
        os.system("export SGLANG_B=2; SGLANG_C=$X python -m sglang.launch_server --tp 2")
        os.system(f"SGLANG_B={value} python -m sglang.launch_server --tp 2")
        subprocess.Popen(["bash", "-c", "SGLANG_B=2 python -m sglang.launch_server"], env={"SGLANG_C": "3"})
        subprocess.Popen(shlex.split("env SGLANG_B=2 python -m sglang.launch_server"))
        subprocess.Popen(["docker", "run", "img", "python", "-m", "sglang.launch_server"])
        """)
    assert python_envs(monkeypatch, source) == {
        5: {"SGLANG_B": "2"},
        6: {},  # an argv list runs "SGLANG_B=2" as its program: no assignment, and no launch
        7: {"SGLANG_A": "1", "SGLANG_B": "2"},
        8: {"SGLANG_A": "1", "SGLANG_B": "2"},
        9: {"SGLANG_A": "1"},
        10: {"SGLANG_B": "2", "SGLANG_C": "3"},
        11: {"SGLANG_A": "1", "SGLANG_B": "2"},
        12: {},
    }


def test_what_cannot_be_placed_is_unknown(monkeypatch):
    source = HEAD + textwrap.dedent("""\
        os.environ["SGLANG_A"] = "1"
        start = lambda: sgl.Engine(model_path="m")
        """)
    assert python_envs(monkeypatch, source) == {4: {}}


def test_nothing_is_read_for_a_file_without_a_launch():
    # the reading runs only when a check asks for a launch's environment
    import sglang_lint.checks.server_args.environment as launch_env
    before = len(launch_env._FILES)
    lint(HEAD + 'os.environ["SGLANG_A"] = "1"\nprint(1)\n', "t.py", UNSCREENED)
    assert len(launch_env._FILES) == before
