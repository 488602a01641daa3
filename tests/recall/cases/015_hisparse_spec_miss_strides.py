# raise: sglang.kernels.ops.kvcache.hisparse:load_cache_to_device_buffer_spec_mla line 129 (the guard does not run on every call)  # noqa: E501
# why: 2 steps, int64/int32 miss buffers wide enough, but row strides 16 and 32 differ; equal widths pass.
import torch

from sglang.kernels.ops.kvcache.hisparse import HiSparseSpecState, load_cache_to_device_buffer_spec_mla

batch, steps, top_k, hot = 2, 2, 8, 64
state = HiSparseSpecState(
    cache_index=torch.zeros(batch, 2, 128, dtype=torch.int64),
    cache_policy=torch.zeros(1 + batch, hot, dtype=torch.int32),
    scratch_locs=torch.zeros(batch * steps * top_k, dtype=torch.int64),
    scratch_state=torch.zeros(16, dtype=torch.int32),
)
common = dict(
    top_k_tokens=torch.zeros(batch, steps, top_k, dtype=torch.int32),
    device_buffer_tokens=torch.zeros(batch, hot + 64, dtype=torch.int32),
    host_cache_locs=torch.zeros(batch, 4096, dtype=torch.int64),
    device_buffer_locs=torch.zeros(batch, hot + 64, dtype=torch.int32),
    host_cache=torch.zeros(4096, 656, dtype=torch.uint8),
    device_buffer=torch.zeros(512, 656, dtype=torch.uint8),
    top_k_device_locs=torch.zeros(batch, steps, top_k, dtype=torch.int32),
    req_pool_indices=torch.arange(batch, dtype=torch.int64),
    seq_lens=torch.full((batch,), 100, dtype=torch.int64),
    state=state,
    num_real_reqs=torch.tensor([batch], dtype=torch.int32),
    miss_count=torch.zeros(batch, dtype=torch.int32),
)
miss_src = torch.zeros(batch, steps * top_k, dtype=torch.int64)

load_cache_to_device_buffer_spec_mla(  # recall: bad
    **common, miss_src=miss_src, miss_dst=torch.zeros(batch, 2 * steps * top_k, dtype=torch.int32),
)
load_cache_to_device_buffer_spec_mla(  # recall: good
    **common, miss_src=miss_src, miss_dst=torch.zeros(batch, steps * top_k, dtype=torch.int32),
)
