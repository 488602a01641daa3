"""One value against its field: what the ``choices``, ``plugin-choices``, ``type`` and
``deprecated`` aspects say of a value a keyword or a flag's word is known to take (a literal
outside a field's fixed choices, or outside lists a plugin may extend; ``tp_size="2"``; a value
sglang deprecated), with the fix where one is certain enough. The call-site screen, the keywords
of a call and the words of a launch ask the same verdict."""

from __future__ import annotations

import ast

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.checks.base import did_you_mean, show_value, string_fix, suggest
from sglang_lint.checks.server_args.advice import use_value, value_fixable, value_replacement_fix
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.table import Field
from sglang_lint.core.model import Fix
from sglang_lint.text.pynames import Ref


# A list, tuple or set written for a field with choices (``lora_target_modules=["q_proj"]``)
# is judged element by element, as argparse judges each value of ``nargs``; the screen and the
# check read the same elements.
def ast_items(field: Field, node):
    if field.choices and isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e for e in node.elts if not isinstance(e, ast.Starred)]
    return [node]


def cst_items(field: Field, node):
    if field.choices and isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [e.value for e in node.elements if isinstance(e, cst.Element)]
    return [node]


def judge_value(
    params: ServerArgsCheck, field: Field, known, opening: str, closing: str = "", keep_prefix: str = ""
) -> tuple[str, Fix | None] | None:
    """A message (and fix) when ``known.value`` breaks the field's choices or type, for this
    aspect. ``keep_prefix``: the ``--flag=`` an inline value follows in its literal."""
    value = known.value
    if isinstance(value, Ref) or (value is None and field.optional):
        return None
    version = params.table.version
    via = getattr(known, "via", ())
    shown_value = f"{via[0]} (= {show_value(value)})" if via else show_value(value)
    if params.aspect == "deprecated":
        found = params.table.deprecates_value(field.name, value)
        if found is None:
            return None
        since = found.range[0] or f"{params.table.first_release()} or earlier"
        removed = f", removed in sglang {found.range[1]}" if found.range[1] else ""
        fix = value_replacement_fix(known, found, field, keep_prefix)
        return (f"{opening}{shown_value}{closing}: deprecated since sglang {since}{removed}; "
                f"{use_value(found, fix)}"), fix
    if params.aspect in ("choices", "plugin-choices") and field.choices:
        if field.extensible != (params.aspect == "plugin-choices") or not field.refuses(value):
            return None
        shown = ", ".join(repr(c) for c in field.choices[:12]) + (", ..." if len(field.choices) > 12 else "")
        plugin = " (or one a plugin registers)" if field.extensible else ""
        change = params.table.choice_change(field.name, value)
        message = (
            f"{opening}{shown_value}{closing}: not a choice of sglang {version}'s {field.name}{plugin}"
            f"{change}; expected one of {shown}"
        )
        found = params.table.value_deprecation(field.name, value)
        if found is not None and change.startswith(" (removed") and found.new in field.choices:
            # Deprecated, then removed: the replacement sglang itself named while it still mapped it.
            fix = value_replacement_fix(known, found, field, keep_prefix)
            return message + f"; sglang named {found.new!r} as its replacement" + value_fixable(found, fix), fix
        hint = suggest(value, field.choices)
        if hint is None:
            return message, None
        fix = string_fix(getattr(known, "written", None), hint.value, hint.safe, keep_prefix)
        return message + did_you_mean(repr(hint.value), fix), fix
    if params.aspect == "type" and not field.choices:
        wrong = (
            (isinstance(value, str) and field.type in ("int", "float", "bool"))
            or (isinstance(value, (int, float)) and not isinstance(value, bool) and field.type == "str")
            or (isinstance(value, float) and field.type == "int")
        )
        if wrong:
            kind = type(value).__name__
            return (f"{opening}{shown_value}{closing}: sglang {version}'s {field.name} takes {_a(field.type)}, "
                    f"not {_a(kind)}"), None
    return None


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"
