# raise: sglang.multimodal_gen.runtime.cache.conditioning:_fingerprint line 123 (the guard does not run on every call)
# why: a tensor that requires grad is refused ("only dense inference tensors"); a plain dense tensor is fingerprinted.
import torch

from sglang.multimodal_gen.runtime.cache.conditioning import _fingerprint

prompt_embeds = torch.zeros(1, 77, 4096)

bad = _fingerprint(torch.zeros(1, 77, 4096, requires_grad=True))  # recall: bad
ok = _fingerprint(prompt_embeds)  # recall: good
