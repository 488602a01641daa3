"""From findings on syntax nodes to :class:`~sglang_lint.core.model.Diagnostic`: positions (computed
only here, only when something is reported), the fix as a text edit, the lines of the call a
``# noqa`` may sit on, one diagnostic per place and message, and one SGL900 per crashed rule."""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.resolve import FileModel
from sglang_lint.catalog.rules import CRASH_CODE
from sglang_lint.core.model import Diagnostic, Edit, Fix
from sglang_lint.engine.dispatch import Reported


def diagnostics(model: FileModel, reported: list[Reported], crashed: dict[str, str]) -> list[Diagnostic]:
    found = []
    seen = set()
    for item in reported:
        where = model.position(item.node)
        key = (where.start.line, where.start.column, item.code, item.message)
        if key in seen:
            continue
        seen.add(key)
        found.append(
            Diagnostic(
                where.start.line, where.start.column, item.code, item.message,
                where.end.line, where.end.column, _edit(model, item.fix), _span(model, item.call), item.severity,
            )
        )
    for code, error in crashed.items():
        found.append(
            Diagnostic(1, 0, CRASH_CODE, f"rule {code} crashed on this file ({error}); other rules still ran")
        )
    return sorted(found)


def _span(model: FileModel, call: cst.CSTNode) -> tuple:
    """The first and last line of the call (or class) a finding is in; () for a call the
    engine made up (a config field default seen as a keyword)."""
    try:
        where = model.position(call)
    except KeyError:
        return ()
    return (where.start.line, where.end.line)


def _edit(model: FileModel, fix: Fix | None) -> Edit | None:
    if fix is None:
        return None
    where = model.position(fix.node)
    return Edit(where.start.line, where.start.column, where.end.line, where.end.column, fix.old, fix.text, fix.safe)
