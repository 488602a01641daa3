# raise: sglang.srt.model_loader.weight_utils:_prefetch_all_checkpoints line 1020 (compares by order or identity (a range or type check))  # noqa: E501
# why: num_threads=0 fails `num_threads < 1` before any file is touched; the default 4 passes.
from sglang.srt.model_loader.weight_utils import _prefetch_all_checkpoints

shards = [f"/models/llama/model-{i:05d}-of-00004.safetensors" for i in range(1, 5)]

bad = _prefetch_all_checkpoints(shards, num_threads=0)  # recall: bad
ok = _prefetch_all_checkpoints(shards)  # recall: good
