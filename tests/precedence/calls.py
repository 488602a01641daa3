# Held-out calls into sglang 0.5.23, each of which certainly fails two or more raises of one
# sglang function (fixed seed 15 over the functions with several derived rules; each case traced
# through the 0.5.23 wheel's source). The comment after a call lists the checks to report: the
# first is the raise sglang reaches first; one marked + is reported too, saying it "also fails
# once ..." (it reads no argument an earlier failing check reads, so no fix of those makes it
# pass). A rule not listed certainly fails too, but after an earlier check that reads its
# arguments: not reported. "none": sglang raises first where no rule of this call looks.
import torch
from types import SimpleNamespace

from sglang.multimodal_gen.apps.ComfyUI_SGLDiffusion.core.preflight import _check_execution
from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.cosmos3_simulation.sim_auto import (
    fixed_step_sample,
)
from sglang.multimodal_gen.tools.compare_diffusion_trajectory_similarity import _normalize_step_index
from sglang.srt.layers.conv import Conv2dLayer, _validate_conv_args
from sglang.srt.layers.moe.topk import fused_topk_cpu
from sglang.srt.layers.muse_spark.muse_spark_audio import AudioEncoder
from sglang.srt.layers.quantization.compressed_tensors.schemes.compressed_tensors_w4a4_mxint4_moe import (
    CompressedTensorsMxInt4MoE,
)
from sglang.srt.speculative.dflash_utils import build_target_layer_ids

_validate_conv_args(3, 4, 2, 0, "zero", (1, 1))  # sglang: SGL3175, SGL270+
_validate_conv_args(3, 5, 2, "full", "zeros", (1, 1))  # sglang: SGL3175, SGL3177+
_validate_conv_args(4, 4, 2, "same", "bad", (2, 2))  # sglang: SGL270, SGL5092+
_validate_conv_args(in_channels=4, out_channels=3, groups=2, padding="full", padding_mode="bad", stride=(1, 1))  # sglang: SGL3176, SGL270+, SGL3177+
build_target_layer_ids(num_target_layers=0, num_draft_layers=0)  # sglang: SGL1145, SGL1144+
build_target_layer_ids(num_target_layers=0, num_draft_layers=2)  # sglang: SGL1145
build_target_layer_ids(num_target_layers=3, num_draft_layers=-1)  # sglang: SGL1144
_normalize_step_index(step_index=5, num_steps=0)  # sglang: SGL798
_check_execution("fast_h3", {"enable_breakable_cuda_graph": True, "ring_degree": 2})  # sglang: SGL2549
AudioEncoder(SimpleNamespace(patch_sizes=[1], hidden_sizes=[1, 2], depths=[1], num_hidden_layers=1, hidden_act="relu"))  # sglang: SGL4211
CompressedTensorsMxInt4MoE(None, SimpleNamespace(num_bits=8, strategy="channel", group_size=32, symmetric=False, actorder=True))  # sglang: SGL4218
fused_topk_cpu(None, None, 2, True, num_fused_shared_experts=1, apply_routed_scaling_factor_on_output=True)  # sglang: SGL277, SGL1587+
fused_topk_cpu(None, None, 2, True, num_fused_shared_experts=2, apply_routed_scaling_factor_on_output=True, packed_out=True)  # sglang: SGL277, SGL1587+, SGL279+
fixed_step_sample(None, torch.zeros(2, 3, 4), sample_type="euler")  # sglang: SGL2834, SGL208+
Conv2dLayer(3, 5, 3, groups=2, padding_mode="bad")  # sglang: none (in_channels % groups: no rule passes it through)
