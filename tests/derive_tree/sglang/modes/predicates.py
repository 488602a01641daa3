"""A helper another module's check calls (objects.speculative_setup)."""

KNOWN_ARCHITECTURES = ("DenseForCausalLM", "SparseForCausalLM")


def is_known_arch(architecture):
    return architecture in KNOWN_ARCHITECTURES
