# raise: sglang.srt.layers.quantization.fp8_utils:unshuffle_aiter_fp8_weight line 268 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: a bf16 weight has element_size 2, not 1, and raises; an fp8 weight passes the check.
import torch

from sglang.srt.layers.quantization.fp8_utils import unshuffle_aiter_fp8_weight

bad = unshuffle_aiter_fp8_weight(torch.zeros(512, 1024, dtype=torch.bfloat16))  # recall: bad
ok = unshuffle_aiter_fp8_weight(torch.zeros(512, 1024, dtype=torch.float8_e4m3fnuz))  # recall: good
