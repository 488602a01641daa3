"""The compiled rule index as the entry points read it: from the cache, and built with the
engine (imported only then: engine/index_build.py) when no kept index matches the rule files."""

from __future__ import annotations

import os

from sglang_lint.catalog import index
from sglang_lint.core.places import rules_folder

_OF_RUN: dict = {}  # the folders -> their index, as this run first found it
_PRINTS: dict = {}  # the folders -> their fingerprint, as this run first found it


def rule_index(dirs=None) -> index.RuleIndex:
    """The index of these rule folders (default, or none given: the shipped catalog), checked
    against the rule files once per run (:func:`new_run`): each check of a checkout's rules/
    reads the size and time of some 5,000 files, and one run asks for the index from several
    places (its rules, its releases, the triggers of its files, the launch rules)."""
    folders = tuple(os.fspath(d) for d in (dirs or [rules_folder()]))
    if folders not in _OF_RUN:
        _OF_RUN[folders] = index.rule_index(folders, fingerprint(folders), _build)
    return _OF_RUN[folders]


def fingerprint(dirs) -> str:
    """:func:`sglang_lint.catalog.index.fingerprint` of these folders, once per run."""
    folders = tuple(os.fspath(d) for d in dirs)
    if folders not in _PRINTS:
        _PRINTS[folders] = index.fingerprint(folders)
    return _PRINTS[folders]


def new_run() -> None:
    """A new run of an entry point: the rule files are checked again when next asked for."""
    _OF_RUN.clear()
    _PRINTS.clear()


def _build(folders: tuple) -> tuple:
    from sglang_lint.engine.index_build import build  # the catalog and the check kinds: only to build

    return build(folders)
