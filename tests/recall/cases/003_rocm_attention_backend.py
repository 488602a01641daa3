# raise: sglang.multimodal_gen.runtime.platforms.rocm:RocmPlatform.get_attn_backend_cls_str line 143 (the guard does not run on every call)  # noqa: E501
# why: VMOBA_ATTN matches no earlier branch and is truthy, so the last elif raises; TORCH_SDPA returns a path.
import torch

from sglang.multimodal_gen.runtime.platforms import AttentionBackendEnum
from sglang.multimodal_gen.runtime.platforms.rocm import RocmPlatform

bad = RocmPlatform.get_attn_backend_cls_str(AttentionBackendEnum.VMOBA_ATTN, 128, torch.bfloat16)  # recall: bad
ok = RocmPlatform.get_attn_backend_cls_str(AttentionBackendEnum.TORCH_SDPA, 128, torch.bfloat16)  # recall: good
