# raise: sglang.multimodal_gen.runtime.layers.attention.backends.video_sparse_attn_h3:VideoSparseAttentionH3MetadataBuilder.build line 286 (the guard does not run on every call)  # noqa: E501
# why: one reference grid before the generated (8, 16, 16) grid needs ref_keep_rate in (0, 1]; 1.5 raises, 0.5 passes.
import torch

from sglang.multimodal_gen.runtime.layers.attention.backends.video_sparse_attn_h3 import (
    VideoSparseAttentionH3MetadataBuilder,
)

builder = VideoSparseAttentionH3MetadataBuilder()
layout = dict(
    current_timestep=0, raw_latent_shape=(8, 32, 32), patch_size=(1, 2, 2), VSA_sparsity=0.9, prefix_segments=(),
    device=torch.device("cpu"), packed_segments=((8, 16, 16), (8, 16, 16)),
)

bad = builder.build(**layout, ref_keep_rate=1.5)  # recall: bad
ok = builder.build(**layout, ref_keep_rate=0.5)  # recall: good
