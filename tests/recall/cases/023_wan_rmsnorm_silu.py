# raise: sglang.kernels.ops.diffusion.norm.wan_rmsnorm_silu_triton:wan_rmsnorm_silu line 200 (the guard does not test the parameter directly)  # noqa: E501
# why: the can_use helper is False for a CPU x (x.is_cuda); a CUDA channels_last_3d bf16 x under no_grad passes.
import torch

from sglang.kernels.ops.diffusion.norm.wan_rmsnorm_silu_triton import wan_rmsnorm_silu

x_cpu = torch.randn(1, 96, 4, 16, 16, dtype=torch.bfloat16).to(memory_format=torch.channels_last_3d)
x = x_cpu.cuda()
gamma = torch.ones(96, device="cuda", dtype=torch.bfloat16)

with torch.no_grad():
    bad = wan_rmsnorm_silu(x_cpu, gamma.cpu())  # recall: bad
    ok = wan_rmsnorm_silu(x, gamma)  # recall: good
