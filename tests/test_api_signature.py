"""SGL013's two halves: what the deriver reads of sglang's public API (signatures, classes and
their bases, the classes whose keywords build ServerArgs, the table over releases) and the one
verdict on a call's arguments (checks/api_table.py ``problems``), on small trees written here
and on sglang's own releases."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sglang_lint import lint
from sglang_lint.checks.api_table import Call, Problem, load_api_table, parse_signature, problems
from sglang_lint.derive.api.surface import OPAQUE, tree_surface
from sglang_lint.derive.api.table import TABLE, api_history, api_text, merge_api
from sglang_lint.derive.server_args.keyword_launchers import keyword_launchers
from sglang_lint.derive.source.tree import LazyTree
from sglang_lint.engine.ruletable import RuleSet, load_rules

ROOT = Path(__file__).resolve().parent.parent


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """A fake sglang package: ``{"sglang/x.py": source}``, every folder a package."""
    for name, source in {"sglang/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            if str(folder) not in (".",) and not (root / folder / "__init__.py").exists():
                (root / folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


SERVER_ARGS = """
class ServerArgs:
    def __init__(self, model_path, tp_size=1):
        pass
"""

ENGINE = """
from sglang.srt.server_args import ServerArgs
from sglang.srt.entrypoints.base import EngineBase


class Engine(EngineBase):
    server_args_class = ServerArgs

    def __init__(self, **kwargs):
        self.server_args = self.server_args_class(**kwargs)

    def generate(self, prompt=None, sampling_params=None, *, stream=False):
        pass

    async def async_generate(self, prompt=None, sampling_params=None):
        pass

    @staticmethod
    def describe(kind, /, verbose=False):
        pass

    @property
    def tokenizer(self):
        pass

    @_rpc_method
    def flush_cache(self):
        pass

    def _private(self):
        pass
"""

BASE = """
from abc import ABC, abstractmethod


class EngineBase(ABC):
    @abstractmethod
    def shutdown(self):
        pass

    def update_weights_from_disk(self, model_path, load_format=None):
        pass
"""

API = """
from sglang.srt.entrypoints.engine import Engine as _Engine


def gen(name=None, max_tokens=None, **kwargs):
    pass


def Runtime(*args, **kwargs):
    from sglang.lang.runtime import Runtime

    return Runtime(*args, **kwargs)
"""

RUNTIME = """
import torch
from sglang.srt.server_args import ServerArgs


class Runtime:
    def __init__(self, log_level="error", launch_timeout=300.0, *args, **kwargs):
        port = kwargs.pop("port", 30000)
        kwargs.pop("dtype", None)
        self.server_args = ServerArgs(*args, log_level=log_level, port=port, **kwargs)

    def generate(self, prompt, sampling_params=None):
        pass


class Module(torch.nn.Module):
    def forward(self, x):
        pass
"""

UTILS = """
def LazyImport(module, name):
    pass


def launch_server_cmd(command, host="0.0.0.0", port=None):
    pass
"""

PACKAGE = """
from sglang.lang.api import gen, Runtime
from sglang.utils import LazyImport

Engine = LazyImport("sglang.srt.entrypoints.engine", "Engine")
"""


@pytest.fixture()
def tree(tmp_path) -> Path:
    return write_tree(tmp_path / "tree", {
        "sglang/__init__.py": PACKAGE,
        "sglang/utils.py": UTILS,
        "sglang/srt/server_args.py": SERVER_ARGS,
        "sglang/srt/entrypoints/engine.py": ENGINE,
        "sglang/srt/entrypoints/base.py": BASE,
        "sglang/lang/api.py": API,
        "sglang/lang/runtime.py": RUNTIME,
    })


def test_the_classes_and_functions_whose_keywords_build_server_args(tree):
    found = {launcher.name: launcher for launcher in keyword_launchers(LazyTree(tree))}
    # through a class attribute, a constructor, and a function that imports its callee locally
    assert set(found) == {"sglang.srt.entrypoints.engine.Engine", "sglang.lang.runtime.Runtime",
                          "sglang.lang.api.Runtime"}
    assert found["sglang.srt.entrypoints.engine.Engine"].exclude == ()
    # its own named parameters but what it passes on under their name; what it pops but passes on
    assert found["sglang.lang.runtime.Runtime"].exclude == ("launch_timeout", "dtype")
    assert found["sglang.lang.api.Runtime"].exclude == ("launch_timeout", "dtype")  # (its callee keeps them)
    assert found["sglang.lang.runtime.Runtime"].evidence == "sglang/lang/runtime.py:10"


def test_the_public_api_of_a_tree(tree):
    surface = tree_surface(LazyTree(tree))
    calls = surface.callables
    # under the names users call them by; a package's LazyImport is the class it names
    assert calls["sglang.gen"] == "(name=..., max_tokens=..., **kwargs)"
    assert calls["sglang.utils.launch_server_cmd"] == "(command, host=..., port=...)"
    assert calls["sglang.Engine.generate"] == "(prompt=..., sampling_params=..., *, stream=...)"
    assert calls["sglang.Engine.async_generate"] == "(prompt=..., sampling_params=...)"
    assert calls["sglang.Engine.describe"] == "(kind, /, verbose=...)"  # static: no self to drop
    # inherited from sglang's own base, through abstractmethod
    assert calls["sglang.Engine.update_weights_from_disk"] == "(model_path, load_format=...)"
    assert calls["sglang.Engine.shutdown"] == "()"
    # a decorator the deriver does not know: there, but not read; a property is no method
    assert calls["sglang.Engine.flush_cache"] == OPAQUE
    assert "sglang.Engine.tokenizer" not in calls and "sglang.Engine._private" not in calls
    # the constructor hands its keywords to ServerArgs: the server-argument rules judge it
    assert calls["sglang.Engine"] == OPAQUE and calls["sglang.Runtime"] == OPAQUE
    assert surface.containers["sglang.Engine"] is True  # every base is sglang's (or ABC)
    assert surface.defined["sglang.Engine"][0] == "sglang.srt.entrypoints.engine.Engine"
    # the engine's own module names the same class: one class, two names
    assert "sglang.srt.entrypoints.engine.Engine" in surface.defined["sglang.Engine"]
    assert not any(name.startswith("sglang.srt.entrypoints.engine.Engine.") for name in calls)
    # a class read because its keywords build ServerArgs, with its methods
    assert calls["sglang.lang.runtime.Runtime.generate"] == "(prompt, sampling_params=...)"
    assert "sglang.lang.runtime.Module" not in calls  # (not a launcher: its module is not public)
    assert surface.containers["sglang"] is False  # a module's names are never claimed whole


def test_a_base_outside_sglang_leaves_the_class_open(tmp_path):
    root = write_tree(tmp_path / "tree", {
        "sglang/utils.py": "import threading\n\n\nclass Worker(threading.Thread):\n    def go(self, n):\n        pass\n",  # noqa: E501
    })
    surface = tree_surface(LazyTree(root))
    assert surface.containers["sglang.utils.Worker"] is False
    assert surface.callables["sglang.utils.Worker.go"] == "(n)"


def _rebound(tmp_path) -> Path:
    return write_tree(tmp_path / "tree", {
        "sglang/__init__.py": "from sglang.lang.api import gen\n\ntry:\n    gen = None\nexcept ImportError:\n    pass\n",  # noqa
        "sglang/lang/api.py": "def gen(name=None):\n    pass\n",
    })


def test_a_name_bound_again_forgets_what_it_was(tmp_path):
    assert "sglang.gen" not in tree_surface(LazyTree(_rebound(tmp_path))).callables


@pytest.mark.parametrize("text, call, wrong", [
    ("(prompt=..., sampling_params=...)", Call(1, ("sampling_param",)), [Problem("keyword", "sampling_param")]),
    ("(prompt=..., sampling_params=...)", Call(1, ("sampling_params",)), []),
    ("(prompt)", Call(2, ()), [Problem("positional", count=2)]),
    ("(prompt, *rest)", Call(5, ()), []),
    ("(prompt, **options)", Call(1, ("anything",)), []),
    ("(prompt)", Call(1, ("prompt",)), [Problem("twice", "prompt")]),
    ("(model_path, load_format=...)", Call(0, ()), [Problem("missing", "model_path")]),
    ("(model_path, load_format=...)", Call(0, (), more_keywords=True), []),  # (**d may hold it)
    ("(model_path, load_format=...)", Call(0, (), more_positional=True), []),  # (*x may hold it)
    ("(*, tags)", Call(0, ()), [Problem("missing", "tags")]),
    ("(kind, /, verbose=...)", Call(0, ("kind",)), [Problem("keyword", "kind")]),  # (Python names that alone)
    ("(*args, **kwargs)", Call(9, ("x",)), []),
])
def test_the_verdict_is_pythons_binding(text, call, wrong):
    assert problems(parse_signature(text), call) == wrong


def _releases(tmp_path, trees: dict[str, dict]) -> Path:
    rules = tmp_path / "rules"
    history = {}
    for release, files in trees.items():
        root = write_tree(tmp_path / release, files)
        history[release] = tree_surface(LazyTree(root))
    (rules / "derived").mkdir(parents=True)
    (rules / "derived" / TABLE).write_text(api_text(history), encoding="utf-8")
    return rules


OLD = {"sglang/__init__.py": PACKAGE.replace("gen, Runtime", "Runtime"), "sglang/lang/api.py": API,
       "sglang/lang/runtime.py": RUNTIME, "sglang/srt/server_args.py": SERVER_ARGS, "sglang/utils.py": "",
       "sglang/srt/entrypoints/base.py": BASE,
       "sglang/srt/entrypoints/engine.py": ENGINE.replace(", *, stream=False", "")}


def test_the_table_over_releases_reads_back_and_merges_a_new_one(tmp_path, tree):
    rules = _releases(tmp_path, {"0.5.1": OLD, "0.5.2": OLD})
    text = (rules / "derived" / TABLE).read_text()
    assert api_text(api_history(rules)) == text
    merge_api(rules, "0.5.3", tree)
    merged = (rules / "derived" / TABLE).read_text()
    assert 'releases = ["0.5.1", "0.5.2", "0.5.3"]' in merged
    # each signature with the runs of releases that have it
    assert ('name = "sglang.Engine.generate"\nsignature = "(prompt=..., sampling_params=...)"\n'
            'releases = [["", "0.5.3"]]') in merged
    assert ('name = "sglang.Engine.generate"\nsignature = "(prompt=..., sampling_params=..., *, stream=...)"\n'
            'releases = [["0.5.3", ""]]') in merged
    assert ('name = "sglang.gen"\nsignature = "(name=..., max_tokens=..., **kwargs)"\n'
            'releases = [["0.5.3", ""]]') in merged
    assert api_text(api_history(rules)) == merged  # (and it reads back as itself)
    (rules / "derived" / TABLE).write_text(merged.replace('"0.5.3", ""', '"0.5.2", ""', 1))
    with pytest.raises(ValueError, match="is not what the public API"):
        api_history(rules)


def test_the_shipped_table_reads_and_loads():
    rules = ROOT / "rules"
    history = api_history(rules)
    assert history is not None and len(history) >= 42
    table = load_api_table(rules / "derived" / TABLE)
    assert table.releases == tuple(history)
    generate = dict(table.signatures)["sglang.Engine.generate"]
    assert len(generate) > 3  # (its keywords changed release by release)


def _lint(source: str, release: str) -> list[tuple[int, int, str]]:
    rules = RuleSet(load_rules([ROOT / "rules"])).select(["SGL013"], None).for_releases([release])
    return [(d.line, d.col + 1, d.message) for d in lint(textwrap.dedent(source), "x.py", rules)]


ENGINE_CALLS = """
import sglang as sgl

engine = sgl.Engine(model_path="m")
engine.update_weights_from_ipc(zmq_handles={})
engine.generate("x", return_routed_experts=True)
"""


def test_a_method_or_keyword_another_release_has_names_that_release():
    old = _lint(ENGINE_CALLS, "0.5.2")
    assert old == [
        (5, 8, "Engine.update_weights_from_ipc() is not in sglang 0.5.2 (added in sglang 0.5.4): "
               "calling it raises AttributeError"),
        (6, 22, "Engine.generate() takes no keyword 'return_routed_experts' in sglang 0.5.2 "
                "(added in sglang 0.5.7)"),
    ]
    assert _lint(ENGINE_CALLS, "0.5.23") == []


def test_a_project_on_a_range_of_releases_is_told_only_what_fails_on_every_one():
    rules = RuleSet(load_rules([ROOT / "rules"])).select(["SGL013"], None).for_releases(["0.5.2", "0.5.23"])
    found = [d.message for d in lint(textwrap.dedent(ENGINE_CALLS), "x.py", rules)]
    assert found == []
    bad = ENGINE_CALLS + 'engine.generate("x", sampling_param={})\n'
    found = [d.message for d in lint(textwrap.dedent(bad), "x.py", rules)]
    assert found == ["Engine.generate() takes no keyword 'sampling_param' in sglang 0.5.2..0.5.23 "
                     "(did you mean 'sampling_params'? fixable with `sglang-lint --fix`)"]
