"""Raise sites a call reaches past another raise or through another callable: a check after
an ``if`` whose branch only raises (its test unknown at the call), a class that hands its own
argument on to another constructor after an ``if`` of its own, and a wrapper whose default
``None`` fails the check of the callee it hands the argument to."""

import os


def strict_mode():
    return os.environ.get("STRICT_SAMPLER") == "1"


class StepSampler:
    def __init__(self, steps, solver="euler"):
        # the first raise reads the environment: unknown at a call, and the call fails there anyway
        if strict_mode():
            raise RuntimeError("strict sampling is not available here")
        elif solver not in ("euler", "heun"):
            raise ValueError(f"unknown solver {solver}")
        self.steps = steps


def pick_order(order, history=None):
    if history:
        window = len(history)
    else:
        raise ValueError("a history is needed")
    if order > window:
        raise ValueError("order exceeds the history")
    return order


class PositionTable:
    def __init__(self, dim, layout="interleaved"):
        if layout not in ("interleaved", "split"):
            raise ValueError(f"{layout=} not supported")
        self.dim = dim


class TextBridge:
    def __init__(self, dim, registers=None, layout="interleaved"):
        self.dim = dim
        if registers is not None:
            self.registers = registers  # a branch of its own: the call below still runs on every call
        self.table = PositionTable(dim, layout=layout)


class ReplyReader:
    def __init__(self, template, *, preamble=None):
        if preamble is None:
            raise ValueError("ReplyReader needs the preamble sent before the reply")
        self.template = template


def read_reply(text, template, *, preamble=None):
    reader = ReplyReader(template, preamble=preamble)
    return reader
