# A small stand-in for sglang's source: each guard shape `catalog derive` must turn into a
# rule, and each it must skip. Names say which.
from dataclasses import dataclass

SUPPORTED_BACKENDS = ("auto", "torch", "triton")
REGISTRY = {"fast": 1, "slow": 2}
_PLUGINS = {"builtin": 0}


def register_plugin(name):
    _PLUGINS[name] = len(_PLUGINS)


def allowed_tuple(tensor, mode):
    if mode not in ("pre_rope", "post_rope"):
        raise ValueError(f"unsupported mode: {mode}")
    return tensor


def allowed_constant(backend="auto"):
    """Docstrings do not count."""
    if backend not in SUPPORTED_BACKENDS:
        raise ValueError(f"bad backend {backend}")


def allowed_dict_keys(kind):
    if kind not in REGISTRY:
        raise KeyError(kind)


def not_equal(layout):
    if layout != "nhd":
        raise NotImplementedError("only nhd")


def chain(rule):
    if rule == "chunk":
        out = 1
    elif rule in ("recurrent", "fused"):
        out = 2
    else:
        raise ValueError(f"unknown rule {rule}")
    return out


def matched(kind):
    match kind:
        case "a" | "b":
            return 1
        case _:
            raise ValueError("unknown kind")


def needs_layers(layer_ids):
    if layer_ids is None:
        raise ValueError("layer_ids required")


def not_supported(*, scale=None):
    if scale is not None:
        raise NotImplementedError("scale is not supported")


def truthy(name):
    if not name:
        raise ValueError("name must be set")


def forbidden(mode):
    if mode == "legacy":
        raise ValueError("legacy mode was removed")


def early_return_first(mode):
    if mode is None:
        return None
    if mode not in ("x", "y"):
        raise ValueError("skipped: an earlier return")


def reassigned_first(mode):
    mode = mode.lower()
    if mode not in ("x", "y"):
        raise ValueError("skipped: reassigned")


def anded(mode, strict):
    if mode not in ("x", "y") and strict:
        raise ValueError("skipped: and-ed")


def registry(kind):
    if kind not in _PLUGINS:
        raise ValueError("skipped: a registry filled at run time")


def nested_guard(mode, flag):
    if flag:
        if mode not in ("x", "y"):
            raise ValueError("skipped: not on every call")


def _check(ret):
    if ret != 0:
        raise RuntimeError("skipped: a check helper")
    return ret


class Block:
    def __init__(self, dim, backend="auto"):
        self.backend = backend
        if self.backend not in ("auto", "torch"):
            raise ValueError("block backend")

    def set_capture_mode(self, capture):
        if capture not in ("on", "off"):
            raise ValueError("capture must be on or off")

    def update(self, value):
        if value is None:
            raise ValueError("skipped: common method name")


class Other:
    def set_shared(self, value):
        if value is None:
            raise ValueError("skipped: shared name")


class Another:
    def set_shared(self, value):
        if value is None:
            raise ValueError("skipped: shared name")


@dataclass
class ArchConfig:
    mode: str = "pre"

    def __post_init__(self):
        if self.mode not in ("pre", "post"):
            raise ValueError("arch mode")


def wrapper(tensor, capture_mode):
    return allowed_tuple(tensor, mode=capture_mode)


def anded_with_an_expression(mode, items):
    if mode not in ("x", "y") and len(items) > 2:
        raise ValueError("skipped: and-ed with a test of an expression")


def nested_under_an_expression(mode, items):
    if len(items) > 1:
        if mode not in ("x", "y"):
            raise ValueError("skipped: not on every call")


def positional_wrapper(tensor, how):
    return allowed_tuple(tensor, how)


class HeldCapture:
    def __init__(self, how):
        self.how = how
        allowed_tuple(None, mode=self.how)


class MaybeCapture:
    def __init__(self, how=None):
        # allowed_tuple runs only for a mode given: not a pass-through (MaybeCapture() is fine)
        self.checked = allowed_tuple(None, mode=how) if how is not None else None
        self.both = how and allowed_tuple(None, mode=how)


class ChildBlock(Block):
    def __init__(self, dim, kind):
        super().__init__(dim, kind)


def _validate_layout(layout):
    if layout not in ("nhd", "hnd"):
        raise ValueError(f"unknown layout {layout}")


class Cache:
    def __init__(self, size, layout, policy="lru"):
        self.policy = policy
        _validate_layout(layout)
        self._validate_policy()

    def _validate_policy(self):
        assert self.policy in ("lru", "fifo"), "unknown policy"


@dataclass
class SchedulerConfig:
    chunk: int = 8

    def __post_init__(self):
        self._check_chunk()

    def _check_chunk(self):
        if self.chunk <= 0:
            raise ValueError("chunk must be positive")
