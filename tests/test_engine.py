"""The engine's own guarantees: prefilter, resolution, guards, crash isolation, positions."""

from __future__ import annotations

import dataclasses

import libcst
import pytest

from snippets import CAPTURE_IMPORT as IMPORT, SGL001_AND_SGL004
from sglang_lint import SourceError, lint
from sglang_lint.checks import CHECK_KINDS
from sglang_lint.engine.ruletable import default_ruleset


def found(source: str, path: str = "user.py") -> list[tuple[int, int, str]]:
    return [(d.line, d.col, d.code) for d in lint(source, path)]


def test_files_without_triggers_are_never_parsed(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("parsed a file the prefilter should have skipped")

    monkeypatch.setattr(libcst, "parse_module", refuse)
    assert lint("import torch\nx = torch.zeros(3)\n", "a.py") == []
    # The method name written but never called (a definition, a string) is not a call shape.
    assert lint("def set_dflash_layers_to_capture(self, layer_ids=None): pass\n", "a.py") == []


def test_prefilter_needs_every_word_of_a_trigger():
    ruleset = default_ruleset()
    assert ruleset.may_match("model.set_dflash_layers_to_capture(None)")
    assert not ruleset.may_match("model.set_dflash_layers_to_capture(ids)")  # no None anywhere
    assert ruleset.may_match("model . set_dflash_layers_to_capture (\n None)")


@pytest.mark.parametrize(
    "imported, fires",
    [
        ("from sglang.srt.layers.vocab_parallel_embedding import VocabParallelEmbedding", True),
        # the module's name only inside other words: no import of the rule's module
        ("from mine.vocab_parallel_embedding_v2 import VocabParallelEmbedding", False),
        ("from mine import my_vocab_parallel_embedding\nVocabParallelEmbedding = my_vocab_parallel_embedding.X", False),
    ],
)
def test_a_trigger_module_word_is_a_whole_identifier_as_an_import_writes_it(imported, fires):
    # prefilter.CompiledTrigger.words are read from the text's identifiers, not as substrings:
    # where the module's name is no whole word, the engine (prefilter and screen bypassed)
    # cannot qualify the call to the rule's class either
    from sglang_lint.analysis.bindings import FileBindings
    from sglang_lint.engine.lint import _analyse_parsed

    source = imported + "\nVocabParallelEmbedding(8, use_presharded_weights=True, org_num_embeddings=4)\n"
    ruleset = default_ruleset()
    assert ruleset.may_match(source) is fires
    found, _ = _analyse_parsed(source, FileBindings.for_path("user.py"), ruleset, True, None, None)
    assert ("SGL3359" in [d.code for d in found]) is fires


def test_a_trigger_word_that_is_no_identifier_is_a_substring():
    # SGL010's trigger word is the first word of its fields' names, which the keyword spelling
    # writes inside one identifier (and the flag spelling between dashes)
    source = "import sglang as sgl\nsgl.Engine(model_path='m', speculative_dflash_block_size=0)\n"
    assert [(d.line, d.code) for d in lint(source, "user.py")] == [(2, "SGL010")]


def test_arguments_after_a_splat_have_unknown_positions():
    assert found(IMPORT + "set_capture_flag_on_blocks(*args, 'pre', enable=True)\n") == []
    assert found(IMPORT + "set_capture_flag_on_blocks(*args, mode='pre', enable=True)\n") == [(2, 39, "SGL001")]


@pytest.mark.parametrize(
    "body",
    [
        "MODE = 'pre'\nMODE = 'pre_rope'\nset_capture_flag_on_blocks(t, MODE, enable=True)\n",
        "for MODE in ('pre', 'x'):\n    set_capture_flag_on_blocks(t, MODE, enable=True)\n",
        "MODE = 'pre'\ndef f():\n    global MODE\n    MODE = 'pre_rope'\n"
        "set_capture_flag_on_blocks(t, MODE, enable=True)\n",
        "def f(MODE):\n    set_capture_flag_on_blocks(t, MODE, enable=True)\n",
        "MODE = f'pre'\nset_capture_flag_on_blocks(t, MODE, enable=True)\n",
        "MODE, OTHER = make()\nset_capture_flag_on_blocks(t, MODE, enable=True)\n",
    ],
    ids=["two-bindings", "loop", "global-rebound", "parameter", "f-string", "unpacking-a-call"],
)
def test_values_the_resolver_does_not_follow_are_never_guessed(body):
    assert found(IMPORT + body) == []


def test_an_unpacked_display_binds_each_name_to_its_element():
    # (analysis/bindings.py ``_unpacks_a_display``; the text screen once hid this finding: it saw no
    # binding of MODE in ``MODE, OTHER = ...``, while the engine reads MODE = 'pre')
    body = "MODE, OTHER = 'pre', 'x'\nset_capture_flag_on_blocks(t, MODE, enable=True)\n"
    assert [code for _, _, code in found(IMPORT + body)] == ["SGL001"]


def test_constant_in_an_enclosing_scope_and_shadowing():
    source = IMPORT + (
        "MODE = 'pre'\n"
        "def outer():\n"
        "    set_capture_flag_on_blocks(t, MODE, enable=True)\n"
        "def shadowed(MODE):\n"
        "    set_capture_flag_on_blocks(t, MODE, enable=True)\n"
        "class Holder:\n"
        "    MODE = 'post_rope'\n"
        "    def method(self):\n"
        "        set_capture_flag_on_blocks(t, MODE, enable=True)\n"
    )
    # Class attributes are not visible from methods: MODE there is the module's.
    assert found(source) == [(4, 34, "SGL001"), (10, 38, "SGL001")]


def test_relative_imports_resolve_inside_the_sglang_package():
    source = (
        "from .streaming_refiner import set_capture_flag_on_blocks\n"
        "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
    )
    path = "src/sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/sana_wm/user.py"
    assert found(source, path) == [(2, 30, "SGL001")]
    # Outside the sglang package, the same relative import is someone else's module.
    assert found(source, "myproj/sana_wm/user.py") == []


def test_calls_inside_the_defining_module():
    source = (
        "def set_capture_flag_on_blocks(transformer, mode, *, enable):\n"
        "    pass\n"
        "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
    )
    path = "sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/sana_wm/streaming_refiner.py"
    assert found(source, path) == [(3, 30, "SGL001")]
    assert found(source, "elsewhere.py") == []


def test_expected_raise_contexts_are_deliberate():
    source = IMPORT + (
        "import pytest\n"
        "with pytest.raises(ValueError):\n"
        "    set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
        "pytest.raises(ValueError, lambda: set_capture_flag_on_blocks(t, 'pre', enable=True))\n"
        "class T:\n"
        "    def test(self):\n"
        "        with self.assertRaises(ValueError):\n"
        "            model.set_dflash_layers_to_capture(None)\n"
        "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
    )
    assert found(source) == [(10, 30, "SGL001")]


def test_position_is_the_argument_in_a_multiline_call():
    source = IMPORT + "set_capture_flag_on_blocks(\n    t,\n    mode=(\n        'pre'\n    ),\n    enable=True,\n)\n"
    (diagnostic,) = lint(source, "a.py")
    assert (diagnostic.line, diagnostic.col, diagnostic.end_line, diagnostic.end_col) == (5, 8, 5, 13)


def test_a_crashing_check_is_reported_once_and_the_others_still_run(monkeypatch):
    def explode(site, rule, check, target):
        raise RuntimeError("boom")

    broken = dataclasses.replace(CHECK_KINDS["not-none"], run=explode)
    monkeypatch.setitem(CHECK_KINDS, "not-none", broken)
    source = IMPORT + (
        "set_capture_flag_on_blocks(t, 'pre', enable=True)\n"
        "model.set_dflash_layers_to_capture(None)\n"
        "model.set_dflash_layers_to_capture(None)\n"
    )
    diagnostics = lint(source, "a.py")
    assert [(d.line, d.code) for d in diagnostics] == [(1, "SGL900"), (2, "SGL001")]
    assert "rule SGL004 crashed on this file (RuntimeError: boom)" in diagnostics[0].message


def test_source_errors():
    with pytest.raises(SourceError, match="cannot parse"):
        lint("model.set_dflash_layers_to_capture(None\n", "a.py")
    with pytest.raises(SourceError, match="cannot decode"):
        lint(b"model.set_dflash_layers_to_capture(None)  # \xff\n", "a.py")
    # A BOM and CRLF line endings are ordinary input.
    source = "\ufeffmodel.set_dflash_layers_to_capture(None)\r\n".encode("utf-8")
    assert found(source) == [(1, 35, "SGL004")]


def test_linting_never_imports_the_checked_code(tmp_path, monkeypatch):
    import sys

    marker = tmp_path / "imported"
    (tmp_path / "sideeffect.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    source = "import sideeffect\nfrom sideeffect import thing\nmodel.set_dflash_layers_to_capture(None)\n"
    assert found(source) == [(3, 35, "SGL004")]
    assert not marker.exists() and "sideeffect" not in sys.modules


def test_a_config_flag_written_elsewhere_in_the_file_is_not_guessed():
    source = (
        "from sglang.srt.configs.kimi_k3 import KimiK3Config\n"
        "from sglang.srt.models.kimi_k3 import KimiK3ForConditionalGeneration\n"
        "config = KimiK3Config(encoder_only=True)\n"
        "def configure():\n"
        "    config.encoder_only = False\n"
        "model = KimiK3ForConditionalGeneration(config)\n"
        "def use():\n"
        "    return model.lm_head\n"
    )
    assert found(source) == []
    assert found(source.replace("config.encoder_only = False", "config.encoder_only = True")) == [(8, 17, "SGL005")]


def test_an_engine_failure_does_not_stop_flake8_or_the_command(monkeypatch, tmp_path):
    from sglang_lint.engine import lint as engine
    from sglang_lint.frontends import cli
    from sglang_lint.frontends import flake8_plugin
    from sglang_lint.frontends import runner

    def broken(*args, **kwargs):
        raise RuntimeError("internal")

    monkeypatch.setattr(engine, "lint", broken)  # the plugin imports it once a file may call a catalog name
    # (a file the prefilter passes: on any other the engine is never called)
    plugin = flake8_plugin.SglangLintPlugin(None, "a.py", SGL001_AND_SGL004.splitlines(keepends=True))
    (message,) = [m for _, _, m, _ in plugin.run()]
    assert message.startswith("SGL900 sglang-lint failed on this file (RuntimeError: internal)")

    monkeypatch.setattr(runner, "analyse", broken)
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("x = 2\n")
    assert cli.main(["--no-cache", str(tmp_path)]) == 2


SERVER_ARGS = "from sglang.srt.server_args import ServerArgs\nimport pytest\nimport unittest\n"
BAD_ARGS = "ServerArgs(model_path='dummy', kv_cache_dtype='float16')"


@pytest.mark.parametrize(
    "body",
    [
        "class TestKV(unittest.TestCase):\n"
        "    def test_bad_dtype(self):\n"
        "        args = BAD\n"
        "        with self.assertRaisesRegex(ValueError, 'kv_cache_dtype'):\n"
        "            args._validate_kv_cache()\n",
        "def test_bad_dtype():\n"
        "    args = BAD\n"
        "    with pytest.raises(ValueError, match='kv_cache_dtype'):\n"
        "        Engine(server_args=args)\n",
        "class TestKV(unittest.TestCase):\n"
        "    def test_bad_dtype(self):\n"
        "        args = BAD\n"
        "        self.assertRaises(ValueError, args.check)\n",
        "def test_bad_dtype(case):\n"
        "    args: ServerArgs = BAD\n"
        "    case.assertRaises(ValueError, validate, args)\n",
        "def test_bad_dtype():\n"
        "    for model in MODELS:\n"
        "        args = BAD\n"
        "        pytest.raises(ValueError, lambda: args.check(model))\n",
        "args = BAD\n"
        "with pytest.raises(ValueError):\n"
        "    args.check()\n",
    ],
    ids=["assertRaisesRegex-block", "pytest.raises-block", "callable-form", "callable-argument", "lambda-in-loop",
         "module-level"],
)
def test_an_object_used_where_a_raise_is_expected_is_a_deliberate_bad_value(body):
    source = SERVER_ARGS + body.replace("BAD", BAD_ARGS)
    assert found(source) == []
    # The same file expecting a warning instead is reported: the exemption is what hides it.
    plain = source.replace("Raises", "Warns").replace("raises", "warns")
    assert [code for _, _, code in found(plain)] == ["SGL006"]


def test_a_bad_value_is_reported_unless_its_own_object_is_used_where_a_raise_is_expected():
    source = SERVER_ARGS + (
        "def test_used_outside():\n"  # 4
        f"    args = {BAD_ARGS}\n"
        "    args.check()\n"
        "    with pytest.raises(ValueError):\n"
        "        other.check()\n"
        "def test_bound_here():\n"  # 9
        f"    args = {BAD_ARGS}\n"
        "def test_raises_there():\n"
        "    with pytest.raises(ValueError):\n"
        "        args.check()\n"
        "def test_two_objects():\n"  # 14
        f"    kept = {BAD_ARGS}\n"
        f"    bad = {BAD_ARGS}\n"
        "    with pytest.raises(ValueError):\n"
        "        bad.check()\n"
        "class TestKV(unittest.TestCase):\n"  # 19
        "    def test_rebound_and_attributes(self):\n"
        f"        args = {BAD_ARGS}\n"
        "        args = ServerArgs(model_path='dummy')\n"
        f"        cfg = {BAD_ARGS}\n"
        "        with self.assertRaises(ValueError):\n"
        "            args.check(cfg=1)\n"
        "            self.cfg.check()\n"
    )
    assert found(source) == [(5, 57, "SGL006"), (10, 57, "SGL006"), (15, 57, "SGL006"), (21, 61, "SGL006"),
                             (23, 60, "SGL006")]


def test_the_collector_runs_less_during_a_lint_and_as_before_after_it():
    import gc

    from sglang_lint.core.gcpolicy import few_collections

    before = gc.get_threshold()
    with few_collections():
        assert gc.get_threshold()[0] >= 100_000
    assert gc.get_threshold() == before
    with pytest.raises(ZeroDivisionError):
        with few_collections():
            1 / 0
    assert gc.get_threshold() == before
    assert [d.code for d in lint(IMPORT + "set_capture_flag_on_blocks(t, mode='x')\n")] == ["SGL001"]
    with pytest.raises(SourceError):
        lint(IMPORT + "set_capture_flag_on_blocks(t, mode='x'\n")
    assert gc.get_threshold() == before


def test_freezing_the_rules_frees_the_garbage_waiting_for_a_collection_first():
    """gcpolicy.keep_for_good: cyclic garbage alive at the freeze (a flake8 worker's, of the
    files checked before) would be kept for good; it is collected first."""
    import gc
    import weakref

    from sglang_lint.core.gcpolicy import keep_for_good

    class Node:
        pass

    gc.disable()
    try:
        cycle = Node()
        cycle.me = cycle
        alive = weakref.ref(cycle)
        del cycle
        assert alive() is not None  # garbage, waiting for a collection
        keep_for_good()
        assert alive() is None
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_flake8_plugin_freezes_each_time_its_rule_sets_double(monkeypatch):
    from sglang_lint.frontends import flake8_plugin

    frozen = []
    plugin = flake8_plugin.SglangLintPlugin
    monkeypatch.setattr(flake8_plugin, "keep_for_good", lambda: frozen.append(len(plugin.rulesets)))
    monkeypatch.setattr(plugin, "rulesets", {})
    monkeypatch.setattr(plugin, "frozen_at", 0)
    for made in range(1, 40):
        plugin.rulesets[made] = None
        plugin._keep_rules()
    assert frozen == [1, 2, 4, 8, 16, 32]


def test_libcst_takes_the_place_of_its_stand_in_once_loaded():
    """core/lazycst.py: once LibCST is imported, every module of ours that held the stand-in holds
    the module itself (a stand-in left in place answers, but through one more lookup)."""
    import sys

    from sglang_lint.core import lazycst

    lint(IMPORT + "set_capture_flag_on_blocks(t, mode='x')\n")  # parses: LibCST is loaded
    assert lazycst.loaded() and lazycst.libcst is sys.modules["libcst"]
    holding = [name for name, module in list(sys.modules.items())
               if name.startswith("sglang_lint") and module is not None
               and any(isinstance(value, lazycst._LibCST) for value in vars(module).values())]
    assert holding == []
