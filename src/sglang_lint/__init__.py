"""sglang-lint: catch sglang's runtime errors at the call site, before anything runs.

The package root is a leaf: ``lint``, ``Diagnostic`` and ``SourceError`` are loaded on first
use, so that reading ``__version__`` (the cache, the output formats, the flake8 plugin's
registration) does not load the engine."""

__version__ = "0.1.0"

__all__ = ["Diagnostic", "SourceError", "lint", "__version__"]


def __getattr__(name: str):
    if name == "lint":
        from sglang_lint.engine import lint

        return lint
    if name in ("Diagnostic", "SourceError"):
        from sglang_lint import model

        return getattr(model, name)
    raise AttributeError(f"module 'sglang_lint' has no attribute {name!r}")
