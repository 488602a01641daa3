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


def segment_layout(packed, keep_rate=None, prefix=()):
    # tuples built by generators (nested, filtered) over a sequence the call passes, or one spread
    if packed is None:
        packed = (*prefix, (1, 1))
    segments = tuple(
        tuple(int(v) for v in s) if isinstance(s, tuple) else int(s) for s in packed if isinstance(s, tuple) or s > 0
    )
    references = sum(isinstance(s, tuple) for s in segments) - 1
    if references and keep_rate is None:
        raise ValueError("reference segments need a keep rate")
    return segments
