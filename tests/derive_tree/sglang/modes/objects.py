"""Raise sites that read objects (issue 17, fails-when): attributes of a record argument,
a dataclass's own ``__post_init__``, isinstance against an sglang class, a helper imported
from another module, and a method whose name several classes share."""

from dataclasses import dataclass, field

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
        # ``build``: too common a name to trigger on (most files would pass the prefilter)
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
