# raise: sglang.srt.layers.mova:routed_linear_reference line 108 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: [batch, tokens, hidden] hidden states are 3-D and the first check wants [tokens, hidden]; flattened ones pass.
import torch

from sglang.srt.layers.mova import routed_linear_reference

hidden_states = torch.randn(2, 16, 512)
expert_weights = torch.randn(8, 256, 512)
routing_weights = torch.rand(32, 2)
selected_experts = torch.randint(0, 8, (32, 2))

bad = routed_linear_reference(hidden_states, expert_weights, routing_weights, selected_experts)  # recall: bad
ok = routed_linear_reference(  # recall: good
    hidden_states.reshape(-1, 512), expert_weights, routing_weights, selected_experts,
)
