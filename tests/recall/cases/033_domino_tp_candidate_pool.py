# raise: sglang.srt.speculative.domino_utils:_domino_tp_candidate_state line 75 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: 2 shards x min(4096, 1000) rows cover 2000 candidates, so a pool of 4096 raises; 1024 fits.
from types import SimpleNamespace

import torch

from sglang.srt.speculative.domino_utils import _domino_tp_candidate_state

tp_group = SimpleNamespace(world_size=2)
local_logits = torch.randn(3, 4, 1000)

bad = _domino_tp_candidate_state(  # recall: bad
    local_logits, candidate_pool_size=4096, org_vocab_start=0, num_org=1000, tp_group=tp_group,
)
ok = _domino_tp_candidate_state(  # recall: good
    local_logits, candidate_pool_size=1024, org_vocab_start=0, num_org=1000, tp_group=tp_group,
)
