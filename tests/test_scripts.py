"""sglang's modules run with ``python -m`` (derive/commands/scripts.py, derived/scripts.toml): the parser
each script's main block builds, read from the source, against the parser sglang's own code
builds (real_parsers.py, in another interpreter); the shipped table; the check's verdicts on
their flags against argparse itself; and the modules sglang moved."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from sglang_lint.checks.server_args.flags import ArgWord, Launch, script_uses
from sglang_lint.checks.server_args.table import load_scripts, load_table
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.derive.commands.scripts import tree_scripts
from sglang_lint.derive.commands.scripts import Script
from sglang_lint.derive.commands.scripts_table import Move, moves, scripts_text
from sglang_lint.engine.lint import lint

REAL_PARSERS = Path(__file__).parent / "real_parsers.py"
DERIVED = ROOT / "rules" / "derived"
# the sglang modules a script's parser may be built by: run for real in the child interpreter
REAL = "sglang.bench_,sglang.benchmark,sglang.test.,sglang.compile_deep_gemm"
BENCHMARKS = ("sglang.bench_", "sglang.benchmark.", "sglang.compile_deep_gemm")


def _real(version: str, module: str, *argv: str, flags: tuple = ()) -> dict:
    env = dict(os.environ, FLAGS=",".join(flags))
    command = [sys.executable, "-I", "-S", "-B", str(REAL_PARSERS), str(fetch_tree(version)), "script", module, REAL]
    done = subprocess.run([*command, *argv], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


# Each release group's benchmark scripts: 0.5.2 (the bench_* modules alone), 0.5.15 (sglang.benchmark
# brought in, the old paths stubs that run it), 0.5.23 (bench_one_batch and bench_offline_throughput
# gone; bench_serving and bench_one_batch_server still stubs). module -> (takes ServerArgs' flags,
# the module its stub runs)
RELEASES = {
    "0.5.2": {"sglang.bench_offline_throughput": (True, ""), "sglang.bench_one_batch": (True, ""),
              "sglang.bench_one_batch_server": (True, ""), "sglang.bench_serving": (False, ""),
              "sglang.compile_deep_gemm": (True, "")},
    "0.5.15": {"sglang.bench_offline_throughput": (True, "sglang.benchmark.offline_throughput"),
               "sglang.bench_one_batch": (True, "sglang.benchmark.one_batch"),
               "sglang.bench_one_batch_server": (True, "sglang.benchmark.one_batch_server"),
               "sglang.bench_serving": (False, "sglang.benchmark.serving"),
               "sglang.benchmark.offline_throughput": (True, ""), "sglang.benchmark.one_batch": (True, ""),
               "sglang.benchmark.one_batch_server": (True, ""), "sglang.benchmark.serving": (False, ""),
               "sglang.compile_deep_gemm": (True, "")},
    "0.5.23": {"sglang.bench_one_batch_server": (True, "sglang.benchmark.one_batch_server"),
               "sglang.bench_serving": (False, "sglang.benchmark.serving"),
               "sglang.benchmark.dspark_sts_fit": (False, ""),
               "sglang.benchmark.offline_throughput": (True, ""), "sglang.benchmark.one_batch": (True, ""),
               "sglang.benchmark.one_batch_server": (True, ""), "sglang.benchmark.serving": (False, ""),
               "sglang.compile_deep_gemm": (True, "")},
}


@pytest.mark.corpus
@pytest.mark.parametrize("version", sorted(RELEASES))
def test_each_benchmark_script_s_parser_is_sglang_s_own(version):
    derived = {s.module: s for s in tree_scripts(fetch_tree(version))}
    benchmarks = {name: s for name, s in derived.items() if name.startswith(BENCHMARKS) and s.judged}
    assert {name: (s.server_args, s.runs) for name, s in benchmarks.items()} == RELEASES[version]
    assert "sglang.launch_server" not in derived  # its flags: the server-argument table
    for name, script in benchmarks.items():
        real = _real(version, name)
        assert (set(script.flags), script.server_args) == (set(real["flags"]), real["server_args"]), name
    shipped = load_scripts(DERIVED / "scripts.toml").for_releases([version])
    for name, script in benchmarks.items():  # the merged table holds each as its tree has it
        assert (shipped.get(name).flags, shipped.get(name).server_args) == (frozenset(script.flags),
                                                                            script.server_args)


def _words(*texts: str) -> list:
    return [ArgWord(text, True, object()) for text in texts]


def _verdicts(version: str, module: str, argv: list[str]) -> dict:
    """The check's verdict on each flag of ``python -m MODULE ARGV``: "taken", "unknown" or the
    flags an ambiguous prefix could be."""
    table = load_table(DERIVED / "server_args.toml")
    table = dataclasses.replace(table, scripts=load_scripts(DERIVED / "scripts.toml"))
    table = table.for_releases([version])
    uses = script_uses(Launch(_words(*argv), module=module), table)
    return {use.flag: sorted(use.ambiguous) if use.ambiguous else "taken" if use.known else "unknown"
            for use in uses}


CASES = [  # (release, module, argv): each flag's verdict, then argparse's on the same option strings
    ("0.5.23", "sglang.benchmark.one_batch", ["--model-path", "m", "--batch-size", "1", "--tp-sise", "2"]),
    ("0.5.23", "sglang.benchmark.one_batch", ["--model-path", "m", "--batch", "4"]),
    ("0.5.23", "sglang.benchmark.one_batch", ["--model-path", "m", "--input", "128", "--correctness-test"]),
    ("0.5.23", "sglang.benchmark.serving", ["--backend", "sglang", "--num-prompt", "10", "--tp-size", "2"]),
    ("0.5.2", "sglang.bench_one_batch", ["--model-path", "m", "--batch", "4", "--profile-filename", "p"]),
    ("0.5.10", "sglang.bench_offline_throughput", ["--model-path", "m", "--num-prompts", "3", "--dataset-nme", "x"]),
]


@pytest.mark.corpus
@pytest.mark.parametrize("version,module,argv", CASES, ids=lambda c: c if isinstance(c, str) else None)
def test_the_verdicts_are_argparse_s_on_the_real_parser(version, module, argv):
    # The real parser of the script, with the release's server flags added for real as plain flags
    # (a value each): what argparse says of each flag of ours, alone after the required ones.
    verdicts = _verdicts(version, module, argv)
    script = load_scripts(DERIVED / "scripts.toml").for_releases([version]).get(module)
    server = sorted(load_table(DERIVED / "server_args.toml").for_releases([version]).known_flags) \
        if script.server_args else []
    for flag, verdict in verdicts.items():
        index = argv.index(flag)
        value = [argv[index + 1]] if index + 1 < len(argv) and not argv[index + 1].startswith("--") else []
        said = _real(version, module, *(["--backend", "sglang"] if "serving" in module else []), flag, *value,
                     flags=tuple(f for f in server if f not in script.flags))["verdict"]
        if verdict == "taken":
            assert said == "taken", (flag, said)
        elif verdict == "unknown":
            assert said.startswith("unrecognized arguments"), (flag, said)
        else:
            assert said.startswith(f"ambiguous option: {flag} could match"), (flag, said)
            assert sorted(said.partition(" could match ")[2].split(", ")) == verdict


def test_an_ambiguous_prefix_is_argparse_s_own_verdict():
    # argparse itself: with ServerArgs' --batch-notify-size and a benchmark's --batch-size in one
    # parser, --batch is ambiguous; each alone took it.
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--batch-notify-size")
    parser.add_argument("--batch-size")
    with pytest.raises(SystemExit), _quiet():
        parser.parse_args(["--batch", "1"])
    alone = argparse.ArgumentParser()
    alone.add_argument("--batch-notify-size")
    assert alone.parse_args(["--batch", "1"]).batch_notify_size == "1"
    assert _verdicts("0.5.23", "sglang.benchmark.one_batch", ["--batch", "1"]) == {
        "--batch": ["--batch-notify-size", "--batch-size"]}
    assert _verdicts("0.5.23", "sglang.benchmark.one_batch", ["--batch-s", "1"]) == {"--batch-s": "taken"}


class _quiet:
    def __enter__(self):
        self.stderr, sys.stderr = sys.stderr, open(os.devnull, "w")

    def __exit__(self, *exc):
        sys.stderr.close()
        sys.stderr = self.stderr
        return False


# --- the table over releases and the moves -------------------------------------------------------

def _script(module: str, **facts) -> Script:
    return Script(module, **facts)


def test_a_module_that_left_is_named_after_the_module_its_last_stub_ran():
    history = {
        "0.5.1": (_script("sglang.bench_x", parses=True, flags=("--a",), judged=True),),
        "0.5.2": (_script("sglang.bench_x", runs="sglang.benchmark.x", parses=True, flags=("--a",), judged=True),
                  _script("sglang.benchmark.x", parses=True, flags=("--a",), judged=True)),
        "0.5.3": (_script("sglang.benchmark.x", parses=True, flags=("--a",), judged=True),),
    }
    assert moves(history) == {"sglang.bench_x": Move("sglang.benchmark.x", True)}
    table = scripts_text(history)
    assert '[modules."sglang.bench_x"]\nrange = ["", "0.5.3"]\nparses = ["", ""]\njudged = ["", ""]\n' \
        'runs = { "sglang.benchmark.x" = ["0.5.2", ""] }\nflags = [\n    "--a",\n]\n' \
        'moved_to = "sglang.benchmark.x"\nunchanged = true\n' in table


def test_a_module_of_the_same_name_that_came_in_its_place_is_where_it_moved():
    old = _script("sglang.tools.y", parses=True, flags=("--a",), judged=True)
    history = {"0.5.1": (old,), "0.5.2": (_script("sglang.cli.y", parses=True, flags=("--a", "--b"), judged=True),)}
    assert moves(history) == {"sglang.tools.y": Move("sglang.cli.y", False)}  # its parser changed
    history["0.5.2"] = (_script("sglang.cli.y", parses=True, flags=("--a",), judged=True),)
    assert moves(history) == {"sglang.tools.y": Move("sglang.cli.y", True)}
    history["0.5.2"] += (_script("sglang.other.y"),)  # two candidates: none is named
    assert moves(history) == {}


def test_the_moved_module_is_named_and_fixed_in_every_form(tmp_path):
    source = "import subprocess\nsubprocess.run(['python', '-m', 'sglang.bench_one_batch', '--batch-size', '1'])\n"
    found = lint(source, "x.py")
    assert [(d.line, d.col, d.code, d.message) for d in found] == [
        (2, 32, "SGL015", "python -m sglang.bench_one_batch: sglang 0.5.23 has no module sglang.bench_one_batch "
                          "(removed in sglang 0.5.21); it moved to sglang.benchmark.one_batch (fixable with "
                          "`sglang-lint --fix`)")]
    shell = lint(b"python -m sglang.bench_one_batch --model-path m\n", "run.sh")
    assert [(d.line, d.col, d.code) for d in shell] == [(1, 10, "SGL015")]
    assert lint(b"python -m sglang.never_a_module --x\npython -m sglang.check_env\n", "run.sh") == []


def test_a_range_of_releases_judges_a_script_only_where_every_one_has_it():
    scripts = load_scripts(DERIVED / "scripts.toml")
    both = scripts.for_releases(["0.5.20", "0.5.21"]).get("sglang.bench_one_batch")  # a stub, then gone
    assert (both.present, both.absent, both.judged) == (False, False, False)  # neither judged nor gone
    gone = scripts.for_releases(["0.5.21", "0.5.23"]).get("sglang.bench_one_batch")
    assert (gone.absent, gone.span, gone.moved_to, gone.unchanged) == (True, ("", "0.5.21"),
                                                                       "sglang.benchmark.one_batch", True)
    early = scripts.for_releases(["0.5.10"]).get("sglang.benchmark.one_batch")  # not there yet: nowhere to move
    assert (early.absent, early.span, early.moved_to) == (True, ("0.5.15", ""), "")
    serving = scripts.for_releases(["0.5.2", "0.5.23"]).get("sglang.bench_serving")  # its own parser in both
    assert (serving.judged, serving.server_args, "--dataset-name" in serving.flags) == (True, False, True)
