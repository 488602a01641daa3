"""The diffusion server's arguments written in Python (sglang.multimodal_gen): the keywords of
``DiffGenerator.from_pretrained(...)``, ``ServerArgs.from_kwargs(...)`` and ``ServerArgs(...)``,
judged against the fields of the release's diffusion ``ServerArgs`` (serve.toml's
``[parsers.diffusion_keywords]``) by SGL009 alone; the entry points that hand their ``**``
keywords to it found by keyword_launchers.py. The fixtures of
``tests/fixtures/diffusion_keywords/<release>/`` through the command and flake8 with their golden
text; the held-out set (tests/diffusion_keywords/heldout.json) pinned; the calls that must stay
as they are."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES, ReleaseFixtures
from sglang_lint.derive.server_args.diffusion import config_attributes, diffusion_keywords
from sglang_lint.derive.server_args.keyword_launchers import keyword_launchers
from sglang_lint.derive.server_args.parsers import ModuleSet
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.derive.source.tree import LazyTree
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import default_ruleset

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS / "diffusion_keywords"))
FOLDER = FIXTURES / "diffusion_keywords"
RELEASES = sorted(p.name for p in FOLDER.iterdir() if p.is_dir())
FIXTURES_AT = ReleaseFixtures(FOLDER, "SGL")
HELD_OUT = json.loads((TESTS / "diffusion_keywords" / "heldout.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("release", RELEASES)
def test_the_command_reports_the_keywords_the_release_lacks(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)


@pytest.mark.parametrize("release", RELEASES)
def test_flake8_reports_the_same(release):
    FIXTURES_AT.check_flake8(release)


def test_the_held_out_set():
    from heldout_kit import case_texts, measure

    # written before the build, confirmed with each release's own code: 0/10 caught before
    assert len(HELD_OUT) == 10 and len({case["release"] for case in HELD_OUT}) == 3
    assert all(case["confirmed"] for case in HELD_OUT)
    caught, flagged = measure(HELD_OUT, case_texts,
                              lambda d: d.code == "SGL009")
    assert (len(caught), flagged) == (10, [])


def judged(source: str, release: str) -> list[tuple[int, int, str, str]]:
    ruleset = default_ruleset().for_releases((release,))
    return [(d.line, d.col + 1, d.code, d.message) for d in lint(textwrap.dedent(source), "x.py", ruleset)]


def test_only_a_call_that_certainly_reaches_the_diffusion_server_args():
    source = '''\
        from sglang.multimodal_gen import DiffGenerator

        def build(factory, args):
            factory.from_pretrained(model_path="m", num_gpu=2)  # a method of anything by that name
            DiffGenerator.from_pretrained(server_args=args, num_gpu=2)  # its other keywords are not handed on
            DiffGenerator.from_pretrained(**args)  # a dict nothing here knows may hold server_args
            # the LLM server's values are not the diffusion server's
            DiffGenerator.from_pretrained(model_path="m", attention_backend="sage_attn", tp_size="2")
            # a pipeline config's attribute: PipelineConfig.from_kwargs takes it out first
            DiffGenerator.from_pretrained(model_path="m", flow_shift=3.0, vae_precision="fp32")
            # a config object of the call's own: its own attributes are taken out too
            DiffGenerator.from_pretrained(model_path="m", pipeline_config=args.config, flow_shiftt=3.0)
    '''
    assert judged(source, "0.5.23") == []


def test_the_class_itself_takes_its_fields_alone():
    source = '''\
        from sglang.multimodal_gen.runtime.server_args import ServerArgs

        ServerArgs(model_path="m", flow_shift=3.0)
        ServerArgs.from_kwargs(model_path="m", flow_shift=3.0)
    '''
    message = "ServerArgs(flow_shift=...): sglang 0.5.23's diffusion server has no server argument 'flow_shift'"
    assert judged(source, "0.5.23") == [(3, 28, "SGL009", message)]


def test_a_release_without_the_diffusion_server_is_not_judged():
    source = '''\
        from sglang.multimodal_gen import DiffGenerator

        DiffGenerator.from_pretrained(model_path="m", num_gpu=2)
    '''
    assert judged(source, "0.5.4") == []
    assert [code for _, _, code, _ in judged(source, "0.5.5")] == ["SGL009"]


def test_the_keywords_of_a_release_are_its_dataclass_fields():
    # the fields sglang's own dataclass reports (confirmed in the held-out set's child)
    found = {release: diffusion_keywords(ModuleSet(root=fetch_tree(release), packages=("sglang.multimodal_gen.",)))
             for release in ("0.5.4", "0.5.10.post1", "0.5.23")}
    assert found["0.5.4"] is None  # no diffusion server
    assert len(found["0.5.10.post1"]) == 58 and "warmup" in found["0.5.10.post1"]
    newest = set(found["0.5.23"])
    assert len(newest) == 169 and {"warmup_mode", "decoder_sp", "disagg_role", "_explicit_arg_names"} <= newest
    # init=False fields, ClassVars and the annotations of a mixin that is no dataclass are no keywords
    assert not newest & {"_required_resident_components", "DISAGG_RESULT_PORT_OFFSETS", "warmup", "decoder_tp"}


TREE = {
    "sglang/srt/server_args.py": """\
        import dataclasses

        @dataclasses.dataclass
        class ServerArgs:
            model_path: str
    """,
    "sglang/multimodal_gen/runtime/server_args/__init__.py": """\
        from sglang.multimodal_gen.runtime.server_args.server_args import ServerArgs
    """,
    "sglang/multimodal_gen/runtime/server_args/server_args.py": """\
        import dataclasses
        from typing import ClassVar

        from sglang.multimodal_gen.configs.pipeline_configs.base import PipelineConfig

        class Mixin:
            role: str = "none"

        @dataclasses.dataclass
        class Base:
            num_gpus: int = 1

        @dataclasses.dataclass
        class ServerArgs(Base, Mixin):
            model_path: str
            PORTS: ClassVar[dict] = {}
            seen: set = dataclasses.field(default_factory=set, init=False)

            @classmethod
            def from_kwargs(cls, **kwargs):
                PipelineConfig.from_kwargs(kwargs)
                return cls(**kwargs)
    """,
    "sglang/multimodal_gen/configs/pipeline_configs/base.py": """\
        import dataclasses

        @dataclasses.dataclass
        class PipelineConfig:
            flow_shift: float = 1.0

            @classmethod
            def from_kwargs(cls, kwargs):
                return cls()
    """,
    "sglang/multimodal_gen/configs/pipeline_configs/wan.py": """\
        from sglang.multimodal_gen.configs.pipeline_configs.base import PipelineConfig

        class WanConfig(PipelineConfig):
            tiling = True

            def shift_of(self):
                return self.flow_shift
    """,
    "sglang/multimodal_gen/runtime/entrypoints/diffusion_generator.py": """\
        from sglang.multimodal_gen.runtime.server_args import ServerArgs

        class DiffGenerator:
            @classmethod
            def from_pretrained(cls, local_mode=True, **kwargs):
                if (server_args := kwargs.get("server_args")) is not None:
                    pass
                else:
                    server_args = ServerArgs.from_kwargs(**kwargs)
                return server_args

            def generate(self, **kwargs):
                return ServerArgs(**kwargs)  # (a method of an instance: no entry point by name)
    """,
}


def test_the_entry_points_that_hand_keywords_to_it(tmp_path):
    from test_derive_launchers import write_tree

    root = write_tree(tmp_path / "tree", TREE)
    found = {launcher.name: launcher for launcher in keyword_launchers(LazyTree(root))}
    package = "sglang.multimodal_gen.runtime"
    assert set(found) == {f"{package}.server_args.server_args.ServerArgs",
                          f"{package}.server_args.server_args.ServerArgs.from_kwargs",
                          f"{package}.entrypoints.diffusion_generator.DiffGenerator.from_pretrained"}
    assert {launcher.server for launcher in found.values()} == {"diffusion"}
    generator = found[f"{package}.entrypoints.diffusion_generator.DiffGenerator.from_pretrained"]
    # through the package's re-export; its own parameter kept; server_args= stops the hand-off
    assert (generator.exclude, generator.unless) == (("local_mode",), ("server_args",))
    assert generator.evidence == "sglang/multimodal_gen/runtime/entrypoints/diffusion_generator.py:9"
    assert generator.lends and found[f"{package}.server_args.server_args.ServerArgs.from_kwargs"].lends
    assert not found[f"{package}.server_args.server_args.ServerArgs"].lends
    modules = ModuleSet(root=root, packages=("sglang.multimodal_gen.",))
    assert diffusion_keywords(modules) == ("model_path", "num_gpus")
    assert config_attributes(modules) == ("flow_shift", "from_kwargs", "shift_of", "tiling")
