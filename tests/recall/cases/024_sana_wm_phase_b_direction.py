# raise: sglang.kernels.ops.diffusion.attention.sana_wm_gdn_chunkwise_triton:phase_b_triton line 880 (the guard is and-ed with another condition)  # noqa: E501
# why: launch args given, so no arch lookup; combined_history=True with direction=1 raises, direction=0 passes.
import torch

from sglang.kernels.ops.diffusion.attention.sana_wm_gdn_chunkwise_triton import phase_b_triton

BH, F, D = 8, 4, 64
I_P_kv = torch.zeros(BH, F, D, D)
A = torch.zeros(BH, F, D, D)
I_P_z = torch.zeros(BH, F, D)
B = torch.zeros(BH, F, D)
decay = torch.zeros(BH, F)
launch = dict(num_warps=4, num_stages=2, use_acc_fusion=False)

bad = phase_b_triton(I_P_kv, A, I_P_z, B, decay, F, **launch, direction=1, combined_history=True)  # recall: bad
ok = phase_b_triton(I_P_kv, A, I_P_z, B, decay, F, **launch, direction=0, combined_history=True)  # recall: good
