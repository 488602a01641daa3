"""Helpers and constants other modules' checks read (objects.speculative_setup,
objects.sequence_parallel)."""

KNOWN_ARCHITECTURES = ("DenseForCausalLM", "SparseForCausalLM")
# constants built at import time from literal sets
MUSE_ARCHITECTURES = frozenset({"MuseForCausalLM"})
SP_ARCHITECTURES = MUSE_ARCHITECTURES | frozenset({"DenseForCausalLM"})


def is_known_arch(architecture):
    return architecture in KNOWN_ARCHITECTURES


def is_muse(architecture):
    return architecture in MUSE_ARCHITECTURES
