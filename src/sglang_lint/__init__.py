"""sglang-lint: catch sglang's runtime errors at the call site, before anything runs."""

__version__ = "0.1.0"

from sglang_lint.engine import lint  # noqa: E402
from sglang_lint.model import Diagnostic, SourceError  # noqa: E402

__all__ = ["Diagnostic", "SourceError", "lint", "__version__"]
