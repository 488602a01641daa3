# raise: sglang.kernels.ops.attention.helion.kda_decode:validate_packed_decode_inputs line 275 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: B=2 rows in mixed_qkv/a/b but 3 ssm_state_indices: every earlier check passes and the [B] shape check raises.
import torch

from sglang.kernels.ops.attention.helion.kda_decode import validate_packed_decode_inputs

B, H, HV, K, V = 2, 4, 4, 64, 64
mixed_qkv = torch.zeros(B, 2 * H * K + HV * V)
a = torch.zeros(B, HV * K)
b = torch.zeros(B, HV)
A_log = torch.zeros(HV)
dt_bias = torch.zeros(HV * K)
initial_state = torch.zeros(8, HV, V, K)
out = torch.zeros(B, 1, HV, V)

bad = validate_packed_decode_inputs(  # recall: bad
    mixed_qkv, a, b, A_log, dt_bias, initial_state, out, torch.arange(3, dtype=torch.int32),
)
ok = validate_packed_decode_inputs(  # recall: good
    mixed_qkv, a, b, A_log, dt_bias, initial_state, out, torch.arange(B, dtype=torch.int32),
)
