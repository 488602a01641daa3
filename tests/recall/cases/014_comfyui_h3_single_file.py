# raise: sglang.multimodal_gen.apps.ComfyUI_SGLDiffusion.core.generator:_check_h3_single_file line 75 (the guard does not run on every call)  # noqa: E501
# why: a .safetensors path with a truthy "quantization" option reaches the second raise; None returns early.
from sglang.multimodal_gen.apps.ComfyUI_SGLDiffusion.core.generator import _check_h3_single_file

_check_h3_single_file("minimax_h3_bf16.safetensors", {"quantization": "fp8"})  # recall: bad
_check_h3_single_file("minimax_h3_bf16.safetensors", {"quantization": None})  # recall: good
