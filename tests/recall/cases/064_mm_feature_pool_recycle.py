# raise: sglang.srt.multimodal.transport.memory_pool:StreamOrderedMmFeaturePool.__init__ line 185 (compares by order or identity (a range or type check))  # noqa: E501
# why: sizes and counts are positive, then recycle_interval=0 fails `<= 0` before the tensor is looked at.
import torch

from sglang.srt.multimodal.transport.memory_pool import StreamOrderedMmFeaturePool

POOL_BYTES = 1 << 28
buffer = torch.empty(POOL_BYTES, dtype=torch.uint8, device="cuda")
pool_args = dict(
    memory_size=POOL_BYTES, byte_tensor=buffer, base_address=buffer.data_ptr(), device_id=0, consumer_count=2,
    transport_name="mooncake",
)

bad = StreamOrderedMmFeaturePool(**pool_args, recycle_interval=0)  # recall: bad
ok = StreamOrderedMmFeaturePool(**pool_args, recycle_interval=0.05)  # recall: good
