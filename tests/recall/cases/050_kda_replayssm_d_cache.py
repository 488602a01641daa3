# raise: sglang.kernels.ops.attention.helion.kda_replayssm:helion_fused_recurrent_kda_replayssm_decode line 738 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: the packed inputs validate (HV=4, V=64) but d_cache's value dim is 32, so `d_cache.shape[1:]` != (4, 16, 64).
import torch

from sglang.kernels.ops.attention.helion.kda_replayssm import helion_fused_recurrent_kda_replayssm_decode

B, H, HV, K, V, SLOTS, RING = 2, 4, 4, 64, 64, 8, 16
inputs = dict(
    mixed_qkv=torch.zeros(B, 2 * H * K + HV * V),
    a=torch.zeros(B, HV * K),
    b=torch.zeros(B, HV),
    A_log=torch.zeros(HV),
    dt_bias=torch.zeros(HV * K),
    scale=K ** -0.5,
    initial_state=torch.zeros(SLOTS, HV, V, K),
    k_cache=torch.zeros(SLOTS, H, RING, K),
    g_cache=torch.zeros(SLOTS, HV, RING, K),
    out=torch.zeros(B, 1, HV, V),
    ssm_state_indices=torch.arange(B, dtype=torch.int32),
    write_pos=torch.zeros(B, dtype=torch.int32),
)

bad = helion_fused_recurrent_kda_replayssm_decode(  # recall: bad
    **inputs, d_cache=torch.zeros(SLOTS, HV, RING, 32),
)
ok = helion_fused_recurrent_kda_replayssm_decode(  # recall: good
    **inputs, d_cache=torch.zeros(SLOTS, HV, RING, V),
)
