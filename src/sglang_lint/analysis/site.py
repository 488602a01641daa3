"""What the one walk hands to the checks: a :class:`Site`, one call (or attribute read, or class
statement) of a catalog name, with the :class:`Guard` conditions in force there and the file's
bindings and resolver to read its values with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sglang_lint.analysis.bindings import Scope, Where
from sglang_lint.analysis.resolve import FileModel


@dataclass(frozen=True)
class Guard:
    """A condition known to hold where a call sits: ``test`` is truthy (``holds``) or falsy."""

    test: Any  # a LibCST expression
    holds: bool


@dataclass(eq=False)
class Site:
    """One call (or attribute read, or class statement) of a catalog name, as the walk found
    it: the node, the scope and statement it is in, and the conditions in force there."""

    node: Any  # cst.Call, cst.Attribute (attribute targets) or cst.ClassDef (class checks)
    scope: Scope
    guards: tuple[Guard, ...]
    model: FileModel
    where: Where | None = None  # the statement it is in (None: after its scope has run)
    partial: Any = None  # the functools.partial(...) call this call goes through
    receiver: Any = None  # ``obj`` of ``obj.method(...)`` / ``obj.attribute``
