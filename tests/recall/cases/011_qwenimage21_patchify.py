# raise: sglang.multimodal_gen.runtime.models.vaes.autoencoder_kl_qwenimage21:_patchify line 553 (the guard does not run on every call)  # noqa: E501
# why: a 5-D latent with height 63 is not divisible by patch_size 2, so the divisibility check raises; 64x64 divides.
import torch

from sglang.multimodal_gen.runtime.models.vaes.autoencoder_kl_qwenimage21 import _patchify

odd = torch.zeros(1, 16, 1, 63, 64)
even = torch.zeros(1, 16, 1, 64, 64)

bad = _patchify(odd, patch_size=2)  # recall: bad
ok = _patchify(even, patch_size=2)  # recall: good
