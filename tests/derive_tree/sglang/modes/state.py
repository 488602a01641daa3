"""Raise sites that read what ``__init__`` stored (issue 17, receiver state): known where the
call's receiver was made with literal arguments."""

from torch import nn


class TimeEmbed(nn.Module):
    def __init__(self, dim, use_cond=False, *, scale=1.0, heads=None):
        super().__init__()
        if heads == 0:  # a method's example must make a receiver this accepts
            raise ValueError("heads must not be 0")
        self.proj = nn.Linear(dim, dim)  # dim is handed to a call: not followed after it
        self.use_cond = use_cond
        self.scale = scale
        self.heads = 2 * heads if heads else 8

    def forward(self, t, cond=None):
        x = self.proj(t)  # calls the object an attribute holds: changes that object alone
        if self.use_cond and cond is None:
            raise ValueError("use_cond needs cond")
        return x

    def split(self, parts):
        if self.heads % parts:
            raise ValueError("heads must divide into parts")

    def rescale(self, factor):
        # scale is set again here: unknown wherever it is read
        if self.scale * factor > 4:
            raise ValueError("scale too large")
        self.scale = self.scale * factor


class Sampler:
    def __init__(self, mode="greedy"):
        self.mode = mode
        self._reset()

    def _reset(self):
        self.calls = 0

    def __call__(self, logits, top_k=None):
        # mode was stored before self._reset(), which may set anything: not known
        if self.mode == "topk" and top_k is None:
            raise ValueError("top-k sampling needs top_k")
        return logits


class Picker:
    def __init__(self, mode="greedy"):
        self._reset()
        self.mode = mode

    def _reset(self):
        self.calls = 0

    def __call__(self, logits, top_k=None):
        if self.mode == "topk" and top_k is None:
            raise ValueError("top-k picking needs top_k")
        return logits


class QuietEmbed(TimeEmbed):
    # no __init__ of its own: TimeEmbed's makes the state; setattr on another object sets none of it
    def mute(self, strength):
        if self.use_cond and strength > 1:
            raise ValueError("a conditioned embedding mutes at most fully")
        setattr(self.proj, "muted", True)
