# raise: sglang.kernels.ops.moe.fill_padded_rows:_fill_padded_rows line 57 (the guard does not test the parameter directly)  # noqa: E501
# why: a Python int count is not a torch.Tensor and raises TypeError; a one-element tensor passes.
import torch

from sglang.kernels.ops.moe.fill_padded_rows import _fill_padded_rows

topk_ids = torch.zeros(64, 8, dtype=torch.int32)

_fill_padded_rows(topk_ids, 48, -1)  # recall: bad
_fill_padded_rows(topk_ids, torch.tensor([48], dtype=torch.int32), -1)  # recall: good
