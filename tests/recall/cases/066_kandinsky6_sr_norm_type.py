# raise: sglang.multimodal_gen.runtime.models.vaes.kandinsky6_sr_vae:_arch_kwargs line 495 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: norm_type "group_norm" raises; without the key it defaults to "rms_norm" (all arch keys present).
from sglang.multimodal_gen.runtime.models.vaes.kandinsky6_sr_vae import _arch_kwargs

encoder_config = {
    "ch": 128, "ch_mult": [1, 2, 4, 4], "num_res_blocks": 2, "z_channels": 16, "temporal_compress_times": 4,
    "in_channels": 3,
}

bad = _arch_kwargs({**encoder_config, "norm_type": "group_norm"}, "in_channels", "encoder")  # recall: bad
ok = _arch_kwargs(encoder_config, "in_channels", "encoder")  # recall: good
