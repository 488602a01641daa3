"""Raise sites whose path to the raise is one expression over the parameters (fails-when rules),
and the shapes whose path cannot be written (each skipped with its reason)."""

import torch

PAGE = 64
BLOCKS = {"small": 16, "large": 128}


def plan_layers(start_layer, end_layer):
    # a relation between two parameters
    if not 0 <= start_layer < end_layer:
        raise ValueError("need 0 <= start_layer < end_layer")
    return end_layer - start_layer


def target_depth(num_layers=None, config=None):
    # a parameter rebound before the guard, and a dict read with a default
    config = dict(config or {})
    if num_layers is None:
        num_layers = config.get("num_hidden_layers", 88)
    if num_layers < 1:
        raise ValueError("num_layers must be positive")


def patchify(x, patch_size=2):
    # an early return, a tensor's shape unpacked into local names
    if patch_size == 1:
        return x
    if x.dim() != 5:
        raise ValueError("x must be 5-D")
    batch, channels, frames, height, width = x.shape
    if height % patch_size != 0 or width % patch_size != 0:
        raise ValueError("height and width must be divisible by patch_size")
    return x


def _usable(n_group, top_k):
    if n_group <= 1:
        return False
    return top_k <= PAGE


def grouped_topk(scores, n_group, top_k=8):
    # a helper that only tests and returns
    if not _usable(n_group, top_k):
        raise ValueError("grouped top-k needs n_group > 1 and top_k <= 64")


def same_dtype(a, b, out):
    # any() over a display of parameters
    if any(t.dtype != torch.bfloat16 for t in (a, b, out)):
        raise TypeError("a, b and out must be bfloat16")


def paired(keys_b=None, thresholds=None):
    if (keys_b is None) != (thresholds is None):
        raise ValueError("keys_b and thresholds go together")


def nested_mode(mode, block="small"):
    # a test inside a branch, against a module constant's keys
    if mode == "blocked":
        if block not in BLOCKS:
            raise ValueError("unknown block")


class Pool:
    def __init__(self, size, slots=4):
        self.size = size
        if self.size <= slots * PAGE:
            raise ValueError("size must exceed slots * PAGE")


def in_a_loop(items):
    for item in items:
        if item < 0:
            raise ValueError("negative item")


def reads_a_registry(name):
    if name not in REGISTRY:
        raise KeyError("unknown name")


def lazily(n):
    if n < 0:
        raise ValueError("negative")
    yield n


REGISTRY = {}
REGISTRY["a"] = 1
