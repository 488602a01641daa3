# raise: sglang.multimodal_gen.runtime.layers.quantization.weight_only_fp8:dequantize_rowwise_fp8_weight line 52 (no part of the guard tests the parameter alone)  # noqa: E501
# why: a [4096, 1024] weight needs a (4096,) row scale; a (1024,) scale raises, a (4096,) one passes.
import torch

from sglang.multimodal_gen.runtime.layers.quantization.weight_only_fp8 import dequantize_rowwise_fp8_weight

weight = torch.zeros(4096, 1024, dtype=torch.float8_e4m3fn)

bad = dequantize_rowwise_fp8_weight(weight, torch.ones(1024), torch.bfloat16)  # recall: bad
ok = dequantize_rowwise_fp8_weight(weight, torch.ones(4096), torch.bfloat16)  # recall: good
