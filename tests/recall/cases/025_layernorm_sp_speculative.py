# raise: sglang.srt.arg_groups.layernorm_sp_hook:validate_layernorm_sp line 181 (the guard is and-ed with another condition)  # noqa: E501
# why: Qwen3ForCausalLM, TP4, no DP attention pass; EAGLE is not Muse Spark DFLASH and raises; None passes.
from sglang.srt.arg_groups.layernorm_sp_hook import validate_layernorm_sp

validate_layernorm_sp(  # recall: bad
    architecture="Qwen3ForCausalLM", tp_size=4, attn_dp_enabled=False, speculative_algorithm="EAGLE",
)
validate_layernorm_sp(  # recall: good
    architecture="Qwen3ForCausalLM", tp_size=4, attn_dp_enabled=False, speculative_algorithm=None,
)
