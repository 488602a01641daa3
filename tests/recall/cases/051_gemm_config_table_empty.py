# raise: sglang.srt.lora.moe.base_gemm_provider.gemm_config_store:_validate line 37 (the guard does not test the parameter directly)  # noqa: E501
# why: a GemmConfigTable with no buckets fails `not table.buckets`; one positive bucket passes it.
from sglang.srt.lora.moe.base_gemm_provider.gemm_config_store import GemmConfigTable, _validate

_validate(GemmConfigTable(buckets={}))  # recall: bad
_validate(GemmConfigTable(buckets={64: {"tile_index": 0}}))  # recall: good
