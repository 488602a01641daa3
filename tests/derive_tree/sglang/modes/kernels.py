"""Shape checks of a kernel wrapper (issue 17): sizes computed from several tensors, a size
handed to a call (no call changes a number), a tuple a helper of another module returns."""

from sglang.modes.packed import validate_packed


def packed_decode(x, state, out):
    batch = x.size(0)
    flat = x.view(batch, -1)
    _, heads, value_dim = validate_packed(flat, state)
    if out.shape != (batch, heads, value_dim):
        raise ValueError("out must be [B, HV, V]")
    return out
