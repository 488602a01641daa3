# Re-exports, as sglang's packages write them: users import these names from here.
from .capture import Block as CaptureBlock, allowed_tuple
from sglang.modes.numbers import positive_pages
from sglang.modes.objects import Backend
from sglang.utils import LazyImport

ArchConfig = LazyImport("sglang.modes.capture", "ArchConfig")

# A lazy table, as sglang.kernels.ops.diffusion writes it: a name's submodule, imported on first use.
_EXPORTS: dict[str, str] = {"plan_layers": "paths", "not_a_module": "nowhere"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(name)
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
