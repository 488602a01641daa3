"""``sglang serve`` and ``sglang generate``: the parsers they build, read from sglang's source
(derive/server_args/parsers.py, derive/commands/subcommands.py), merged over releases
(derive/commands/serve.py, serve.toml), and the check that judges a launch's flags by them
(launch_flags.command_uses). First on small fake trees; then on sglang's own releases, against
the parser sglang itself builds (imported from the unpacked wheel in another interpreter,
everything heavy stubbed: real_parsers.py), both ways."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, lint_in_process
from sglang_lint import lint
from sglang_lint.checks.server_args.table import ParserTable, load_commands
from sglang_lint.derive.commands import serve as serve_table
from sglang_lint.derive.commands.subcommands import Commands, ParserFacts, read_commands, tree_commands
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.derive.commands.serve import commands_text, release_commands, write_commands
from sglang_lint.derive.source.tree import read_modules
from sglang_lint.engine.ruletable import RuleSet, default_rules
from test_derive_launchers import write_tree

SHIPPED = ROOT / "rules" / "derived" / "serve.toml"
REAL_PARSERS = Path(__file__).parent / "real_parsers.py"

SERVE = """\
import argparse

from sglang.cli.utils import get_is_diffusion_model


def _extract_model_type(argv):
    kept = []
    for arg in argv:
        if arg == "--model-type":
            continue
        kept.append(arg)
    return kept


def serve(args, extra_argv):
    argv = _extract_model_type(extra_argv)
    if get_is_diffusion_model(argv):
        from sglang.multimodal_gen.entry import add_serve_args, execute

        parser = argparse.ArgumentParser(description="diffusion")
        add_serve_args(parser)
        known, rest = parser.parse_known_args(argv)
        execute(known, rest)
    else:
        from sglang.srt.server_args import prepare_server_args

        prepare_server_args(argv)


def _help():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only-in-help")  # printed, never parsed: no backend's
    parser.print_help()
"""
GENERATE = """\
import argparse

from sglang.multimodal_gen.entry import add_generate_args


def generate(args, extra_argv):
    parser = argparse.ArgumentParser(add_help=False)
    add_generate_args(parser)
    parser.parse_args(extra_argv)
"""
ENTRY = """\
import argparse

from sglang.multimodal_gen.args import ServerArgs
from sglang.multimodal_gen.config import PipelineConfig


def add_serve_args(parser):
    parser.add_argument("--config")
    parser = ServerArgs.add_cli_args(parser)
    PipelineConfig.add_cli_args(parser)
    PipelineConfig.add_cli_args(parser, prefix="refiner")
    _pipeline_specific(parser)
    return parser


def _pipeline_specific(parser):
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--pipeline")  # a pre-parse of sys.argv: not the backend's parser
    known, _ = pre.parse_known_args()
    classes = lookup(known.pipeline)
    if classes:
        classes[0].add_pipeline_cli_args(parser)


def add_generate_args(parser):
    ServerArgs.add_cli_args(parser)
    group = parser.add_argument_group("sampling")

    def add(*flags, **kwargs):
        kwargs.setdefault("default", None)
        return group.add_argument(*flags, **kwargs)

    add("--prompt", "-p")
    for name in ("steps", "guidance"):
        add(f"--num-{name}")
    return parser


def execute(args, unknown):
    ServerArgs.from_cli_args(args, unknown)


def lookup(name):
    return None
"""
ARGS = """\
PREFIX = "dit"


class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str)
        parser.add_argument(f"--{PREFIX}-precision", choices=["fp16"])
        if platform_has_gpu():
            parser.add_argument("--gpu-only")
        return parser

    @classmethod
    def _extract(cls, unknown_args, prefixes, suffix=None):
        remaining = []
        for arg in unknown_args:
            key = arg.split("=", 1)[0]
            if any(key.startswith(p) for p in prefixes) or (key.startswith("--") and key.endswith(suffix)):
                continue
            if arg.startswith("-"):
                remaining.append(arg)
        return {}, remaining

    @classmethod
    def from_cli_args(cls, args, unknown_args=None):
        _, remaining = cls._extract(unknown_args, prefixes=("--component-paths.",), suffix="-path")
        if remaining:
            raise SystemExit(f"error: unrecognized arguments: {' '.join(remaining)}")
"""
CONFIG = """\
class PipelineConfig:
    @staticmethod
    def add_cli_args(parser, prefix=""):
        dot = f"{prefix}." if prefix.strip() != "" else ""
        if dot != "":
            parser.add_argument(f"--{dot}model-path")
        parser.add_argument(f"--{dot}vae-precision", dest=f"{dot.replace('-', '_')}vae_precision")
        VAEConfig.add_cli_args(parser, prefix=f"{dot}vae-config")


class VAEConfig:
    @staticmethod
    def add_cli_args(parser, prefix="vae-config"):
        parser.add_argument(f"--{prefix}.use-tiling")


class FluxConfig(PipelineConfig):
    @staticmethod
    def add_pipeline_cli_args(parser):
        for flag in ("alpha", "beta"):
            parser.add_argument(f"--flux-{flag}")


class OtherConfig(PipelineConfig):
    @staticmethod
    def add_pipeline_cli_args(parser):
        parser.add_argument("--other-knob")
"""
TREE = {"sglang/_version.py": '__version__ = "9.9.9"\n', "sglang/cli/serve.py": SERVE,
        "sglang/cli/generate.py": GENERATE, "sglang/multimodal_gen/entry.py": ENTRY,
        "sglang/multimodal_gen/args.py": ARGS, "sglang/multimodal_gen/config.py": CONFIG}
FAKE = Commands(
    serve=True, backends=("llm", "diffusion"), selector=("--model-type",),
    diffusion=ParserFacts(
        ("--config", "--dit-precision", "--flux-alpha", "--flux-beta", "--gpu-only", "--help", "--model-path",
         "--other-knob", "--refiner.model-path", "--refiner.vae-config.use-tiling", "--refiner.vae-precision",
         "--vae-config.use-tiling", "--vae-precision", "-h"),
        prefixes=("--component-paths.",), suffixes=("-path",)),
    generate=ParserFacts(("--dit-precision", "--gpu-only", "--model-path", "--num-guidance", "--num-steps", "--prompt",
                          "-p")),
)


def test_the_parsers_a_fake_tree_builds(tmp_path):
    """A prefix handed down (f"--{dot}vae-precision"), a wrapper closing over a group, a loop
    over literals, a branch it cannot decide (both ways), a method of a class chosen at run
    time (every one of that name); not the help parser nor the pre-parse of sys.argv. The
    words the diffusion parser leaves go to from_cli_args, which exits on all but the forms
    its helper tests for; generate's parse_args stops on any."""
    root = write_tree(tmp_path, TREE)
    assert tree_commands(root) == FAKE
    assert read_commands(read_modules(root)) == FAKE  # the tree as derive_sites reads it


def test_a_release_that_ignores_the_words_its_parser_leaves_takes_any_flag(tmp_path):
    lenient = ARGS.replace('raise SystemExit(f"error: unrecognized arguments', 'print(f"ignored')
    found = tree_commands(write_tree(tmp_path, {**TREE, "sglang/multimodal_gen/args.py": lenient}))
    assert found.diffusion == ParserFacts(FAKE.diffusion.flags, open=True)
    assert found.generate == FAKE.generate


def test_a_tree_without_the_sglang_command_has_none(tmp_path):
    assert tree_commands(write_tree(tmp_path, {"sglang/srt/server_args.py": "X = 1\n"})) == Commands()
    assert not Commands()


# --- the table over releases ---------------------------------------------------------------------

def _facts(*flags, open_=False, prefixes=(), suffixes=()) -> ParserFacts:
    return ParserFacts(tuple(sorted(flags)), open_, prefixes, suffixes)


HISTORY = {
    "0.1.0": Commands(),
    "0.2.0": Commands(True, ("llm", "diffusion"), (), _facts("--a", "--old", open_=True), _facts("--g")),
    "0.3.0": Commands(True, ("llm", "diffusion"), ("--model-type",), _facts("--a", "--new", prefixes=("--c.",)),
                      _facts("--g", "--h")),
}


@pytest.fixture
def history_table(tmp_path):
    out = tmp_path / "derived"
    out.mkdir()
    write_commands(out, HISTORY)
    load_commands.cache_clear()
    return out / "serve.toml"


def test_the_table_records_each_item_with_its_releases(history_table):
    assert history_table.read_text() == commands_text(HISTORY)
    assert 'range = ["0.2.0", ""]\nbackends = { "diffusion" = ["0.2.0", ""], "llm" = ["0.2.0", ""] }\n' \
           'selector = { "--model-type" = ["0.3.0", ""] }' in history_table.read_text()
    newest = load_commands(history_table)
    assert (newest.version, newest.serve, newest.selects, newest.backends) == ("0.3.0", True, True,
                                                                               frozenset({"llm", "diffusion"}))
    assert newest.diffusion == ParserTable(frozenset({"--a", "--new"}), ("--c.",), (), False)
    assert newest.generate == ParserTable(frozenset({"--g", "--h"}))
    older = newest.for_releases(["0.2.0"])
    assert (older.serve, older.selector, older.selects) == (True, frozenset(), False)
    assert older.diffusion == ParserTable(frozenset({"--a", "--old"}), (), (), True)
    both = newest.for_releases(["0.1.0", "0.2.0", "0.3.0"])  # a range: what any of its releases takes
    assert both.diffusion == ParserTable(frozenset({"--a", "--old", "--new"}), ("--c.",), (), True)
    assert (both.selector, both.selects) == (frozenset({"--model-type"}), False)  # 0.2.0 reads no --model-type
    none = newest.for_releases(["0.1.0"])
    assert (none.serve, none.diffusion, none.generate) == (False, None, None)


def test_what_a_parser_takes():
    parser = ParserTable(frozenset({"--vae-precision", "--vae-config.use-tiling"}), ("--component-paths.",),
                         ("-path",))
    taken = ["--vae-precision", "--vae-prec", "--vae-config.use", "--component-paths.vae", "--text-encoder-path"]
    assert [flag for flag in taken + ["--vae-config.tiling", "--request-rate", "--path-x"] if parser.takes(flag)] \
        == taken
    assert ParserTable(frozenset(), open=True).takes("--anything")


def test_no_release_with_the_command_writes_no_table_and_removes_an_old_one(tmp_path):
    (tmp_path / "serve.toml").write_text("old")
    write_commands(tmp_path, {"0.1.0": Commands()})
    assert not (tmp_path / "serve.toml").exists()


def test_a_release_is_read_once_and_kept(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "tree", TREE)
    fetched = []
    monkeypatch.setattr(serve_table, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(serve_table, "fetch_tree", lambda version: fetched.append(version) or root)
    assert release_commands("9.9.9") == FAKE == release_commands("9.9.9")
    assert fetched == ["9.9.9"]


def test_catalog_derive_writes_the_table_and_names_it(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    rules = tmp_path / "rules"
    (rules / "derived").mkdir(parents=True)
    done = lint_in_process("catalog", "derive", "--sglang", str(root), "--rules", str(rules))
    assert done.returncode == 0, done.stderr
    assert (rules / "derived" / "serve.toml").read_text() == commands_text({"9.9.9": FAKE})
    assert (rules / "derived" / "launchers.toml").read_text().endswith('\n[serve]\ntable = "serve.toml"\n')


# --- the check, on the shipped tables ------------------------------------------------------------

LINES = [
    # a diffusion model's flags, its pipeline config's among them, and the component forms
    "sglang serve --model-path black-forest-labs/FLUX.1-dev --vae-precision fp32 --text-encoder-precisions bf16 bf16"
    " --embedded-cfg-scale 3.5 --vae-config.use-tiling true --component-paths.vae /v --text-encoder-path /t",
    "sglang serve --model-path m --request-rate 4 --max-model-len 8",  # a benchmark's flag; vLLM's
    "sglang serve --model-path m --model-type llm --vae-precision fp32",  # the LLM server picked
    "sglang serve --model-path m --model-type diffusion --tp-size 2 --context-length 8",  # the diffusion server
    "sglang serve --model-path m --model-type $TYPE --request-rate 4",  # a backend it cannot read
    "sglang serve m --vae-decode-precision fp32",  # (the diffusion server's from 0.5.18)
    "sglang generate --model-path m --prompt p --num-inference-steps 8 --num-prompts 8",
]
SCRIPT = "\n".join(LINES) + "\n"


def _findings(releases) -> list:
    ruleset = RuleSet(default_rules()).for_releases(releases)
    return [(d.line, d.col + 1, d.message) for d in lint(SCRIPT, "launch.sh", ruleset) if d.code == "SGL009"]


VLLM_LEN = "vLLM's --max-model-len is sglang's --context-length (fixable with `sglang-lint --fix`)"


def test_serve_and_generate_flags_are_judged_by_the_parsers_of_the_target_release():
    both = "has no such server argument and its diffusion server no such flag"
    assert _findings(["0.5.23"]) == [
        (2, 29, f"launch flag --request-rate: sglang 0.5.23 {both}"),
        (2, 46, f"launch flag --max-model-len: sglang 0.5.23 {both}; {VLLM_LEN}"),
        (3, 46, "launch flag --vae-precision: sglang 0.5.23 has no such server argument"),
        (4, 64, "launch flag --context-length: sglang 0.5.23's diffusion server has no such flag"),
        (7, 67, "launch flag --num-prompts: `sglang generate` of sglang 0.5.23 has no such flag"),
    ]
    assert _findings(["0.5.16"]) == [
        (2, 29, f"launch flag --request-rate: sglang 0.5.16 {both}"),
        (2, 46, f"launch flag --max-model-len: sglang 0.5.16 {both}; {VLLM_LEN}"),
        (3, 46, "launch flag --vae-precision: sglang 0.5.16 has no such server argument"),
        (4, 64, "launch flag --context-length: sglang 0.5.16's diffusion server has no such flag"),
        (6, 16, f"launch flag --vae-decode-precision: sglang 0.5.16 {both}"),
        (7, 67, "launch flag --num-prompts: `sglang generate` of sglang 0.5.16 has no such flag"),
    ]
    # 0.5.5-0.5.9: the diffusion server ignores the flags it does not know (and reads no
    # --model-type): only generate is judged; before 0.5.5 there is no `sglang` command.
    assert _findings(["0.5.6"]) == [(7, 67, "launch flag --num-prompts: `sglang generate` of sglang 0.5.6 has no "
                                            "such flag")]
    assert _findings(["0.5.2"]) == []
    # A range: a finding only where every release rejects the flag.
    assert [f[:2] for f in _findings(["0.5.16", "0.5.23"])] == [(2, 29), (2, 46), (3, 46), (4, 64), (7, 67)]
    assert [f[:2] for f in _findings(["0.5.6", "0.5.23"])] == [(7, 67)]


# --- sglang's own releases, against the parsers sglang builds ----------------------------------

def _real(version: str, command: str, mode: str, *flags: str) -> dict:
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(REAL_PARSERS), str(fetch_tree(version)), command, mode,
                           *flags], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


PROBES = ["--vae-precision=fp16", "--vae-config.use-tiling", "--num-gpus=2", "--warmup-res=1", "--bogus-flag",
          "--request-rate=4", "--vae-config.bogus=1", "--component-paths.vae=/v", "--component_paths.vae=/v",
          "--vae-path=/v", "--foo-quantization=fp8", "--component-precisions.vae=bf16"]
# Each release group's layout: 0.5.5 (the first `sglang serve`; its diffusion server ignores the
# flags it does not know; generate parses with parse_args), 0.5.10 (--model-type; the unknown
# words rejected but for --component-paths.X and --X-path; runtime/server_args.py), 0.5.16 (the
# server_args package), 0.5.23 (serve backends in a registry; a pipeline config's own flags).
# (flags of the diffusion server, of generate; the diffusion server's prefixes and suffixes)
RELEASES = {
    "0.5.5": (90, 119, (), ()),
    "0.5.10": (84, 136, ("--component-paths.", "--component_paths."), ("-path",)),
    "0.5.16": (152, 228, ("--component-attention-backends.", "--component-paths.", "--component_attention_backends.",
                          "--component_paths."), ("-path",)),
    "0.5.23": (210, 331, ("--component-attention-backends.", "--component-direct-gpu-weight-loading.",
                          "--component-paths.", "--component-precisions.", "--component-quantization-ignored-layers.",
                          "--component-quantizations.", "--component-weights-paths.", "--component_attention_backends.",
                          "--component_direct_gpu_weight_loading.", "--component_paths.", "--component_precisions.",
                          "--component_quantization_ignored_layers.", "--component_quantizations.",
                          "--component_weights_paths."), ("-path", "-quantization", "-weights-path")),
}


@pytest.mark.corpus
@pytest.mark.parametrize("version", sorted(RELEASES))
def test_the_derived_parsers_are_sglang_s_own(version):
    serve_count, generate_count, prefixes, suffixes = RELEASES[version]
    derived = tree_commands(fetch_tree(version))
    assert derived.unresolved == ()
    assert (derived.serve, derived.backends) == (True, ("llm", "diffusion"))
    assert derived.selector == (() if version == "0.5.5" else ("--model-type",))
    assert (derived.diffusion.prefixes, derived.diffusion.suffixes) == (prefixes, suffixes)
    assert (derived.diffusion.open, derived.generate.open) == (version == "0.5.5", False)
    shipped = load_commands(SHIPPED).for_releases([version])  # the merged table holds it as its tree has it
    for command, facts, count, table in (("serve", derived.diffusion, serve_count, shipped.diffusion),
                                         ("generate", derived.generate, generate_count, shipped.generate)):
        real = _real(version, command, "options")
        assert set(facts.flags) == set(real["base"]) | set(real["pipelines"])  # both ways
        assert len(facts.flags) == count
        parser = ParserTable(frozenset(facts.flags), facts.prefixes, facts.suffixes, facts.open)
        assert table == parser
        verdicts = _real(version, command, "probe", *PROBES)
        assert {probe: "taken" if parser.takes(probe.partition("=")[0]) else "rejected" for probe in PROBES} \
            == verdicts


@pytest.mark.corpus
def test_sglang_0_5_23_s_pipeline_flags_are_taken_and_a_benchmark_s_are_not():
    real = _real("0.5.23", "serve", "options")
    assert real["pipelines"] == ["--flux3-alpha", "--flux3-compile-text-encoder", "--flux3-dit-keep-non-layer",
                                 "--flux3-keep-visual-vae-resident", "--flux3-skip-empty-cache-after-request",
                                 "--flux3-text-encoder-fp8", "--help", "-h"]
    assert {"--vae-precision", "--text-encoder-precisions", "--embedded-cfg-scale"} <= set(real["base"])
    assert "--request-rate" not in real["base"]
