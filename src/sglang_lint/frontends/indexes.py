"""The compiled rule index as the entry points read it: from the cache, and built with the
engine (imported only then: engine/index_build.py) when no kept index matches the rule files."""

from __future__ import annotations

from sglang_lint.catalog import index


def rule_index(dirs=None) -> index.RuleIndex:
    """The index of these rule folders (default: the shipped catalog)."""
    return index.rule_index(dirs, _build)


def _build(folders: tuple) -> tuple:
    from sglang_lint.engine.index_build import build  # the catalog and the check kinds: only to build

    return build(folders)
