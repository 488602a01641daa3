#!/usr/bin/env python3
"""sglang's own tree as the test bed.

    python scripts/sglang_corpus.py [--flake8] [--keep DIR] [--foreign | --foreign-only]

1. fetches the sglang 0.5.23 wheel through pip (cached in ``$SGLANG_LINT_CACHE``, default
   ``~/.cache/sglang-lint``) and unpacks it once;
2. lints the whole tree with ``sglang-lint`` (and, with ``--flake8``, ``flake8 --select SGL``)
   and requires zero findings;
3. plants each bad call of :data:`MUTATIONS` at a real call site, in a copy of the file
   (never in the cache), and requires exactly the expected finding at the expected line;
4. runs ``sglang-lint --fix --unsafe-fixes`` over a copy of the tree and the mutated copies,
   and requires every misspelt value to be restored to sglang's bytes and no other file
   of the tree to change;
5. with ``--foreign`` (``--foreign-only``: this step alone), extracts the sources of torch,
   transformers and diffusers and what they depend on once (wheels through pip, into the
   cache) and lints them, over 10,000 files that never reach sglang, requiring zero findings.

Exit 0 when all of that holds. The tests import this module for the same steps.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from sglang_lint.derive.source import wheels

try:
    import fcntl
except ImportError:  # Windows: no lock (one build at a time is then the user's care)
    fcntl = None

SGLANG_VERSION = "0.5.23"


def fetch_tree(version: str = SGLANG_VERSION) -> Path:
    """The folder holding the unpacked ``sglang`` package (downloaded once, through pip)."""
    return wheels.fetch_tree(version)


# Older releases whose own trees must lint clean against their own release (the catalog
# carries release ranges): spread over what the catalog merges.
OTHER_RELEASES = ("0.5.2", "0.5.6", "0.5.10.post1", "0.5.15.post1")


@dataclass(frozen=True)
class Edit:
    """Replace ``old``, which starts on ``line`` of the original file, by ``new``
    (``line`` 0: append ``new`` at the end of the file)."""

    line: int
    old: str
    new: str


@dataclass(frozen=True)
class Mutation:
    """A bug planted at a real call site of sglang. The linter must then report exactly
    ``code`` at ``expect_line`` of the mutated file (None: the line marked ``# planted``),
    and nothing else in that file."""

    name: str
    form: str
    path: str
    code: str
    edits: tuple[Edit, ...]
    expect_line: int | None = None
    # ``sglang-lint --fix --unsafe-fixes`` gives the original file back (the planted value
    # is a misspelling of the original one, with one fix).
    restores: bool = False
    release: str = SGLANG_VERSION  # the sglang release whose tree it is planted in, and judged against
    # a server argument whose fixed choices it relies on: not replayed in a release that builds
    # that list at run time (server_args.toml's open_choices)
    choices_of: str = ""
    # replayed in older releases that have the call site and the rule (a start-up mistake is
    # one only in the releases whose validation refuses it: those plants stay in their own)
    replays: bool = True


def plant(name, form, path, code, line, old, new, expect_line=None, more=(), restores=False, choices_of="") -> Mutation:
    return Mutation(name, form, path, code, (Edit(line, old, new), *more), expect_line, restores,
                    choices_of=choices_of)


REFINER = "sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/sana_wm/streaming_refiner.py"
HYBRID = "sglang/srt/layers/attention/hybrid_linear_attn_backend.py"
SANA_WM = "sglang/multimodal_gen/runtime/models/dits/sana_wm.py"
SANA_CONFIG = "sglang/multimodal_gen/configs/models/dits/sana_wm.py"
BACKEND_SETUP = "sglang/srt/model_executor/model_runner_components/attention_backend_setup.py"
KIMI_K3 = "sglang/srt/models/kimi_k3.py"
RUNNERS = "sglang/test/runners.py"
LLADA = "sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/llada_image/conditioning.py"
CHUNKED_ABORT = "sglang/test/manual/disaggregation/test_chunked_prefill_abort.py"
CAPTURE_CALL = "set_capture_flag_on_blocks(self.transformer, capture_mode, enable=True)"

MODEL_RUNNER = "sglang/srt/model_executor/model_runner.py"
PHI4MM = "sglang/srt/models/phi4mm_utils.py"
MIMO_V2 = "sglang/srt/multimodal/processors/mimo_v2.py"
TOKENIZER_MANAGER = "sglang/srt/managers/tokenizer_manager.py"
LAYERNORM_SP_HOOK = "sglang/srt/arg_groups/layernorm_sp_hook.py"
COSMOS3_TEST = "sglang/multimodal_gen/test/unit/test_cosmos3_multiview.py"
ROCM_CONV3D_TEST = "sglang/multimodal_gen/test/unit/test_rocm_conv3d_patch.py"
DIFFUSION_MOE = "sglang/multimodal_gen/runtime/layers/moe.py"
DP_CONTROLLER = "sglang/srt/managers/data_parallel_controller.py"
NOMAS_TEST = "sglang/multimodal_gen/test/unit/test_nomas.py"
DREAMS_TEST = "sglang/multimodal_gen/test/unit/test_cosmos_dreams_transfer.py"
VSA_H3_TEST = "sglang/multimodal_gen/test/unit/test_vsa_h3_ref2va_regions.py"

MUTATIONS = [
    # --- fails-when (derived, issue 17): the path to a raise over several arguments -----
    plant("a watermark mixing probability outside (0, 1)", "fails-when", MODEL_RUNNER, "SGL3614", 640,
          "mixing_probability=features.watermark_mixing_probability,", "mixing_probability=1.5,", 633),
    plant("a strided causal convolution whose padding is not kernel_size - 1", "fails-when", PHI4MM, "SGL3531",
          1262, "stride=self._stride,", "stride=2,", 1254,
          more=(Edit(1263, "padding=None,", "padding=0,"),
                Edit(1261, "kernel_size=self._kernel_size,", "kernel_size=3,"))),
    # a dataclass's __post_init__, and isinstance against an sglang class: a path, not an ImageInput
    plant("an image content that is no ImageInput", "fails-when (__post_init__)", MIMO_V2, "SGL4407", 1740,
          "Content(type=\"image\", content=ImageInput(image=img))", "Content(type=\"image\", content=\"image.png\")",
          1740),
    # a record class made at the call (msgspec struct), its window over the server's
    plant("a request watermark window over the server's", "fails-when (record)", TOKENIZER_MANAGER, "SGL4351",
          217, "watermark,", "WatermarkRequestConfig(enabled=True, context_window=8),", 216,
          more=(Edit(220, "default_context_window=features.watermark_context_window,", "default_context_window=4,"),
                Edit(174, "resolve_watermark_request,", "WatermarkRequestConfig, resolve_watermark_request,"))),
    # a constant built with frozenset(...) in another module, imported inside the function with its helper
    plant("speculative decoding with layernorm SP on a non-Muse model", "fails-when (function-level import)",
          LAYERNORM_SP_HOOK, "SGL5182", 31, "architecture=architectures[0] if architectures else None,",
          "architecture=\"Qwen3ForCausalLM\",", 30,
          more=(Edit(38, "speculative_algorithm=cfg.speculative_algorithm,", "speculative_algorithm=\"EAGLE\","),)),
    # a raise a one-parameter rule checks in part (device None): a CPU device is the fails-when rule's
    plant("FA4 block sizes asked of a CPU device", "fails-when (partly a one-parameter rule's)", COSMOS3_TEST,
          "SGL5232", 860, "fa4_sparse_block_sizes(torch.device(\"cuda\")),",
          "fa4_sparse_block_sizes(torch.device(\"cpu\")),", 860),
    # an enum member by the name the package re-exports the enum by; a class method on its class
    plant("an attention backend ROCm does not have", "fails-when (enum member, class method)", ROCM_CONV3D_TEST,
          "SGL5415", 19, "self.assertEqual(RocmPlatform._replace_conv3d_with_conv2d(patched), 1)",
          "RocmPlatform.get_attn_backend_cls_str(AttentionBackendEnum.VMOBA_ATTN, 128, torch.bfloat16)\n"
          "        self.assertEqual(RocmPlatform._replace_conv3d_with_conv2d(patched), 1)", 20,
          more=(Edit(7, "from sglang.multimodal_gen.runtime.platforms.rocm import RocmPlatform",
                     "from sglang.multimodal_gen.runtime.platforms import AttentionBackendEnum\n"
                     "from sglang.multimodal_gen.runtime.platforms.rocm import RocmPlatform"),)),
    # torch.version.hip is unknown: a CPU tensor decides the helper alone; through an aliased import
    plant("the fused group-limited top-k on a CPU tensor", "fails-when (torch state)", DIFFUSION_MOE, "SGL5289",
          71, "scores_for_choice, self.n_group, self.topk_group, self.top_k",
          "torch.zeros(4, 64), 8, 4, 8", 70),
    # a static method of a name too common to trigger on alone (``create``): the class names it
    plant("a stuck tester without a soft watchdog", "fails-when (common name, static method)", DP_CONTROLLER,
          "SGL5037", 261, "watchdog_timeout=get_device().soft_watchdog_timeout,", "watchdog_timeout=None,", 259,
          more=(Edit(263, "test_stuck_time=envs.SGLANG_TEST_STUCK_DP_CONTROLLER.get(),", "test_stuck_time=30,"),)),
    # a receiver's state: the plan was made with a 3-wide history mask; calling it runs __call__
    plant("an attention plan called with another history length", "fails-when (receiver state, instance call)",
          NOMAS_TEST, "SGL5435", 203, "plan(q, k[:, 3:], v[:, 3:], cache, 3)", "plan(q, k[:, 3:], v[:, 3:], cache, 2)",
          203),
    # a helper that checks and then returns (latent_frame_count): its value read in place
    plant("too few pixel frames for one latent chunk", "fails-when (a checking helper's value)", DREAMS_TEST,
          "SGL5562", 318, "pixel_frames, temporal_compression_factor=4, chunk_size=4",
          "9, temporal_compression_factor=4, chunk_size=4", 317),
    # tuples a generator builds from a module constant (two grids: one reference region)
    plant("a reference keep rate above 1", "fails-when (tuples built by generators)", VSA_H3_TEST, "SGL5614", 50,
          "ref_keep_rate=ref_keep_rate,", "ref_keep_rate=1.5,", 41),
    # --- SGL001: SANA-WM capture mode -------------------------------------------------
    plant("capture mode passed by position", "positional", REFINER, "SGL001", 407,
          CAPTURE_CALL, 'set_capture_flag_on_blocks(self.transformer, "pre", enable=True)', 407),
    plant("capture mode passed by keyword", "keyword", REFINER, "SGL001", 418,
          "capture_mode, enable=False)", 'mode="raw", enable=False)', 418),
    plant("capture mode through the _capture_block_kv pass-through (sink)", "pass-through", REFINER, "SGL001",
          484, 'capture_mode="pre_rope",', 'capture_mode="pre-rope",', 484, restores=True),
    plant("capture mode through the _capture_block_kv pass-through (block)", "pass-through", REFINER,
          "SGL001", 551, 'capture_mode="post_rope",', 'capture_mode="post",', 551, restores=True),
    plant("capture mode from a module constant", "constant", REFINER, "SGL001", 407,
          CAPTURE_CALL, "set_capture_flag_on_blocks(self.transformer, _CAPTURE_MODE, enable=True)  # planted",
          more=(Edit(0, "", '\n_CAPTURE_MODE = "pre"\n'),)),
    plant("capture mode in a conditional expression", "conditional", REFINER, "SGL001", 407,
          CAPTURE_CALL,
          'set_capture_flag_on_blocks(self.transformer, capture_mode if capture_mode else "pre", enable=True)',
          407),
    plant("capture mode in a **{...} keyword dict", "keyword dict", REFINER, "SGL001", 407,
          CAPTURE_CALL, 'set_capture_flag_on_blocks(self.transformer, **{"mode": "post-rope", "enable": True})',
          407),
    plant("capture mode through a wrapper function of the file", "wrapper", REFINER, "SGL001", 0, "",
          "\n\ndef _enable_capture(transformer, mode):\n"
          "    set_capture_flag_on_blocks(transformer, mode, enable=True)\n\n\n"
          "def _warm_up(transformer):\n"
          '    _enable_capture(transformer, "prerope")  # planted\n'),
    plant("capture mode as a wrapper's default", "wrapper default", REFINER, "SGL001", 0, "",
          '\n\ndef _enable_capture(transformer, mode="pre"):  # planted\n'
          "    set_capture_flag_on_blocks(transformer, mode, enable=True)\n"),
    plant("capture mode bound by functools.partial", "partial", REFINER, "SGL001", 0, "",
          "\n\nimport functools\n\n"
          '_capture_pre = functools.partial(set_capture_flag_on_blocks, mode="pre")  # planted\n'),
    # --- SGL002: hybrid/Mamba forward modes -------------------------------------------
    plant("forward mode literal in the base class's own capture call (self receiver)", "positional", HYBRID,
          "SGL002", 576, "bs, req_pool_indices, forward_mode, spec_info",
          "bs, req_pool_indices, ForwardMode.EXTEND, spec_info", 576),
    plant("forward mode by keyword", "keyword", HYBRID, "SGL002", 576,
          "bs, req_pool_indices, forward_mode, spec_info",
          "bs, req_pool_indices, forward_mode=ForwardMode.MIXED, spec_info=spec_info", 576),
    plant("forward mode from a module constant", "constant", HYBRID, "SGL002", 576,
          "bs, req_pool_indices, forward_mode, spec_info",
          "bs, req_pool_indices, _WARMUP_MODE, spec_info  # planted",
          more=(Edit(0, "", "\n_WARMUP_MODE = ForwardMode.DRAFT_EXTEND_V2\n"),)),
    plant("replay chain drifts from the capture chain", "chain sync", HYBRID, "SGL002", 886,
          "elif forward_mode.is_target_verify():",
          "elif forward_mode.is_target_verify() or forward_mode.is_draft_extend_v2():", 692),
    # --- SGL003: SANA-WM gdn_backend ----------------------------------------------------
    plant("gdn_backend literal in SanaWMBlock's construction of the attention block", "keyword", SANA_WM,
          "SGL003", 129, "gdn_backend=gdn_backend,", 'gdn_backend="cuda",', 129),
    plant("gdn_backend literal where the model builds each SanaWMBlock", "keyword", SANA_WM, "SGL003", 458,
          'gdn_backend=getattr(arch, "gdn_backend", "auto"),', 'gdn_backend="fused",', 458),
    plant("gdn_backend through an aliased import of the attention block", "alias", SANA_WM, "SGL003", 117,
          "self.attn = BidirectionalGDNUCPESinglePathLiteLA(", "self.attn = _GDNAttention(",
          more=(Edit(129, "gdn_backend=gdn_backend,", 'gdn_backend="Triton",  # planted'),
                Edit(0, "", "\nfrom sglang.multimodal_gen.runtime.models.dits.sana_wm_components import (\n"
                            "    BidirectionalGDNUCPESinglePathLiteLA as _GDNAttention,\n)\n"))),
    plant("SanaWMBlock's own gdn_backend default (it passes the value on)", "wrapper default", SANA_WM,
          "SGL003", 107, 'gdn_backend: str = "auto",', 'gdn_backend: str = "cuda",', 107),
    plant("SanaWMBlock's own gdn_backend default in capitals", "wrapper default", SANA_WM,
          "SGL003", 107, 'gdn_backend: str = "auto",', 'gdn_backend: str = "Auto",', 107, restores=True),
    plant("SanaWMArchConfig's own field default", "config field", SANA_CONFIG, "SGL003", 55,
          'gdn_backend: str = "auto"', 'gdn_backend: str = "triton-fast"', 55),
    plant("SanaWMArchConfig's own field default in capitals", "config field", SANA_CONFIG, "SGL003", 55,
          'gdn_backend: str = "auto"', 'gdn_backend: str = "AUTO"', 55, restores=True),
    plant("a subclass of SanaWMArchConfig overriding the field", "config field", SANA_CONFIG, "SGL003", 0, "",
          "\n\n@dataclass\nclass SanaWMCudaArchConfig(SanaWMArchConfig):\n"
          '    gdn_backend: str = "cuda"  # planted\n'),
    # --- SGL004: DFLASH layer ids ---------------------------------------------------------
    plant("None forwarded to set_dflash_layers_to_capture in the attention-backend setup", "positional",
          BACKEND_SETUP, "SGL004", 66, "model.set_dflash_layers_to_capture(dflash_target_layer_ids)",
          "model.set_dflash_layers_to_capture(None)", 66),
    plant("the forwarded layer ids default to None", "None default", BACKEND_SETUP, "SGL004", 46,
          "    dflash_target_layer_ids,\n", "    dflash_target_layer_ids=None,\n", 66),
    plant("None through the setup function (a wrapper)", "wrapper", BACKEND_SETUP, "SGL004", 0, "",
          "\n\ndef _planted(model):\n    configure_aux_hidden_state_capture(\n"
          "        model=model, eagle_use_aux_hidden_state=False, eagle_aux_hidden_state_layer_ids=None,\n"
          "        dflash_use_aux_hidden_state=True, is_dspark=False,\n"
          "        dflash_target_layer_ids=None,  # planted\n    )\n"),
    plant("None by keyword in the Kimi-K3 wrapper", "keyword", KIMI_K3, "SGL004", 3566,
          "self.language_model.set_dflash_layers_to_capture(layer_ids)",
          "self.language_model.set_dflash_layers_to_capture(layer_ids=None)", 3566),
    plant("None from a module constant", "constant", KIMI_K3, "SGL004", 3566,
          "self.language_model.set_dflash_layers_to_capture(layer_ids)",
          "self.language_model.set_dflash_layers_to_capture(_NO_LAYERS)  # planted",
          more=(Edit(0, "", "\n_NO_LAYERS = None\n"),)),
    # --- SGL005: encoder-only Kimi-K3 -----------------------------------------------------
    plant("encoder-only Engine with a speculative algorithm in the test runner", "keyword", RUNNERS, "SGL005",
          628, "            model_path=model_path,\n",
          '            model_path=model_path, encoder_only=True, speculative_algorithm="DSPARK",\n', 628),
    plant("encoder-only Engine with the algorithm in a constant", "constant", RUNNERS, "SGL005", 628,
          "            model_path=model_path,\n",
          "            model_path=model_path, encoder_only=True, speculative_algorithm=_ALGO,  # planted\n",
          more=(Edit(0, "", '\n_ALGO = "EAGLE3"\n'),)),
    plant("encoder-only ServerArgs (aliased, imported in the function) with a capture algorithm", "alias", LLADA,
          "SGL005", 96, "model_path=text_encoder_path,",
          'model_path=text_encoder_path, encoder_only=True, speculative_algorithm="DSPARK",', 96),
    plant("encoder-only ServerArgs from a **{...} dict", "keyword dict", LLADA, "SGL005", 96,
          "model_path=text_encoder_path,",
          'model_path=text_encoder_path, **{"encoder_only": True, "speculative_algorithm": "DSPARK"},', 96),
    # --- SGL006-SGL010: server arguments in Engine(...) calls and launch-flag lists ------
    plant("a kv_cache_dtype outside its choices in the test runner's Engine", "keyword", RUNNERS, "SGL006", 628,
          "            model_path=model_path,\n", '            model_path=model_path, kv_cache_dtype="fp16",\n', 628),
    plant("a misspelt Engine keyword in the test runner", "keyword", RUNNERS, "SGL009", 628,
          "            model_path=model_path,\n", "            model_pth=model_path,\n", 628, restores=True),
    plant("a string for the int tp_size in the test runner's Engine", "keyword", RUNNERS, "SGL008", 629,
          "            tp_size=tp_size,\n", '            tp_size="2",\n', 629),
    plant("a DFLASH block size that is not positive in the test runner's Engine", "keyword", RUNNERS, "SGL010",
          628, "            model_path=model_path,\n",
          "            model_path=model_path, speculative_dflash_block_size=0,\n", 628),
    plant("a misspelt flag in a real other_args list", "launch flags", CHUNKED_ABORT, "SGL009", 58,
          '"--disable-cuda-graph",', '"--disable-cuda-graf",', 58, restores=True),
    plant("a launch flag in capitals in a real other_args list", "launch flags", CHUNKED_ABORT, "SGL009", 61,
          '"--max-running-requests",', '"--MAX-RUNNING-REQUESTS",', 61, restores=True),
    plant("a bad kv-cache dtype in a real other_args list", "launch flags", CHUNKED_ABORT, "SGL006", 58,
          '"--disable-cuda-graph",', '"--disable-cuda-graph", "--kv-cache-dtype", "fp16",', 58),
    plant("a misspelt attention backend (plugin-extensible choices) in a real other_args list", "launch flags",
          CHUNKED_ABORT, "SGL007", 58, '"--disable-cuda-graph",',
          '"--disable-cuda-graph", "--attention-backend", "flashinfr",', 58, choices_of="attention_backend"),
    plant("DSPARK capture on an encoder-only Kimi-K3 built in scope", "guarded call", KIMI_K3, "SGL005", 0, "",
          "\n\ndef _encoder_probe(vision_config):\n"
          "    model = KimiK3ForConditionalGeneration(KimiK3Config(vision_config=vision_config, encoder_only=True))\n"
          "    model.set_dspark_layers_to_capture([8, 16])  # planted\n"),
]


# SGL012: launches sglang's start-up validation refuses (each confirmed against 0.5.23's own
# validation, tests/startup/harness.py), at real launch sites of its tests; not replayed in
# older releases, whose validation differs.
RUST_FIXTURE = "sglang/test/server_fixtures/rust_mm_transport_fixture.py"
_STARTUP_PLANTS = [
    plant("a negative schedule conservativeness in a real other_args list", "launch flags", CHUNKED_ABORT, "SGL012",
          58, '"--disable-cuda-graph",', '"--disable-cuda-graph", "--schedule-conservativeness", "-0.5",', 58),
    plant("encoder-only with language-only in the test runner's Engine", "keyword", RUNNERS, "SGL012", 628,
          "            model_path=model_path,\n",
          "            model_path=model_path, encoder_only=True, language_only=True,\n", 628),
    plant("encoder-only with language-only from a **{...} dict", "keyword dict", LLADA, "SGL012", 96,
          "model_path=text_encoder_path,",
          'model_path=text_encoder_path, **{"encoder_only": True, "language_only": True},', 96),
    plant("a watermark with the Rust server the launch's env= selects", "environment", RUST_FIXTURE, "SGL012", 112,
          '"--enable-multimodal",', '"--enable-multimodal", "--enable-watermark",', 112),
    plant("an HTTP/2 stream limit of 0 in a class attribute list other tests launch with",
          "launch list (class attribute)", "sglang/test/ascend/gsm8k_ascend_mixin.py", "SGL012", 23,
          '"--mem-fraction-static",',
          '"--enable-http2", "--http2-max-concurrent-streams", "0", "--mem-fraction-static",', 23),
]
MUTATIONS += [dataclasses.replace(m, replays=False) for m in _STARTUP_PLANTS]

# SGL013, SGL014 and the registries: mistakes in calls of sglang's Python API, one per surface,
# at real call sites of 0.5.23 (each a mistake only in the releases whose API refuses it).
GLM53 = "sglang/test/glm53_flash_common.py"
_API_PLANTS = [
    plant("a keyword Engine.generate does not take, on an Engine-annotated parameter", "Engine method", RUNNERS,
          "SGL013", 807, "logprob_start_len=logprob_start_len,", "logprob_start_length=logprob_start_len,", 807),
    plant("a keyword the test helper does not take", "test helper", GLM53, "SGL013", 52,
          "other_args=cls.server_args,", "other_arg=cls.server_args,", 52),
    plant("a top_p above 1 in the sampling dict the runner builds", "sampling parameters", RUNNERS, "SGL014", 797,
          '{"max_new_tokens": max_new_tokens, "temperature": 0}',
          '{"max_new_tokens": max_new_tokens, "temperature": 0, "top_p": 1.5}', 797),
    plant("a reasoning parser its registry does not hold, in a launch list", "registry",
          "sglang/test/dsv41_flash_common.py", "SGL007", 83,
          '"auto",\n                "--tool-call-parser",',
          '"qwen3-thinkng",\n                "--tool-call-parser",', 83),
    plant("a misspelt server argument to a class that builds ServerArgs from its keywords", "keyword class",
          "sglang/benchmark/offline_throughput.py", "SGL009", 391, "RayEngine(**kwargs)",
          "RayEngine(**kwargs, tp_sise=2)", 391),
]
MUTATIONS += [dataclasses.replace(m, replays=False) for m in _API_PLANTS]

# Where launch commands are written: each form at a real launch of 0.5.23's tests.
_FORM_PLANTS = [
    plant("a misspelt flag in the list a function of the file returns, launched with it", "returned command",
          "sglang/test/mock_model/utils.py", "SGL009", 46, '"--kv-canary",', '"--kv-canry",', 46),
]
MUTATIONS += [dataclasses.replace(m, replays=False) for m in _FORM_PLANTS]

# Issue 17's families of derived rules, each at a real call site of 0.5.23.
MUTATIONS += [
    plant("a number below its literal bound", "number range", "sglang/multimodal_gen/runtime/managers/scheduler.py",
          "SGL757", 1078, "num_outputs_per_prompt=1,", "num_outputs_per_prompt=0,", 1078),
    plant("a flag that must stay off", "falsy flag", "sglang/multimodal_gen/test/unit/test_cube_sparse_attn_backend.py",
          "SGL1544", 626, "causal=False,", "causal=True,", 626),
    plant("a bool where sglang rejects one", "type check", "sglang/multimodal_gen/test/unit/test_pi05_segment.py",
          "SGL1570", 89, "advance_pi05_segment(model, [a, b], 3)", "advance_pi05_segment(model, [a, b], True)", 89),
    plant("a value an assert rejects", "assert", "sglang/multimodal_gen/runtime/models/upsampler/latent_upsampler.py",
          "SGL746", 144, "PixelShuffleND(2, upscale", "PixelShuffleND(4, upscale", 144),
    plant("a direction another literal argument makes a guard test", "conditional guard",
          "sglang/kernels/ops/diffusion/attention/sana_wm_gdn_chunkwise_triton.py", "SGL609", 1696,
          "direction=0,\n        combined_history=True,", "direction=1,\n        combined_history=True,", 1696),
    plant("a function called by the name its package re-exports", "re-exported name",
          "sglang/kernels/ops/attention/dsv4/fp4_indexer.py", "SGL535", 628,
          "alignment_bytes=get_input_stride_alignment_bytes(),", "alignment_bytes=1024,", 628),
    plant("an argument left out whose default fails", "omitted argument",
          "sglang/srt/entrypoints/openai/serving_chat.py", "SGL408", 403,
          "model_type=self.reasoning_parser,\n                    stream_reasoning=True,", "stream_reasoning=True,",
          402),
]


# Issue 18's forms of launch lists, each at a real launch of 0.5.23's tests.
MUTATIONS += [
    plant("a misspelt flag in a class attribute list other tests launch with", "launch list (class attribute)",
          "sglang/test/ascend/gsm8k_ascend_mixin.py", "SGL009", 23,
          '"--mem-fraction-static",', '"--mem-fraction-statc",', 23),
    plant("a vLLM flag in a list setUpClass binds to cls.other_args", "launch list (cls attribute)",
          "sglang/test/ascend/test_npu_logging.py", "SGL009", 79,
          '"--log-requests",', '"--log-requests", "--gpu-memory-utilization", "0.9",', 79),
]


# sglang's own scripts run with python -m: their parser (ServerArgs' flags and their own), and a
# module sglang moved, each at a real launch of 0.5.23.
TEST_UTILS = "sglang/test/test_utils.py"
BENCH_DOC = "sglang/multimodal_gen/.agents/skills/sglang-diffusion-benchmark-profile/benchmark-and-profile.md"
_SCRIPT_PLANTS = [
    plant("a prefix ambiguous once a benchmark's flags join the server's", "script flags", TEST_UTILS, "SGL009",
          1476, '"--batch-size",', '"--batch",', 1476),
    plant("python -m of a module sglang moved", "moved module", TEST_UTILS, "SGL015", 1527,
          '"sglang.benchmark.offline_throughput",', '"sglang.bench_offline_throughput",', 1527, restores=True),
    plant("a flag the diffusion serving benchmark's own parser does not take, in a Markdown block",
          "script flags (Markdown)", BENCH_DOC, "SGL009", 474, "--num-prompts 1", "--num-prompt 1 --tp-size 2", 474),
]
MUTATIONS += [dataclasses.replace(m, replays=False) for m in _SCRIPT_PLANTS]  # (the modules differ before 0.5.21)


# Bugs that depend on the release: each planted in that release's own tree (a launch appended
# to sglang/test/test_utils.py, which imports subprocess) and judged against that release.
_LAUNCH = 'subprocess.Popen(["python", "-m", "sglang.launch_server", {flags}])  # planted\n'
BACKEND_FACTORY = "sglang/srt/mem_cache/storage/backend_factory.py"
_BUILTIN_BACKEND = '\n\nStorageBackendFactory._create_builtin_backend("{name}", None, {{}}, None)  # planted\n'
RELEASE_MUTATIONS = [
    Mutation("a flag of a newer release", "launch flags", "sglang/test/test_utils.py", "SGL009",
             (Edit(0, "", "\n" + _LAUNCH.format(flags='"--cuda-graph-backend-decode", "full"')),),
             release="0.5.10.post1"),
    Mutation("a speculative algorithm of a newer release", "launch flags", "sglang/test/test_utils.py", "SGL006",
             (Edit(0, "", "\n" + _LAUNCH.format(flags='"--speculative-algorithm", "DFLASH"')),),
             release="0.5.10.post1"),
    Mutation("a flag deprecated in this release", "launch flags", "sglang/test/test_utils.py", "SGL011",
             (Edit(0, "", "\n" + _LAUNCH.format(flags='"--mamba-scheduler-strategy", "auto"')),),
             release="0.5.19"),
    Mutation("a flag removed before this release", "launch flags", "sglang/test/test_utils.py", "SGL009",
             (Edit(0, "", "\n" + _LAUNCH.format(flags='"--mamba-scheduler-strategy", "auto"')),)),
    # A derived rule whose allowed set grew: 'simm' came in 0.5.11, so 0.5.10.post1 raises on it.
    Mutation("a storage backend of a newer release", "positional", BACKEND_FACTORY, "SGL328",
             (Edit(0, "", _BUILTIN_BACKEND.format(name="simm")),), release="0.5.10.post1"),
    Mutation("an unknown storage backend, against that release's list", "positional", BACKEND_FACTORY, "SGL328",
             (Edit(0, "", _BUILTIN_BACKEND.format(name="s3")),), release="0.5.15.post1"),
]


def replant(mutation: Mutation, tree: Path, release: str) -> Mutation | None:
    """The mutation in another release's tree: each edit's text found there once (any line;
    appends stay appends), judged against that release. None where that tree lacks the call
    site (the file, or an edit's text), or has it more than once."""
    path = tree / mutation.path
    if not path.is_file():
        return None
    source = path.read_text(encoding="utf-8")
    edits, shift = [], None
    for edit in mutation.edits:
        if edit.line == 0:
            edits.append(edit)
            continue
        if source.count(edit.old) != 1:
            return None
        line = source.count("\n", 0, source.index(edit.old)) + 1
        if mutation.expect_line is not None and shift is None:
            shift = line - edit.line
        edits.append(Edit(line, edit.old, edit.new))
    expect = None if mutation.expect_line is None else mutation.expect_line + (shift or 0)
    return dataclasses.replace(mutation, edits=tuple(edits), expect_line=expect, release=release)


def apply_mutation(tree: Path, mutation: Mutation, workdir: Path) -> Path:
    """Copy the file to ``workdir / mutation.path`` and plant the bug there; each edit
    replaces the occurrence of its ``old`` that starts on its line (so the site is real)."""
    source = (tree / mutation.path).read_text(encoding="utf-8")
    # Appends first, then edits from the bottom up, so that line numbers stay the original's.
    for edit in sorted(mutation.edits, key=lambda e: e.line or 1 << 30, reverse=True):
        if edit.line == 0:
            source = source + edit.new
            continue
        start = 0
        while True:
            index = source.find(edit.old, start)
            if index < 0:
                raise AssertionError(f"{mutation.name}: {edit.old!r} not on line {edit.line} of {mutation.path}")
            if source.count("\n", 0, index) + 1 == edit.line:
                break
            start = index + 1
        source = source[:index] + edit.new + source[index + len(edit.old):]
    target = workdir / mutation.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source, encoding="utf-8")
    return target


def expected_line(mutation: Mutation, mutated: Path) -> int:
    if mutation.expect_line is not None:
        return mutation.expect_line
    marked = [n for n, line in enumerate(mutated.read_text().splitlines(), 1) if line.endswith("# planted")]
    if len(marked) != 1:
        raise AssertionError(f"{mutation.name}: {len(marked)} lines marked '# planted'")
    return marked[0]


# sglang's own tree launches servers with a flag it deprecated (--disable-cuda-graph, from 0.5.15
# on: a manual test's literal list, and Ascend tests' class attributes and setUpClass lists, which
# the engine follows since issue 18): SGL011 is right to say so, and it is no false alarm of an
# error rule. The zero-findings checks leave SGL011 out and a check of its own pins these uses.
_DEPRECATED = (": SGL011 launch flag --disable-cuda-graph: deprecated since sglang 0.5.14; use "
               "--cuda-graph-backend-{decode,prefill}=disabled")
# (first, an `sglang serve` line of a README: the LLM server's verdict holds, its diffusion server lacks the flag)
OWN_DEPRECATED_USES = [
    "sglang/srt/mem_cache/storage/nixl/README.md:237:3" + _DEPRECATED
    + "; the diffusion server of `sglang serve` has no such flag",
] + [where + _DEPRECATED for where in (
    "sglang/test/ascend/gsm8k_ascend_mixin.py:27:9",
    "sglang/test/ascend/test_npu_logging.py:78:13",
    "sglang/test/ascend/vlm_utils.py:29:9",
    "sglang/test/manual/disaggregation/test_chunked_prefill_abort.py:58:17",
)]


def findings(command: list[str], cwd: Path) -> tuple[int, list[str]]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
    return result.returncode, [line for line in result.stdout.splitlines() if line.strip()]


def check_fixes(tree: Path, planted: list, workdir: Path, lint: list[str]) -> bool:
    """``--fix --unsafe-fixes`` over a copy of the whole tree plus the mutated copies: each
    mutation marked ``restores`` gives sglang's original bytes back; any other mutated copy
    changes only on its finding's line or the lines the mutation added; no file of the
    tree copy changes at all."""
    start = time.perf_counter()
    copy = workdir / "tree"
    shutil.copytree(tree / "sglang", copy / "sglang")
    before = {relative: (workdir / relative).read_bytes() for _, relative, _ in planted}
    result = subprocess.run(
        lint + ["--fix", "--unsafe-fixes", "tree", *before], cwd=workdir, capture_output=True, text=True
    )
    if result.returncode not in (0, 1):
        print(f"  --fix failed ({result.returncode}): {result.stderr[-2000:]}")
        return False
    touched = [
        path for path in sorted((copy / "sglang").rglob("*"))
        if path.is_file() and path.read_bytes() != (tree / path.relative_to(copy)).read_bytes()
    ]
    for path in touched:
        print("  touched a file with no finding:", path.relative_to(workdir))
    ok = not touched
    restored = 0
    for mutation, relative, line in planted:
        now = (workdir / relative).read_bytes()
        original = (tree / mutation.path).read_bytes()
        if mutation.restores:
            good = now == original
            restored += good
            print(f"  {'restored' if good else 'NOT RESTORED'}: {mutation.code} at {mutation.path} ({mutation.form}):"
                  f" {mutation.name}")
        else:
            old_lines, new_lines = before[relative].splitlines(), now.splitlines()
            allowed = {line} | set(range(len(original.splitlines()) + 1, len(old_lines) + 1))
            changed = {n for n, (a, b) in enumerate(zip(old_lines, new_lines), 1) if a != b}
            good = len(old_lines) == len(new_lines) and changed <= allowed
            if not good:
                print(f"  FIX CHANGED MORE: {mutation.code} ({mutation.name}): lines {sorted(changed)}")
        ok &= good
    wanted = sum(m.restores for m, _, _ in planted)
    print(
        f"fixes: {restored}/{wanted} mutated files restored to sglang's bytes, "
        f"{len(touched)} of the tree's files touched, {time.perf_counter() - start:.1f}s"
    )
    return ok and restored == wanted


def replay_mutations(release: str) -> bool:
    """Plant :data:`MUTATIONS` in ``release``'s own tree where it has their call site and its
    catalog their rule; require each finding there, as in 0.5.23."""
    from sglang_lint.checks.server_args.table import load_table
    from sglang_lint.core.places import default_rules_dir
    from sglang_lint.engine.ruletable import default_ruleset

    start = time.perf_counter()
    tree = fetch_tree(release)
    ruleset = default_ruleset().for_releases([release])
    in_force = {rule.code for rule in ruleset.rules}
    table = load_table(default_rules_dir() / "derived" / "server_args.toml").for_releases([release])
    workdir = Path(tempfile.mkdtemp(prefix="sglang-lint-replay-"))
    planted = []
    for index, mutation in enumerate(MUTATIONS):
        fixed = not mutation.choices_of or table.fields[mutation.choices_of].choices
        moved = replant(mutation, tree, release) if mutation.code in in_force and fixed and mutation.replays else None
        if moved is None:
            continue
        relative = Path(f"m{index:02d}") / mutation.path
        mutated = apply_mutation(tree, moved, workdir / relative.parts[0])
        planted.append((moved, str(relative), expected_line(moved, mutated)))
    _, lines = findings([sys.executable, "-m", "sglang_lint", "--no-cache", "--ignore", "SGL011",
                         "--sglang-version", release, *(relative for _, relative, _ in planted)], workdir)
    found = 0
    for mutation, relative, line in planted:
        got = [text for text in lines if text.startswith(relative + ":")]
        hit = len(got) == 1 and got[0].startswith(f"{relative}:{line}:") and f" {mutation.code} " in got[0]
        found += hit
        if not hit:
            print(f"  MISSED in {release}: {mutation.code} at {mutation.path}:{line} ({mutation.form}):"
                  f" {mutation.name}")
            for text in got:
                print("     got:", text)
    shutil.rmtree(workdir, ignore_errors=True)
    print(f"mutations replayed in sglang {release}: {found} found / {len(planted)} planted where the call site "
          f"and the rule exist (of {len(MUTATIONS)}), {time.perf_counter() - start:.1f}s")
    return found == len(planted) and bool(planted)


# --- Code that does not use sglang ------------------------------------------------------
# Names sglang's catalog shares with the rest of the Python world (``set_mode``, ``forward``,
# ``--model``) must not report code that never reaches sglang: the standard library and the
# test environment's packages (tests/test_foreign_code.py), and the sources of torch, transformers
# and diffusers with what they depend on (the releases sglang 0.5.23 pins for the last two; torch 2.13.0, whose CPU
# build pip finds on this machine's disk for Python 3.11, where a plain ``torch`` would be a
# CUDA build of several GB) lint with zero findings. A file the command cannot read or parse
# is an error, not a finding: each must be one Python itself rejects (or over the size limit,
# or a launch file that is not UTF-8).
FOREIGN_PACKAGES = ("torch==2.13.0", "transformers==5.19.0", "diffusers==0.37.0")
MIN_FOREIGN_FILES = 10_000  # files linted of FOREIGN_PACKAGES and their dependencies (10,321 of them)
# site-packages entries that are sglang, or this project (whose rules and docs show sglang's
# bad calls on purpose): not foreign code
NOT_FOREIGN = ("sglang", "sgl_", "sgl-")
_ERROR = re.compile(r"^(?P<path>.+?)(?::(?P<line>\d+):(?P<col>\d+))?: error: (?P<problem>.*)$")
_LINTED = re.compile(r"^sglang-lint: (?P<files>\d+) files?:")
_JUDGED = re.compile(r"^sglang-lint: \d+ files? judged against ")
_SIZE_LIMIT = re.compile(r"not analysed: [0-9.]+ MB is over the (?P<limit>\d+) MB limit")


def foreign_site(packages: tuple[str, ...] = FOREIGN_PACKAGES) -> Path:
    """A site-packages folder of ``packages`` and everything they depend on, holding only what the
    command reads: each wheel pip resolves is downloaded to a temporary folder and its Python and
    launch files extracted, as pip would install them, under
    ``cache_home()/foreign-py3X-<hash of the packages>`` (made once; an unfinished one anew).
    Compiled libraries, torch's among them, never reach the cache: it holds about 200 MB of
    source where a venv of the same packages takes 1.3 GB."""
    from sglang_lint.core.places import cache_home

    key = hashlib.sha256("\n".join(packages).encode()).hexdigest()[:12]
    root = cache_home() / f"foreign-py{sys.version_info[0]}{sys.version_info[1]}-{key}"
    site, done = root / "site-packages", root / ".extracted"
    if not done.exists():
        cache_home().mkdir(parents=True, exist_ok=True)
        with open(root.with_name(root.name + ".lock"), "w") as lock:  # one build at a time
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                shutil.rmtree(root, ignore_errors=True)
                with tempfile.TemporaryDirectory(prefix="sglang-lint-foreign-wheels-") as downloads:
                    # wheels only (an sdist would need building); no pip cache left in the home
                    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                                    "--no-cache-dir", "--only-binary", ":all:", "--dest", downloads, *packages],
                                   check=True)
                    for wheel in sorted(Path(downloads).glob("*.whl")):
                        extract_read_files(wheel, site)
                done.write_text("".join(f"{package}\n" for package in packages))
    return site


def extract_read_files(wheel: Path, site: Path) -> None:
    """The members of ``wheel`` the command's walk would read once installed (``*.py``, and the
    files that may hold launch commands, by suffix or shebang), written where pip puts them:
    the wheel's root, and its ``.data/purelib`` and ``.data/platlib`` folders, into ``site``."""
    import zipfile

    from sglang_lint.launch.paths import is_launch_file

    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            name = member.filename
            if member.is_dir():
                continue
            first, _, rest = name.partition("/")
            if first.endswith(".data"):
                kind, _, name = rest.partition("/")
                if kind not in ("purelib", "platlib"):
                    continue  # scripts, headers, data: installed outside site-packages
            with archive.open(member) as stream:
                if not (name.endswith(".py") or is_launch_file(name, stream.read(128))):
                    continue
            target = site / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as stream, open(target, "wb") as out:
                shutil.copyfileobj(stream, out)


def foreign_paths(folders: list[Path]) -> list[str]:
    """What to lint of ``folders`` (the standard library, site-packages): a folder as it is,
    but a site-packages folder entry by entry (the command would not walk into it), leaving
    out sglang and this project."""
    from sglang_lint.launch.paths import is_launch_file

    paths = []
    for folder in folders:
        if folder.name not in ("site-packages", "dist-packages"):
            paths.append(str(folder))
            continue
        for entry in sorted(folder.iterdir()):
            if entry.name.lower().startswith(NOT_FOREIGN) or entry.name == "__pycache__":
                continue
            if entry.is_dir() or entry.suffix == ".py" or is_launch_file(str(entry), _head(entry)):
                paths.append(str(entry))
    return paths


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(128)


@dataclass
class ForeignRun:
    """``sglang-lint --isolated --no-cache --verbose --format json PATHS``: its findings, the
    files it linted (its --verbose count), the files it reported it could not read or parse
    (each with why that is no fault of the linter, or None), the files its walk yields."""

    returncode: int
    findings: list[dict]
    linted: int
    errors: list[tuple[str, str, str | None]]  # (path, the error line, why it is excused, or None)
    walked: int
    other_stderr: list[str]
    seconds: float

    def finding_lines(self, where=lambda path: True) -> list[str]:
        """``path:line:col: CODE message`` of each finding whose path ``where`` takes."""
        return [f"{f['path']}:{f['line']}:{f['column']}: {f['code']} {f['message']}"
                for f in self.findings if where(f["path"])]

    def unexcused_errors(self) -> list[str]:
        return [line for _, line, why in self.errors if why is None]

    def faults(self) -> list[str]:
        """What is wrong with the run itself, its findings aside (empty: nothing)."""
        wrong = [f"an error on a file Python reads: {line}" for line in self.unexcused_errors()]
        wrong += [f"stderr: {line}" for line in self.other_stderr]
        if self.linted + len(self.errors) != self.walked:
            wrong.append(f"{self.linted} files linted and {len(self.errors)} errors, of {self.walked} files walked")
        expected = 2 if self.errors else (1 if self.findings else 0)
        if self.returncode != expected:
            wrong.append(f"exit status {self.returncode}, not {expected}")
        return wrong


def lint_foreign(paths: list[str]) -> ForeignRun:
    """Lint ``paths`` as a user runs the command on a project, reading no configuration file
    (the code is not ours) and no result cache (every result is computed now)."""
    from sglang_lint.frontends.inputs import python_files

    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sglang_lint", "--isolated", "--no-cache", "--verbose", "--format", "json", *paths],
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    linted, errors, other = -1, [], []
    for line in result.stderr.splitlines():
        error, count = _ERROR.match(line), _LINTED.match(line)
        if count:
            linted = int(count["files"])
        elif error:
            errors.append((error["path"], line, excused_error(Path(error["path"]), error["problem"])))
        elif not _JUDGED.match(line):
            other.append(line)
    try:
        found = json.loads(result.stdout) if result.stdout.strip() else []
    except json.JSONDecodeError:
        found, other = [], [*other, f"stdout is not JSON: {result.stdout[:2000]}"]
    walked = sum(1 for _ in python_files(paths))
    return ForeignRun(result.returncode, found, linted, errors, walked, other, seconds)


def excused_error(path: Path, problem: str) -> str | None:
    """Why the command may fail on ``path`` with no fault of its own (None: it may not): the
    file is over the size limit, or a launch file (not Python) that is not UTF-8, or Python
    itself cannot decode or compile it (the standard library's ``bad_coding*`` test data)."""
    size = _SIZE_LIMIT.search(problem)
    if size:
        over = path.is_file() and path.stat().st_size > int(size["limit"]) * 1_000_000
        return "over the size limit" if over else None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if problem.startswith("not UTF-8") and path.suffix != ".py":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return "a launch file that is not UTF-8"
        return None
    if problem.startswith(("cannot decode", "cannot parse")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarning: invalid escape sequences
                compile(data, str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return f"Python cannot compile it either ({type(exc).__name__})"
    return None


def check_foreign() -> bool:
    """Lint the sources of :data:`FOREIGN_PACKAGES` (extracted once): zero findings
    over at least :data:`MIN_FOREIGN_FILES` files, and no error on a file Python reads."""
    start = time.perf_counter()
    site = foreign_site()
    files = sum(1 for _ in site.rglob("*.py"))
    print(f"foreign code: the sources of {', '.join(FOREIGN_PACKAGES)}, {files} .py files "
          f"(ready in {time.perf_counter() - start:.1f}s)")
    run = lint_foreign(foreign_paths([site]))
    wrong = [f"finding: {line}" for line in run.finding_lines()] + run.faults()
    if run.linted < MIN_FOREIGN_FILES:
        wrong.append(f"only {run.linted} files linted (at least {MIN_FOREIGN_FILES} expected)")
    print(f"sglang-lint on foreign code: {run.linted} files linted, {len(run.findings)} findings, "
          f"{len(run.errors)} files it cannot read ({len(run.unexcused_errors())} that Python reads), "
          f"{run.seconds:.1f}s")
    for line in wrong:
        print("  unexpected", line)
    return not wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flake8", action="store_true", help="also run flake8 --select SGL over the whole tree")
    parser.add_argument("--keep", type=Path, help="write the mutated copies here instead of a temporary folder")
    parser.add_argument("--foreign", action="store_true",
                        help="also lint the sources of torch, transformers and diffusers (extracted once from wheels "
                             "pip downloads, into the cache: about 200 MB) and require zero findings")
    parser.add_argument("--foreign-only", action="store_true", help="only that step")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # each line as it comes, also through a pipe

    began = time.perf_counter()
    if args.foreign_only:
        ok = check_foreign()
        print(f"{'PASS' if ok else 'FAIL'} in {time.perf_counter() - began:.1f}s")
        return 0 if ok else 1
    print(f"sglang {SGLANG_VERSION}'s tree: fetched through pip once, then read from the cache")
    tree = fetch_tree()
    files = sum(1 for _ in (tree / "sglang").rglob("*.py"))
    print(f"linting its {files} files, then older releases' own trees, then planted bugs (a few minutes)")
    # A result cache of this run only: every result below is computed here (none comes from
    # an earlier run), and the --fix step reads what the lint steps wrote.
    run_cache = Path(tempfile.mkdtemp(prefix="sglang-lint-corpus-cache-"))
    lint = [sys.executable, "-m", "sglang_lint", "--cache-dir", str(run_cache), "--ignore", "SGL011"]
    ok = True

    _, lines = findings([sys.executable, "-m", "sglang_lint", "--no-cache", "--select", "SGL011", "sglang"], tree)
    print(f"SGL011 on the tree: {len(lines)} deprecated flag uses (expected {len(OWN_DEPRECATED_USES)})")
    ok &= lines == OWN_DEPRECATED_USES

    start = time.perf_counter()
    _, lines = findings(lint + ["sglang"], tree)
    took = time.perf_counter() - start
    print(f"sglang-lint: {files} files of sglang {SGLANG_VERSION}, {len(lines)} findings, {took:.1f}s")
    for line in lines:
        print("  unexpected:", line)
    ok &= not lines

    for release in OTHER_RELEASES:
        start = time.perf_counter()
        older = fetch_tree(release)
        _, lines = findings(lint + ["--sglang-version", release, "sglang"], older)
        took = time.perf_counter() - start
        print(f"sglang-lint --sglang-version {release} on sglang {release}'s own tree: {len(lines)} findings, "
              f"{took:.1f}s")
        for line in lines:
            print("  unexpected:", line)
        ok &= not lines

    start = time.perf_counter()
    found = 0
    for mutation in RELEASE_MUTATIONS:
        workdir = Path(tempfile.mkdtemp(prefix="sglang-lint-release-mutation-"))
        mutated = apply_mutation(fetch_tree(mutation.release), mutation, workdir)
        line = expected_line(mutation, mutated)
        _, lines = findings([sys.executable, "-m", "sglang_lint", "--no-cache", "--sglang-version", mutation.release,
                             mutation.path], workdir)
        hit = len(lines) == 1 and lines[0].startswith(f"{mutation.path}:{line}:") and f" {mutation.code} " in lines[0]
        found += hit
        print(f"  {'found' if hit else 'MISSED'}: {mutation.code} at {mutation.path}:{line} in {mutation.release}:"
              f" {mutation.name}")
        for text in lines if not hit else ():
            print("     got:", text)
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"release mutations: {found} found / {len(RELEASE_MUTATIONS)} planted, {time.perf_counter() - start:.1f}s")
    ok &= found == len(RELEASE_MUTATIONS)

    # The bugs planted in 0.5.23, in each older release whose tree has the call site and whose
    # catalog has the rule: judged against that release, each must be found there too.
    for release in OTHER_RELEASES:
        ok &= replay_mutations(release)

    if args.flake8:
        print("flake8 --select SGL over the whole tree ...")
        start = time.perf_counter()
        _, lines = findings(
            [sys.executable, "-m", "flake8", "--isolated", "--select", "SGL", "--extend-ignore", "SGL011",
             "-j", str(os.cpu_count() or 1), "sglang"],
            tree,
        )
        took = time.perf_counter() - start
        print(f"flake8 --select SGL: {len(lines)} findings, {took:.1f}s")
        for line in lines:
            print("  unexpected:", line)
        ok &= not lines

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="sglang-lint-mutations-"))
    start = time.perf_counter()
    planted = []
    for index, mutation in enumerate(MUTATIONS):
        relative = Path(f"m{index:02d}") / mutation.path
        mutated = apply_mutation(tree, mutation, workdir / relative.parts[0])
        planted.append((mutation, str(relative), expected_line(mutation, mutated)))
    _, lines = findings(lint + [relative for _, relative, _ in planted], workdir)  # one run for all copies
    found = 0
    for mutation, relative, line in planted:
        got = [text for text in lines if text.startswith(relative + ":")]
        hit = len(got) == 1 and got[0].startswith(f"{relative}:{line}:") and f" {mutation.code} " in got[0]
        found += hit
        print(f"  {'found' if hit else 'MISSED'}: {mutation.code} at {mutation.path}:{line} ({mutation.form}):"
              f" {mutation.name}")
        if not hit:
            for text in got:
                print("     got:", text)
    took = time.perf_counter() - start
    print(f"mutations: {found} found / {len(MUTATIONS)} planted, {took:.1f}s")
    ok &= found == len(MUTATIONS)
    ok &= check_fixes(tree, planted, workdir, lint)
    if args.keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
    shutil.rmtree(run_cache, ignore_errors=True)
    if args.foreign:
        ok &= check_foreign()
    print(f"{'PASS' if ok else 'FAIL'} in {time.perf_counter() - began:.1f}s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
