# raise: sglang.srt.layers.attention.linear.kernels.kda_nvidia:_from_nvidia_kda_state_layout line 71 (no part of the guard tests the parameter alone)  # noqa: E501
# why: a [B,H,64,128] state has (K,V)=(64,128) where (128,128) is expected; a [B,H,128,128] state passes.
import torch

from sglang.srt.layers.attention.linear.kernels.kda_nvidia import _from_nvidia_kda_state_layout

HEAD_DIM = 128
half_k_state = torch.zeros(2, 4, 64, HEAD_DIM)
state = torch.zeros(2, 4, HEAD_DIM, HEAD_DIM)

bad = _from_nvidia_kda_state_layout(  # recall: bad
    half_k_state, head_k_dim=HEAD_DIM, head_v_dim=HEAD_DIM, dtype=torch.bfloat16,
)
ok = _from_nvidia_kda_state_layout(  # recall: good
    state, head_k_dim=HEAD_DIM, head_v_dim=HEAD_DIM, dtype=torch.bfloat16,
)
