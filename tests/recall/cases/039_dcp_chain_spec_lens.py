# raise: sglang.srt.layers.dcp.layout:get_dcp_chain_spec_lens line 172 (compares by order or identity (a range or type check))  # noqa: E501
# why: tokens_per_req=0 fails `tokens_per_req < 1`, the first statement; 3 draft tokens per request pass.
import torch

from sglang.srt.layers.dcp.layout import get_dcp_chain_spec_lens

kv_lens = torch.tensor([120, 64, 300])

bad = get_dcp_chain_spec_lens(kv_lens, tokens_per_req=0, dcp_size=2, dcp_rank=0)  # recall: bad
ok = get_dcp_chain_spec_lens(kv_lens, tokens_per_req=3, dcp_size=2, dcp_rank=0)  # recall: good
