"""sglang-lint: catch sglang's runtime errors at the call site, before anything runs.

The package root is the public face, above every stage: ``lint``, ``Diagnostic`` and
``SourceError`` are loaded on first use, so that reading ``__version__`` does not load the
engine. Nothing of the package imports the root; the stages, lowest first: core, text, launch,
catalog, screen, analysis, checks, engine, derive, frontends (see docs/design.md)."""

from sglang_lint.core.version import __version__

__all__ = ["Diagnostic", "SourceError", "lint", "__version__"]


def __getattr__(name: str):
    if name == "lint":
        from sglang_lint.engine.lint import lint

        return lint
    if name in ("Diagnostic", "SourceError"):
        from sglang_lint.core import model

        return getattr(model, name)
    raise AttributeError(f"module 'sglang_lint' has no attribute {name!r}")
