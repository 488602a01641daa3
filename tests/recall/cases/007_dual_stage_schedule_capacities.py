# raise: sglang.kernels.ops.lora.moe.cutedsl.schedule_builder:dual_stage_schedule_capacities_masked line 101 (no part of the guard tests the parameter alone)  # noqa: E501
# why: use_2cta_instrs=True makes the first guard true; the defaults (cluster (1, 1), 1-CTA MMA) pass it.
from sglang.kernels.ops.lora.moe.cutedsl.schedule_builder import dual_stage_schedule_capacities_masked

bad = dual_stage_schedule_capacities_masked(  # recall: bad
    num_experts=8, m_max=256, token_width=128, n_gemm1=4096, n_gemm2=2048, output_width=128, use_2cta_instrs=True,
)
ok = dual_stage_schedule_capacities_masked(  # recall: good
    num_experts=8, m_max=256, token_width=128, n_gemm1=4096, n_gemm2=2048, output_width=128,
)
