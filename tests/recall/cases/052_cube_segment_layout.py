# raise: sglang.multimodal_gen.runtime.layers.attention.backends.cube_sparse_attn.mask:_build_cube_segment_layout line 441 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: two target shapes need 3 cu_seqlens entries; [0, 1024] raises, [0, 1024, 2048] passes the count check.
import torch

from sglang.multimodal_gen.runtime.layers.attention.backends.cube_sparse_attn.mask import _build_cube_segment_layout

shapes = [(4, 16, 16), (4, 16, 16)]
layout = dict(real_total_len=2048, cube_size=(2, 4, 4), device=torch.device("cpu"), streams=None, position_ids=None)

bad = _build_cube_segment_layout(shapes, torch.tensor([0, 1024]), **layout)  # recall: bad
ok = _build_cube_segment_layout(shapes, torch.tensor([0, 1024, 2048]), **layout)  # recall: good
