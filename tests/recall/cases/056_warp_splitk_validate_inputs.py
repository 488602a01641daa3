# raise: sglang.kernels.ops.gemm.dense_bf16_gemm_warp_splitk:validate_inputs line 298 (the guard does not test the parameter directly)  # noqa: E501
# why: all three are tensors but a is 3-D ([batch, tokens, hidden]), so the 2-D check raises; 2-D a passes it.
# b is [K, N] packed column-major (line 331): the weight's transpose. (Fixed 2026-12-01: the good call passed
# the [N, K] weight itself, which fails `b.shape[0] != k` at line 310, and 128 rows, over _MAX_M = 32 at line 319.)
import torch

from sglang.kernels.ops.gemm.dense_bf16_gemm_warp_splitk import validate_inputs

hidden_states = torch.zeros(1, 32, 4096, dtype=torch.bfloat16, device="cuda")
weight = torch.zeros(1024, 4096, dtype=torch.bfloat16, device="cuda")
out = torch.empty(32, 1024, dtype=torch.bfloat16, device="cuda")

bad = validate_inputs(hidden_states, weight, out)  # recall: bad
ok = validate_inputs(hidden_states.view(-1, 4096), weight.t(), out)  # recall: good
