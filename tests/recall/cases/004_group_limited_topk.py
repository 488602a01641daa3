# raise: sglang.kernels.ops.diffusion.routing.group_limited_topk_triton:group_limited_topk line 181 (the guard does not test the parameter directly)  # noqa: E501
# why: the helper is False for n_group <= 1 whatever the tensor; 64 experts, 8 groups, topk_group 4, top_k 8 pass.
import torch

from sglang.kernels.ops.diffusion.routing.group_limited_topk_triton import group_limited_topk

scores = torch.randn(16, 64, device="cuda", dtype=torch.float32)
single_group = group_limited_topk(scores, n_group=1, topk_group=1, top_k=2)  # recall: bad
expert_ids = group_limited_topk(scores, n_group=8, topk_group=4, top_k=8)  # recall: good
