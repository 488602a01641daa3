# raise: sglang.multimodal_gen.runtime.layers.attention.backends.ascend_fa:_packed_boundaries line 85 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: cu_seqlens [0, 5, 12] is 1-D int32 starting at 0 but ends at 12, not total_tokens=16; total_tokens=12 passes.
import torch

from sglang.multimodal_gen.runtime.layers.attention.backends.ascend_fa import _packed_boundaries

cu_seqlens = torch.tensor([0, 5, 12], dtype=torch.int32)

bad = _packed_boundaries(cu_seqlens, None, 16, "cu_seqlens_q")  # recall: bad
ok = _packed_boundaries(cu_seqlens, None, 12, "cu_seqlens_q")  # recall: good
