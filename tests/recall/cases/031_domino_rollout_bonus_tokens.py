# raise: sglang.srt.speculative.domino_utils:domino_greedy_rollout line 336 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: draft_hidden is [2, 8, 1024], so bonus_tokens must have shape (2,); a [2, 1] tensor raises first thing.
import torch
from torch import nn

from sglang.srt.speculative.domino_utils import domino_greedy_rollout

VOCAB, HIDDEN = 32000, 1024
modules = dict(
    target_embedding=nn.Embedding(VOCAB, HIDDEN),
    lm_head_weight=torch.randn(VOCAB, HIDDEN),
    prefix_gru=nn.GRU(HIDDEN, HIDDEN, batch_first=True),
    embed_proj=nn.Sequential(nn.Linear(2 * HIDDEN, HIDDEN)),
)
draft_hidden = torch.randn(2, 8, HIDDEN)

bad = domino_greedy_rollout(  # recall: bad
    draft_hidden=draft_hidden, bonus_tokens=torch.tensor([[11], [42]]), **modules, vocab_size=VOCAB,
    shift_label=True, candidate_pool_size=64, in_cuda_graph=False,
)
ok = domino_greedy_rollout(  # recall: good
    draft_hidden=draft_hidden, bonus_tokens=torch.tensor([11, 42]), **modules, vocab_size=VOCAB,
    shift_label=True, candidate_pool_size=64, in_cuda_graph=False,
)
