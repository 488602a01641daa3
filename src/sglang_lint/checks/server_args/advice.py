"""What a finding on a launch flag or server argument says to do instead, in the words of those
who know: for a flag sglang deprecated, the replacement it names (``new_flag=``), what it does
with the flag, and its own words (another flag, environment variables to set); for a flag of
another serving engine, sglang's flag for it, from the table of such flags
(``rules/foreign_flags.toml``: each with the engine, the page documenting it, and whether
sglang's flag means the same). A flag is named as the command writes it (``written``: under a
framework's prefix, FlagUse.written), in sglang's words too (flag_use.in_words)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sglang_lint.checks.base import rename_fix, rename_hint, string_fix
from sglang_lint.checks.server_args.flag_use import FlagUse, as_is, in_words
from sglang_lint.checks.server_args.table import Deprecation, Table
from sglang_lint.core.model import Fix
from sglang_lint.core.rulefile import Fields, read_toml

MEANINGS = ("same", "close", "different")  # same: a safe rename; close: an unsafe one; different: a hint


def fixable(fix: Fix | None) -> str:
    if fix is None:
        return ""
    return " (fixable with `sglang-lint --fix`)" if fix.safe else " (fixable with `sglang-lint --fix --unsafe-fixes`)"


def value_replacement_fix(known, found, field, keep_prefix: str) -> Fix | None:
    """The replacement value written over the deprecated one, where that changes nothing else:
    sglang maps it and does nothing more on it, and the target releases take the new value."""
    if not found.exact or (field.choices and found.new not in field.choices):
        return None
    return string_fix(getattr(known, "written", None), found.new, True, keep_prefix)


def use_value(found, fix) -> str:
    return f"use {found.new!r}" + value_fixable(found, fix)


def value_fixable(found, fix) -> str:
    if fix is not None:
        return " (fixable with `sglang-lint --fix`)"
    return "" if found.exact else " (sglang changes other settings along with it: no automatic fix)"


# --- flags sglang deprecated -------------------------------------------------------------------------

def deprecated_text(found: Deprecation, table: Table, fix: Fix | None = None, valued: bool = False,
                    written=as_is) -> str:
    """``deprecated since sglang X[, removed in sglang Y]; ...``: since the first release that
    deprecated the flag, what the target releases do with it, and what sglang says to do.
    ``valued``: a value is written with it (an action that ignores the flag takes none:
    argparse rejects it, as an unrecognized argument, or ``--x=v``'s explicit one)."""
    since = found.span[0] or f"{table.first_release()} or earlier"
    removed = f", removed in sglang {found.span[1]}" if found.span[1] else ""
    stops = found.severity(valued) == "error"  # the finding's severity and its words agree
    if found.effect == "ignored":
        effect = f"; sglang {table.version} ignores it" + (
            " but takes no value: argparse stops the launch on the value given" if stops else "")
    else:
        effect = f"; sglang {table.version} stops the launch on it" if stops else ""
    return f"deprecated since sglang {since}{removed}{effect}{_advice(found, fix, True, written)}"


def removed_text(found: Deprecation | None, table: Table, fix: Fix | None = None, written=as_is) -> str:
    """For a flag the target releases no longer have: what sglang said to do instead while it
    deprecated the flag ("" where it said nothing, or the flag is not gone but new)."""
    if found is None or not table.change(found.span).startswith(" (removed"):
        return ""
    return _advice(found, fix, False, written)


def _advice(found: Deprecation, fix: Fix | None, now: bool, written) -> str:
    if found.new:
        new = in_words(found.new, written)  # (a flag, or one with a value: "--attn-dp-size <dp-size>")
        named = f"; use {new}" if now else f"; sglang named {new} as its replacement"
        return named + fixable(fix)
    says = "says" if now else "said"
    environment = found.environment()
    if environment:
        return f"; sglang {says} to set {_listed(environment)} in the environment instead"
    if found.says:
        return f'; sglang {says}: "{in_words(found.says, written)}"'
    return "; sglang names no replacement" if now else ""


def _listed(items) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def removed_hint(use: "FlagUse", table: Table) -> tuple[str, Fix | None]:
    """For a flag sglang deprecated and then removed: what it said to do instead, and the fix
    to its replacement where that is certain."""
    found = table.deprecation(use.flag)
    fix = replacement_fix(use.element if use.alone else None, use.alone, found, table, use.written) \
        if found is not None else None
    return removed_text(found, table, fix, use.written), fix


def unexplained_hint(name: str, change: str, table: Table, options, node, flags=None,
                     keyword: bool = False, written=as_is) -> tuple[str, Fix | None]:
    """For a name no argument of the target releases has, where neither sglang's deprecation
    nor another engine's table says more: a name of a later release (``change`` is " (added
    ..."), the older spelling of it (``flags``: its launch flags; never a like-spelled guess, nor
    a fix); a removed one, nothing; else the nearest of ``options`` (rename_hint)."""
    if change.startswith(" (added"):
        return older_spelling(flags if flags is not None else {name}, table, keyword, written), None
    if change.startswith(" (removed"):
        return "", None
    return rename_hint(name, options, node, written)


def older_spelling(flags, table: Table, keyword: bool = False, written=as_is) -> str:
    """For a flag (or, ``keyword``, a field) a later release added as the replacement of one it
    deprecated (``--attn-dp-size`` for ``--enable-dp-attention``, 0.5.22): the older flag the
    target releases take, as the user would write it ("" where there is none)."""
    for old, runs in sorted(table.deprecated.items()):
        for run in runs:
            named = _FIRST_FLAG.match(run.new or "")
            if named is None or named.group() not in flags or old not in table.known_flags:
                continue
            field = table.by_flag.get(old)
            if keyword and field is None:
                continue
            spelled = field.name if keyword else written(old)
            since = f" {run.span[0]}" if run.span[0] else ""
            return (f"; sglang {table.version} has {spelled} for it (sglang{since} deprecated it for "
                    f"{in_words(run.new, written)})")
    return ""


_FIRST_FLAG = re.compile(r"--[A-Za-z0-9][\w-]*(?![\w{-])")


def replacement_fix(node, alone: bool, found: Deprecation, table: Table, written=as_is) -> Fix | None:
    """The replacement written over the flag, where that is certain: a literal that is the
    flag alone, a plain rename (:meth:`Deprecation.certain_rename`), a flag the target knows."""
    rename = found.certain_rename()
    if not rename or rename not in table.known_flags or not alone:
        return None
    return string_fix(node, written(rename), True)


# --- flags of other serving engines ------------------------------------------------------------------

@dataclass(frozen=True)
class ForeignFlag:
    """A flag of another serving engine and sglang's flag for it: ``meaning`` "same" (renaming
    it is safe), "close" (what the user most likely wants; ``note`` says how it differs) or
    "different" (only named; ``note`` says how)."""

    flag: str
    engine: str
    source: str
    sglang: str
    meaning: str
    note: str | None = None

    @property
    def keyword(self) -> str:
        """The flag as a keyword of the engine's Python class (``max_model_len=``)."""
        return self.flag[2:].replace("-", "_")


@lru_cache(maxsize=None)
def load_foreign(path: Path) -> dict:
    """flag -> :class:`ForeignFlag`, and keyword -> the same, from the table's ``[[flag]]``s."""
    top = Fields(read_toml(path), path)
    found: dict = {}
    for spec in top.subs("flag"):
        item = ForeignFlag(spec.str("flag"), spec.str("engine"), spec.str("source"), spec.str("sglang"),
                           spec.str("meaning"), spec.str("note", required=False))
        spec.done()
        if not (item.flag.startswith("--") and item.sglang.startswith("--")):
            raise spec.error("sglang", f"{item.flag!r} -> {item.sglang!r}: both are launch flags (--x)")
        if item.meaning not in MEANINGS:
            raise spec.error("meaning", f"must be one of {', '.join(MEANINGS)}")
        if item.meaning != "same" and not item.note:
            raise spec.error("note", "is missing: a meaning that is not the same says how it differs")
        if not item.source.startswith("https://"):
            raise spec.error("source", "must be the https address of the page documenting the flag")
        if item.flag in found:
            raise spec.error("flag", f"{item.flag} is listed twice")
        found[item.flag] = found[item.keyword] = item
    top.done()
    return found


def foreign_hint(foreign: dict, name: str, table: Table, node, keyword: bool = False,
                 written=as_is) -> tuple[str, Fix | None]:
    """For a flag (or, ``keyword``, a keyword argument) sglang has no such argument for, that
    another engine has: its engine's word and sglang's flag (or field) for it, where the target
    releases have that one; a fix renaming it, safe where it means the same, unsafe where it
    is close, none where it differs or sglang deprecates its flag. ("", None): not one."""
    entry = foreign.get(name)
    if entry is None or (name == entry.keyword) != keyword or entry.sglang not in table.known_flags:
        return "", None
    target = written(entry.sglang)
    if keyword:
        field = table.by_flag.get(entry.sglang)
        if field is None:
            return "", None
        target = field.name
    deprecated = table.deprecates(entry.sglang)
    safe = {"same": True, "close": False}.get(entry.meaning)
    fix = rename_fix(node, target, safe) if safe is not None and deprecated is None and node is not None else None
    said = f"{entry.engine}'s {written(name)}"
    note = in_words(entry.note or "", written)
    if entry.meaning == "same":
        text = f"; {said} is sglang's {target}"
    elif entry.meaning == "close":
        text = f"; {said} is close to sglang's {target}: {note}"
    else:
        text = f"; sglang's nearest to {said} is {target}, which means something else: {note}"
    if deprecated is not None:
        text += f" ({written(entry.sglang)} is {deprecated_text(deprecated, table, written=written)})"
    return text + fixable(fix), fix
