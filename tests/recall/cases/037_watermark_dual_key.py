# raise: sglang.srt.sampling.watermarking.core:select_watermark_tokens_torch line 373 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: keys_b given while mixing_thresholds keeps its default None makes the two None tests differ; giving both passes.
import torch

from sglang.srt.sampling.watermarking.core import select_watermark_tokens_torch

probabilities = torch.softmax(torch.randn(4, 32000), dim=-1)
context_hashes = torch.randint(0, 2**31, (4,), dtype=torch.int64)
keys = torch.randint(0, 2**31, (4,), dtype=torch.int64)
keys_b = torch.randint(0, 2**31, (4,), dtype=torch.int64)

bad = select_watermark_tokens_torch(probabilities, context_hashes, keys, keys_b=keys_b)  # recall: bad
ok = select_watermark_tokens_torch(  # recall: good
    probabilities, context_hashes, keys, keys_b=keys_b, mixing_thresholds=torch.full((4,), 0.5),
)
