"""sglang's own launch entry points (derive/commands/launchers.py): the functions whose parameter takes
launch flags and hands them to the server launcher, read from small fake trees, and from
sglang 0.5.23 itself."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sglang_lint.core.rulefile import tomllib
from sglang_lint.derive.commands.launchers import LAUNCHERS_TABLE, EntryPoint, launch_entry_points, launchers_text
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.source.tree import read_modules
from sglang_lint.derive.sites.writing import _write_launchers


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """A fake sglang package: ``{"sglang/test/x.py": source}``, every folder a package."""
    for name, source in {"sglang/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            if str(folder) != ".":
                (root / folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def entries_of(root: Path, files: dict[str, str]) -> dict[tuple[str, str], EntryPoint]:
    found = launch_entry_points(read_modules(write_tree(root, files)))
    return {(e.name, e.argument): e for e in found}


def shape(entry: EntryPoint) -> tuple:
    return entry.kind, entry.position, entry.takes


# --- a launch in the function itself --------------------------------------------------------

DIRECT = """\
import subprocess
import sys

LAUNCH = [sys.executable, "-m", "sglang.launch_server"]
SERVER_MODULE = "sglang.launch_server"


def splat(model, other_args=None):
    other_args = other_args or []
    command = ["python3", "-m", "sglang.launch_server", "--model-path", model, *[str(x) for x in other_args]]
    return subprocess.Popen(command)


def added(model, extra):
    return subprocess.run(LAUNCH + ["--model-path", model] + extra, check=True)


def extended(flags, port):
    cmd = list(LAUNCH)
    cmd.extend(flags)
    cmd += ["--port", str(port)]
    return subprocess.check_call(cmd)


def augmented(model, *, flags):
    cmd = [sys.executable, "-m", SERVER_MODULE]
    cmd += flags
    subprocess.Popen(cmd)


def served(args, host="127.0.0.1"):
    if host:
        args = list(args)
        args += ["--host", host]
    subprocess.Popen(["sglang", "serve", *args])


def either_launcher(pd, other_args):
    if pd:
        module = "sglang.launch_pd_server"
    else:
        module = "sglang.launch_server"
    subprocess.Popen(["python3", "-m", module, *other_args])
"""


def test_a_launch_with_the_parameter_spliced_in_makes_an_entry_point(tmp_path):
    entries = entries_of(tmp_path, {"sglang/test/launch.py": DIRECT})
    name = "sglang.test.launch."
    assert {key: shape(e) for key, e in entries.items()} == {
        (name + "splat", "other_args"): ("function", 1, "flags"),
        (name + "added", "extra"): ("function", 1, "flags"),
        (name + "extended", "flags"): ("function", 0, "flags"),
        (name + "augmented", "flags"): ("function", None, "flags"),
        (name + "served", "args"): ("function", 0, "flags"),
        (name + "either_launcher", "other_args"): ("function", 1, "flags"),
    }
    assert entries[(name + "splat", "other_args")].evidence == "sglang/test/launch.py:11"
    assert entries[(name + "extended", "flags")].evidence == "sglang/test/launch.py:22"
    # the program the flags go to: `sglang serve`'s (its parsers judge them), else the launcher's
    assert {key[0][len(name):] for key, e in entries.items() if e.program == "serve"} == {"served"}
    assert {e.program for e in entries.values()} == {"", "serve"}


NOT_LAUNCHED = """\
import subprocess


def filtered(other_args):
    kept = [a for a in other_args if a != "--debug"]
    subprocess.Popen(["sglang", "serve", *kept])


def rebuilt(other_args):
    flags = []
    for arg in other_args:
        flags.append(arg.replace("_", "-"))
    subprocess.Popen(["sglang", "serve", *flags])


def shrunk(other_args):
    other_args.remove("--debug")
    subprocess.Popen(["sglang", "serve", *other_args])


def replaced(other_args):
    other_args = ["--tp-size", "2"]
    subprocess.Popen(["sglang", "serve", *other_args])


def another_tool(other_args):
    subprocess.Popen(["python3", "-m", "sglang.bench_serving", *other_args])


def one_value(model):
    subprocess.Popen(["sglang", "serve", "--model-path", model])


def never_run(other_args):
    return ["sglang", "serve", *other_args]


def splatted_varargs(*args, **kwargs):
    subprocess.Popen(["sglang", "serve", *args])
"""


def test_a_filtered_rebuilt_or_replaced_list_is_not_the_users_any_more(tmp_path):
    assert entries_of(tmp_path, {"sglang/test/launch.py": NOT_LAUNCHED}) == {}


# --- passed on: across modules, by keyword and by position ----------------------------------

TEST_UTILS = """\
import subprocess


def _popen(command, env=None):
    return subprocess.Popen(command, env=env)


def popen_launch_server(model, base_url, timeout, api_key=None, other_args=None, env=None):
    other_args = other_args or []
    command = ["sglang", "serve", "--model-path", model, *[str(x) for x in other_args]]
    return _popen(command, env)


def run_bench_serving(model, num_prompts, other_server_args, **kwargs):
    return popen_launch_server(model, "http://127.0.0.1:2157", 600, other_args=other_server_args)


def run_embeddings(model, other_server_args=None):
    if other_server_args is None:
        other_server_args = []
    server_args = ["--is-embedding"] + other_server_args
    return popen_launch_server(model, "http://127.0.0.1:2157", 600, None, server_args)


def through_kwargs(model, **kwargs):
    return popen_launch_server(model, "http://127.0.0.1:2157", 600, **kwargs)


def through_rebuild(model, flags):
    return popen_launch_server(model, "http://127.0.0.1:2157", 600, other_args=sorted(flags))


def unused_runner(command):
    return subprocess.run(command)
"""

KIT = """\
from ..test_utils import run_bench_serving
from .. import test_utils


def bench(model, prompts, server_flags):
    return run_bench_serving(model, prompts, server_flags)


def launch(model, server_flags):
    return test_utils.popen_launch_server(model, "url", 60, other_args=server_flags)
"""

NIGHTLY = """\
from sglang.test.kits.kit import bench


def nightly(server_flags, model="m"):
    return bench(model, 100, server_flags=server_flags)
"""


def test_a_parameter_passed_on_unchanged_takes_flags_too(tmp_path):
    entries = entries_of(tmp_path, {
        "sglang/test/test_utils.py": TEST_UTILS, "sglang/test/kits/kit.py": KIT, "sglang/test/nightly.py": NIGHTLY,
    })
    utils = "sglang.test.test_utils."
    assert {key: shape(e) for key, e in entries.items()} == {
        (utils + "popen_launch_server", "other_args"): ("function", 4, "flags"),
        (utils + "run_bench_serving", "other_server_args"): ("function", 2, "flags"),
        (utils + "run_embeddings", "other_server_args"): ("function", 1, "flags"),
        ("sglang.test.kits.kit.bench", "server_flags"): ("function", 2, "flags"),
        ("sglang.test.kits.kit.launch", "server_flags"): ("function", 1, "flags"),
        ("sglang.test.nightly.nightly", "server_flags"): ("function", 0, "flags"),
        # the runner the launch command goes through (a whole command line, launcher included)
        (utils + "_popen", "command"): ("function", 0, "command"),
    }
    launch = "sglang/test/test_utils.py:11"  # where popen_launch_server hands its command on
    assert {e.evidence for key, e in entries.items() if e.takes == "flags"} == {launch}
    # ... to `sglang serve`, whose parsers judge them wherever they are handed on from
    assert {e.program for e in entries.values() if e.takes == "flags"} == {"serve"}
    assert entries[(utils + "_popen", "command")].evidence == "sglang/test/test_utils.py:5"


def test_a_command_that_may_run_the_launcher_or_sglang_serve_hands_its_flags_to_sglang_serve(tmp_path):
    # (serve's verdicts are the launcher's too: its LLM server's, where the diffusion server lacks the flag)
    either = """\
        import subprocess


        def start(extra, diffusion=False):
            cmd = ["sglang", "serve"] if diffusion else ["python3", "-m", "sglang.launch_server"]
            subprocess.Popen(cmd + extra)
    """
    entries = entries_of(tmp_path, {"sglang/test/either.py": either})
    assert [(shape(e), e.program) for e in entries.values()] == [(("function", 0, "flags"), "serve")]
    # (sglang's own table leaves it out: it stands for every release, and popen_launch_server ran the
    # launcher before 0.5.10; a project's helpers keep it, frontends/project.py)
    text = launchers_text(list(entries.values()), "0.5.23")
    assert 'takes = "flags"\nevidence = "sglang/test/either.py:6"' in text and "program" not in text


def test_a_command_runner_makes_the_flags_around_it_an_entry_point(tmp_path):
    runner = """\
        import subprocess


        def popen_with_error_check(command: list[str]):
            return subprocess.Popen(command)


        def run_command(cmd):
            return popen_with_error_check(cmd)


        def start(extra_flags):
            return run_command(["python", "-m", "sglang.launch_server", *extra_flags])
    """
    entries = entries_of(tmp_path, {"sglang/test/runner.py": runner})
    assert {key: shape(e) for key, e in entries.items()} == {
        ("sglang.test.runner.start", "extra_flags"): ("function", 0, "flags"),
        ("sglang.test.runner.run_command", "cmd"): ("function", 0, "command"),
        ("sglang.test.runner.popen_with_error_check", "command"): ("function", 0, "command"),
    }
    assert entries[("sglang.test.runner.start", "extra_flags")].evidence == "sglang/test/runner.py:13"


# --- methods --------------------------------------------------------------------------------

METHODS = """\
from sglang.test.test_utils import popen_launch_server


class BaseServerTest:
    def launch_for(self, model, other_args=None):
        return popen_launch_server(model, "url", 60, other_args=other_args)

    @staticmethod
    def launch_static(model, flags):
        return popen_launch_server(model, "url", 60, other_args=flags)

    def setup(self, flags):
        return self.launch_for("m", flags)

    def shared_name(self, flags):
        return popen_launch_server("m", "url", 60, other_args=flags)

    def test_launch(self, flags):
        return popen_launch_server("m", "url", 60, other_args=flags)


class Other:
    def shared_name(self, flags):
        return flags
"""


def test_a_method_is_an_entry_point_when_no_other_class_has_its_name(tmp_path):
    entries = entries_of(tmp_path, {"sglang/test/test_utils.py": TEST_UTILS, "sglang/test/base.py": METHODS})
    methods = {key: shape(e) for key, e in entries.items() if e.kind == "method"}
    assert methods == {
        ("launch_for", "other_args"): ("method", 1, "flags"),
        ("launch_static", "flags"): ("method", 1, "flags"),
        ("setup", "flags"): ("method", 0, "flags"),  # through self.launch_for
    }


# --- parsed by a parser that ServerArgs filled ----------------------------------------------

SERVER_ARGS = """\
import argparse


class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--tp-size", type=int)

    @classmethod
    def from_cli_args(cls, args):
        return cls()


def merge(argv):
    return argv


def prepare_server_args(argv: list[str]) -> ServerArgs:
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    if "--config" in argv:
        argv = merge(argv)
    raw_args = parser.parse_args(argv)
    return ServerArgs.from_cli_args(raw_args)


def known_only(argv):
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    raw_args, unknown = parser.parse_known_args(argv)
    return ServerArgs.from_cli_args(raw_args)


def other_parser(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--port")
    return parser.parse_args(argv)


def filtered_first(argv):
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    argv = [a for a in argv if a.startswith("--")]
    return parser.parse_args(argv)
"""

CLI = """\
from sglang.srt.server_args import prepare_server_args


def run(argv):
    return prepare_server_args(list(argv))
"""


def test_prepare_server_args_and_a_server_args_parser_take_flags(tmp_path):
    entries = entries_of(tmp_path, {"sglang/srt/server_args.py": SERVER_ARGS, "sglang/cli/serve.py": CLI})
    assert {key: shape(e) for key, e in entries.items()} == {
        ("sglang.srt.server_args.prepare_server_args", "argv"): ("function", 0, "flags"),
        ("sglang.srt.server_args.known_only", "argv"): ("function", 0, "flags"),
        ("sglang.cli.serve.run", "argv"): ("function", 0, "flags"),
    }
    assert entries[("sglang.srt.server_args.prepare_server_args", "argv")].evidence == "sglang/srt/server_args.py:23"
    assert entries[("sglang.cli.serve.run", "argv")].evidence == "sglang/srt/server_args.py:23"


# --- the table ------------------------------------------------------------------------------

def test_the_table_text_is_exact_and_sorted(tmp_path):
    entries = entries_of(tmp_path, {"sglang/test/test_utils.py": TEST_UTILS, "sglang/test/base.py": METHODS})
    small = [entries[("launch_for", "other_args")],
             entries[("sglang.test.test_utils.popen_launch_server", "other_args")],
             EntryPoint("function", "sglang.x.run", "flags", None, "flags", "sglang/x.py:3")]
    text = launchers_text(small, "0.5.23")
    assert text == launchers_text(list(reversed(small)), "0.5.23")
    assert text == textwrap.dedent('''\
        # Generated by `sglang-lint catalog derive`: do not edit; re-derive instead.
        # The functions of sglang 0.5.23 that take launch flags in a parameter and hand them to the
        # server launcher (takes = "flags": a list like ["--tp-size", "2"]; "command": a whole command
        # line, launcher included). A method is named alone (no other sglang class has one of its name)
        # and is matched on a receiver of its class (receivers). The diffusion server's own entry
        # points (sglang.multimodal_gen) are left out: its flags are another parser's.
        # position counts from the first parameter after self/cls; none for a keyword-only one.

        [[entry_point]]
        function = "sglang.test.test_utils.popen_launch_server"
        argument = "other_args"
        position = 4
        takes = "flags"
        evidence = "sglang/test/test_utils.py:11"

        [[entry_point]]
        function = "sglang.x.run"
        argument = "flags"
        takes = "flags"
        evidence = "sglang/x.py:3"

        [[entry_point]]
        method = "launch_for"
        argument = "other_args"
        position = 1
        receivers = ["sglang.test.base.BaseServerTest"]
        takes = "flags"
        evidence = "sglang/test/test_utils.py:11"
        ''')
    assert len(tomllib.loads(text)["entry_point"]) == 3


def test_derive_sites_carries_the_entry_points_and_the_writer_writes_them(tmp_path):
    root = write_tree(tmp_path / "tree", {"sglang/_version.py": '__version__ = "9.9.9"\n',
                                          "sglang/test/test_utils.py": TEST_UTILS})
    derivation = derive_sites(root)
    assert ("sglang.test.test_utils.run_bench_serving", "other_server_args", 2) in {
        (e.name, e.argument, e.position) for e in derivation.launch_entry_points}
    out = tmp_path / "derived"
    out.mkdir()
    _write_launchers(out, derivation)
    assert (out / LAUNCHERS_TABLE).read_text() == launchers_text(derivation.launch_entry_points, "9.9.9")
    assert derivation.keyword_launchers == []  # (no ServerArgs in this tree)
    derivation.launch_entry_points = []
    _write_launchers(out, derivation)  # the rules name the table: it is written even when empty
    assert tomllib.loads((out / LAUNCHERS_TABLE).read_text()) == {}


# --- sglang 0.5.23 itself -------------------------------------------------------------------

# Each read off the source: (name, argument, position).
KNOWN_0_5_23 = {
    ("sglang.test.test_utils.popen_launch_server", "other_args", 4),
    ("sglang.test.test_utils.popen_launch_pd_server", "other_args", 4),
    ("sglang.test.test_utils.run_bench_serving", "other_server_args", 3),
    ("sglang.test.test_utils.run_bench_serving_multi", "other_server_args", 2),
    ("sglang.test.test_utils.run_bench_one_batch_server", "other_server_args", 4),
    ("sglang.test.test_utils.run_score_benchmark", "other_server_args", 3),
    ("sglang.test.test_utils.run_score_benchmark_multi", "other_server_args", 3),
    ("sglang.test.test_utils.run_embeddings_benchmark", "other_server_args", 4),
    ("sglang.test.test_utils.run_embeddings_benchmark_multi", "other_server_args", 4),
    ("sglang.test.ascend.test_ascend_utils.run_bench_serving", "other_server_args", 3),
    ("sglang.test.hicache_xpu_common.launch_server", "other_args", 2),
    ("sglang.srt.server_args.prepare_server_args", "argv", 0),
    ("run_test", "other_args", 3),  # BaseTestGptOss (sglang/test/gpt_oss_common.py)
    ("_run_test_raw", "other_args", 2),
    ("run_benchmark_for_model", "other_args", 4),  # NightlyBenchmarkRunner
    ("run_stress_test_for_model", "server_args", 4),  # StressTestRunner
}


@pytest.mark.corpus
def test_sglang_0_5_23_s_launch_entry_points(sglang_tree, sglang_derivation):
    entries = sglang_derivation.launch_entry_points
    flags = {(e.name, e.argument, e.position) for e in entries if e.takes == "flags"}
    assert KNOWN_0_5_23 <= flags
    assert len(flags) == len({(e.name, e.argument) for e in entries if e.takes == "flags"})
    by_name = {e.name: e for e in entries}
    launch = by_name["sglang.test.test_utils.popen_launch_server"].evidence
    path, _, line = launch.partition(":")
    assert "_launch_server_process(command" in (sglang_tree / path).read_text().splitlines()[int(line) - 1]
    assert by_name["sglang.srt.server_args.prepare_server_args"].evidence.startswith("sglang/srt/server_args.py:")
    assert not any(e.name.rpartition(".")[2].startswith("test") for e in entries)
    # The diffusion server's own (sglang.multimodal_gen prepare_server_args...): another parser.
    assert not any(e.name.startswith("sglang.multimodal_gen.") for e in entries)
    assert {e.receivers for e in entries if e.kind == "method"} >= {("sglang.test.gpt_oss_common.BaseTestGptOss",)}
    text = (Path(__file__).parent.parent / "rules" / "derived" / LAUNCHERS_TABLE).read_text()
    commands = sglang_derivation.commands  # (what derive_sites hands the writer: the tree's subcommands)
    flags = commands.diffusion.flags
    assert "--text-encoder-cpu-offload" in flags and "--max-model-len" not in flags
    keywords = sglang_derivation.keyword_launchers
    assert text == launchers_text(entries, "0.5.23", commands, keywords, True)  # the shipped table is 0.5.23's
    assert text.endswith('\n[serve]\ntable = "serve.toml"\n\n# `python -m sglang.<module>`: the modules each '
                         "release has, and what each one's parser takes:\n[scripts]\ntable = \"scripts.toml\"\n")


# --- a command string split into the argv a runner gets -------------------------------------

SHELL_STRINGS = '''\
import shlex
import subprocess


def execute_shell_command(command):
    command = command.replace("\\\\\\n", " ").strip()
    parts = command.split()
    i = 0
    parts = parts[i:]
    return subprocess.Popen(parts)


def launch_server_cmd(command, host="0.0.0.0", port=None):
    full_command = f"{command} --port {port}"
    return execute_shell_command(full_command)


def quoted(command):
    return subprocess.run(shlex.split(command))


def echoed(command):
    return subprocess.Popen(f"echo {command}".split())


def tail_only(command):
    return subprocess.Popen(command.split()[:2])
'''


def test_a_command_string_split_into_the_argv_is_taken_as_a_shell_line(tmp_path):
    found = entries_of(tmp_path / "tree", {"sglang/utils.py": SHELL_STRINGS})
    assert {key: shape(e) for key, e in found.items()} == {
        ("sglang.utils.execute_shell_command", "command"): ("function", 0, "shell"),
        # handed on at the head of an f-string: still the whole command line
        ("sglang.utils.launch_server_cmd", "command"): ("function", 0, "shell"),
        ("sglang.utils.quoted", "command"): ("function", 0, "shell"),
        # not at the head, or only part of its words: another command
    }
