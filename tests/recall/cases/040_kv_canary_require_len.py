# raise: sglang.kernels.ops.kv_canary.plan.utils:_require_len line 50 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: a 1-D tensor of 3 entries is not the expected length 4; expected=3 matches.
import torch

from sglang.kernels.ops.kv_canary.plan.utils import _require_len

seq_lens = torch.tensor([17, 5, 9], dtype=torch.int32)

_require_len(seq_lens, "seq_lens", 4)  # recall: bad
_require_len(seq_lens, "seq_lens", 3)  # recall: good
