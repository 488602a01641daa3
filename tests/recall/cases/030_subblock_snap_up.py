# raise: sglang.multimodal_gen.runtime.layers.attention.backends.subblock_sparse.router:_snap_up line 179 (compares by order or identity (a range or type check))  # noqa: E501
# why: granularity 0 fails `granularity < 1`; granularity 4 rounds the budget up.
from sglang.multimodal_gen.runtime.layers.attention.backends.subblock_sparse.router import _snap_up

bad = _snap_up(topk=10, num_blocks=64, granularity=0)  # recall: bad
ok = _snap_up(topk=10, num_blocks=64, granularity=4)  # recall: good
