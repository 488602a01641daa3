"""A validating helper that also returns the sizes it read (issue 17): a caller's path reads
what it returns, its own checks passed over (a call they stop fails all the same)."""


def validate_packed(x, state):
    if x.ndim != 2:
        raise ValueError("x must be 2-D")
    heads, value_dim = state.shape[-2:]
    if x.shape[1] <= heads * value_dim:
        raise ValueError("x is too narrow for the state")
    return x.shape[0], heads, value_dim
