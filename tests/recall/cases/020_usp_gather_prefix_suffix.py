# raise: sglang.multimodal_gen.runtime.layers.attention.layer:USPAttention._gather_sharded_sequence line 1810 (the guard is and-ed with another condition)  # noqa: E501
# why: a replicated prefix and a replicated suffix together make the first statement raise; a prefix alone passes it.
import torch

from sglang.multimodal_gen.runtime.layers.attention.layer import USPAttention

shard = torch.zeros(1, 1024, 24, 128)

bad = USPAttention._gather_sharded_sequence(shard, num_replicated_prefix=77, num_replicated_suffix=16)  # recall: bad
ok = USPAttention._gather_sharded_sequence(shard, num_replicated_prefix=77)  # recall: good
