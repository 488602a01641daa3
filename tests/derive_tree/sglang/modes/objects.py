"""Raise sites that read objects (issue 17, fails-when): attributes of a record argument,
a dataclass's own ``__post_init__``, isinstance against an sglang class, a helper imported
from another module, and a method whose name several classes share."""

from dataclasses import dataclass, field
from enum import Enum

import torch

from sglang.modes.paths import PAGE
from sglang.modes.predicates import is_known_arch


@dataclass(kw_only=True)
class WindowConfig:
    # a record: nothing of its own runs when it is made
    enabled: bool | None = None
    window: int | None = None
    tags: list = field(default_factory=list)


class Frame:
    pass


@dataclass
class Clip:
    kind: str
    content: object = None

    def __post_init__(self):
        if self.kind not in ("frame", "text"):
            raise ValueError("kind must be frame or text")
        if self.kind == "frame" and not isinstance(self.content, Frame):
            raise TypeError("a frame clip holds a Frame")


def resolve_window(config: WindowConfig | None, *, server_window: int):
    # attributes of an argument: followed where the call makes a WindowConfig or a SimpleNamespace
    if config is not None and config.window is not None and config.window > server_window:
        raise ValueError("window exceeds the server's")


def speculative_setup(architecture, speculative=None):
    # a helper of another sglang module, read in place
    if speculative is not None and not is_known_arch(architecture):
        raise ValueError("speculative decoding needs a known architecture")


class DenseBuilder:
    def set_rate(self, rate):
        # ``set_rate``, a name two classes define: matched on the receiver's class
        if not 0.0 < rate <= 1.0:
            raise ValueError("rate must be in (0, 1]")

    def build(self, rate):
        # ``build``, a name too common to trigger on alone: matched on the receiver's class, which
        # the prefilter asks the file to name
        if rate < 0:
            raise ValueError("negative rate")


class SparseBuilder:
    def set_rate(self, rate, pages=PAGE):
        if rate * pages < 1:
            raise ValueError("too sparse")


def pack_sizes(item_lens, page_size=64):
    # a generator over a parameter: kept as one, evaluated over the list a call passes
    if any(n % page_size != 0 for n in item_lens if n):
        raise ValueError("item lengths must be page-aligned")


def sequence_parallel(architecture, speculative=None):
    # a function-level import of another module's helper and constant (built with frozenset)
    from sglang.modes.predicates import SP_ARCHITECTURES, is_muse

    if speculative is not None and not (is_muse(architecture) and speculative == "DFLASH"):
        raise ValueError("sequence parallel speculates only with DFLASH on Muse")
    if architecture not in SP_ARCHITECTURES:
        raise ValueError("sequence parallel needs a supported architecture")


def block_sizes(device=None, *, capability=None):
    # a one-parameter rule reports ``device is None`` (when capability is None); the fails-when
    # rule the rest of the test, and not that call a second time
    if capability is None:
        if device is None or device.type != "cuda":
            raise ValueError("pass a CUDA device or a capability")


def fused_norm(x):
    # torch's grad mode is unknown at the call: a CPU tensor decides the test alone
    if not (x.is_cuda and not torch.is_grad_enabled()):
        raise ValueError("the fused norm runs on CUDA tensors under no_grad")


class Backend(Enum):
    # members told apart by name: no two share a value
    SDPA = "sdpa"
    FLASH = "flash"
    SLIDING = "sliding"
    VMOBA = "vmoba"


class Mode(Enum):
    # ALIAS is another name of FAST: comparing members by name would be wrong
    FAST = 1
    ALIAS = 1


def backend_path(backend: Backend | None, mode: Mode = Mode.FAST):
    # enum members compared along the path (re-exported by the package, as users import them)
    if backend == Backend.SDPA:
        return "sdpa"
    elif backend in (Backend.FLASH, None):
        pass
    elif backend == Backend.SLIDING:
        raise ValueError("sliding tile attention is not supported here")
    elif backend:
        raise ValueError(f"invalid attention backend: {backend}")
    if mode == Mode.ALIAS and backend is None:
        raise ValueError("no alias mode without a backend")
    return "flash"


class CpuPlatform:
    @classmethod
    def pick_backend(cls, backend):
        # a class method two classes define: called on the class (or a subclass), or an instance
        if backend == Backend.SLIDING:
            raise ValueError("no sliding tile attention on the CPU")


class GpuPlatform:
    @classmethod
    def pick_backend(cls, backend, heads=8):
        if backend == Backend.VMOBA and heads % 2:
            raise ValueError("VMoBA needs an even number of heads")
