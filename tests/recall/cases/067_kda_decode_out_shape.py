# raise: sglang.kernels.ops.attention.helion.kda_decode:validate_packed_decode_inputs line 308 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: all inputs match B=2, HV=4, K=V=64 except out, which is [B, HV, V] instead of [B, 1, HV, V].
import torch

from sglang.kernels.ops.attention.helion.kda_decode import validate_packed_decode_inputs

B, H, HV, K, V = 2, 4, 4, 64, 64
packed = dict(
    mixed_qkv=torch.zeros(B, 2 * H * K + HV * V),
    a=torch.zeros(B, HV * K),
    b=torch.zeros(B, HV),
    A_log=torch.zeros(HV),
    dt_bias=torch.zeros(HV * K),
    initial_state=torch.zeros(8, HV, V, K),
    ssm_state_indices=torch.arange(B, dtype=torch.int32),
)

bad = validate_packed_decode_inputs(**packed, out=torch.zeros(B, HV, V))  # recall: bad
ok = validate_packed_decode_inputs(**packed, out=torch.zeros(B, 1, HV, V))  # recall: good
