# raise: sglang.multimodal_gen.runtime.models.dits.qwen_image:QwenTimestepProjEmbeddings.forward line 398 (the guard does not run on every call)  # noqa: E501
# why: built with use_additional_t_cond=True, forward needs addition_t_cond; omitting it (default None) raises.
import torch

from sglang.multimodal_gen.runtime.models.dits.qwen_image import QwenTimestepProjEmbeddings

time_embed = QwenTimestepProjEmbeddings(embedding_dim=3072, use_additional_t_cond=True)
timestep = torch.tensor([500.0])
hidden_states = torch.zeros(1, 4096, 3072)

bad = time_embed(timestep, hidden_states)  # recall: bad
ok = time_embed(timestep, hidden_states, addition_t_cond=torch.tensor([1]))  # recall: good
