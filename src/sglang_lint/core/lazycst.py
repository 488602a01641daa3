"""LibCST, imported when a file is parsed, not when sglang-lint starts (a leaf).

Importing LibCST costs 0.15-0.3 s, more than everything else a run over a few files does when
the screens rule them out (most files of sglang's own tree that mention a catalog name). The
modules that use it write ``from sglang_lint.core.lazycst import libcst as cst``: until one of its
names is read, ``cst`` is a stand-in; the first read imports LibCST and puts the module itself
in place of the stand-in in every module of ours, so that every later ``cst.X`` is a plain
module attribute again. Module-level code never reads ``cst.X`` (annotations are strings, and
tables keyed by node type are made on first use).
"""

from __future__ import annotations

import importlib
import sys


class _LibCST:
    """Stands for the ``libcst`` module until one of its names is read."""

    def __getattr__(self, name: str):
        return getattr(_real if _real is not None else load(), name)

    def __repr__(self) -> str:
        return "<libcst, not imported yet>"


libcst = _LibCST()
_real = None  # the module, once imported (a reference to the stand-in kept elsewhere still works)


def load():
    """Import LibCST (and its metadata package) and put it in place of the stand-in."""
    global libcst, _real
    if _real is not None:
        return _real
    stand_in = libcst
    real = importlib.import_module("libcst")
    importlib.import_module("libcst.metadata")  # (positions, CodeRange)
    libcst = _real = real
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "sglang_lint" or name.startswith("sglang_lint.")):
            for key, value in list(vars(module).items()):
                if value is stand_in:
                    setattr(module, key, real)
    return real


def loaded() -> bool:
    """Has LibCST been imported (by us or anyone)?"""
    return "libcst" in sys.modules
