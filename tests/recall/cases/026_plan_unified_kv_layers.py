# raise: sglang.srt.mem_cache.hicache_key_scheme:plan_unified_kv line 210 (the guard does not test the parameter directly)  # noqa: E501
# why: attn_cp_size=1 passes, then start_layer == end_layer fails `0 <= start_layer < end_layer`; [0, 32) passes.
from sglang.srt.mem_cache.hicache_key_scheme import plan_unified_kv

deployment = dict(
    model_id="Qwen/Qwen3-8B", dtype="bfloat16", page_size=64, rank_replicated=False, local_kv_heads=8,
    attn_tp_rank=0, attn_tp_size=1, attn_cp_size=1, is_final_stage=True,
)

bad = plan_unified_kv(**deployment, start_layer=32, end_layer=32)  # recall: bad
ok = plan_unified_kv(**deployment, start_layer=0, end_layer=32)  # recall: good
