# Re-exports, as sglang's packages write them: users import these names from here.
from .capture import Block as CaptureBlock, allowed_tuple
from sglang.modes.numbers import positive_pages
from sglang.utils import LazyImport

ArchConfig = LazyImport("sglang.modes.capture", "ArchConfig")
