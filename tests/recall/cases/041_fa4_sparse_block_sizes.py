# raise: sglang.multimodal_gen.runtime.models.dits.cosmos3_simulation.multiview_attention:fa4_sparse_block_sizes line 93 (the guard does not run on every call)  # noqa: E501
# why: with capability_major omitted (None), a non-CUDA device raises; giving capability_major skips the device test.
import torch

from sglang.multimodal_gen.runtime.models.dits.cosmos3_simulation.multiview_attention import fa4_sparse_block_sizes

bad = fa4_sparse_block_sizes(torch.device("cpu"))  # recall: bad
ok = fa4_sparse_block_sizes(capability_major=10)  # recall: good
