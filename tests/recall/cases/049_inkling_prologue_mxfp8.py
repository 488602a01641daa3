# raise: sglang.kernels.ops.attention.inkling_attn_prologue:inkling_attn_prologue_extend line 209 (the guard does not run on every call)  # noqa: E501
# why: with mxfp8_quant=True a head dim of 96 fails `dq % 128 != 0`, the first check; without MXFP8 no such check runs.
import torch

from sglang.kernels.ops.attention.inkling_attn_prologue import inkling_attn_prologue_extend

T, HEAD_DIM, PAGE = 256, 96, 128
buffers = dict(
    qkvr=torch.zeros(T, 4 * HEAD_DIM, dtype=torch.bfloat16),
    k_cache=torch.zeros(8, 3, HEAD_DIM, dtype=torch.bfloat16),
    v_cache=torch.zeros(8, 3, HEAD_DIM, dtype=torch.bfloat16),
    cache_indices=torch.arange(2, dtype=torch.int32),
    cache_mask=torch.ones(2, dtype=torch.bool),
    has_initial_state=torch.zeros(2, dtype=torch.bool),
    cu=torch.tensor([0, 100, T], dtype=torch.int32),
    si=torch.zeros(T, dtype=torch.int32),
    k_weight=torch.zeros(HEAD_DIM, 4, dtype=torch.bfloat16),
    v_weight=torch.zeros(HEAD_DIM, 4, dtype=torch.bfloat16),
    track_rows=torch.empty(0, dtype=torch.int32),
    track_mask=torch.empty(0, dtype=torch.bool),
    track_dst=torch.empty(0, dtype=torch.int32),
    q_gamma=torch.ones(HEAD_DIM, dtype=torch.bfloat16),
    k_gamma=torch.ones(HEAD_DIM, dtype=torch.bfloat16),
    loc=torch.arange(T, dtype=torch.int64),
    k_buf=torch.zeros(16 * PAGE, HEAD_DIM, dtype=torch.bfloat16),
    v_buf=torch.zeros(16 * PAGE, HEAD_DIM, dtype=torch.bfloat16),
)
layout = dict(eps=1e-6, q_off=0, k_off=HEAD_DIM, v_off=2 * HEAD_DIM, dq=HEAD_DIM, dkv=HEAD_DIM, page_size=PAGE)

bad = inkling_attn_prologue_extend(**buffers, **layout, mxfp8_quant=True)  # recall: bad
ok = inkling_attn_prologue_extend(**buffers, **layout, mxfp8_quant=False)  # recall: good
