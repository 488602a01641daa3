# raise: sglang.kernels.ops.gemm.dense_bf16_gemm_warp_splitk:validate_inputs line 298 (the guard does not test the parameter directly)  # noqa: E501
# why: all three are tensors but a is 3-D ([batch, tokens, hidden]), so the 2-D check raises; 2-D a passes it.
import torch

from sglang.kernels.ops.gemm.dense_bf16_gemm_warp_splitk import validate_inputs

hidden_states = torch.zeros(4, 32, 4096, dtype=torch.bfloat16, device="cuda")
weight = torch.zeros(1024, 4096, dtype=torch.bfloat16, device="cuda")
out = torch.empty(128, 1024, dtype=torch.bfloat16, device="cuda")

bad = validate_inputs(hidden_states, weight, out)  # recall: bad
ok = validate_inputs(hidden_states.view(-1, 4096), weight, out)  # recall: good
