"""What the flag aspects say of each flag of a launch, however it was written: ``unknown`` (a
flag no parser it reaches takes, or an ambiguous prefix of several), ``deprecated`` (a flag
sglang deprecated, with its replacement), ``type`` (a word the flag's converter refuses:
flag_words.py) and the value aspects (values.py) on its words; each said of the flag as the
command writes it (under a framework's prefix too)."""

from __future__ import annotations

import dataclasses

from sglang_lint.analysis.resolve import Known
from sglang_lint.checks.base import rename_hint
from sglang_lint.checks.server_args import flag_words
from sglang_lint.checks.server_args.advice import (
    deprecated_text, foreign_hint, removed_hint, replacement_fix, unexplained_hint,
)
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.scripts import script_ambiguous, script_unknown
from sglang_lint.checks.server_args.table import Table
from sglang_lint.checks.server_args.values import judge_value
from sglang_lint.core.model import Finding


def judge_uses(params: ServerArgsCheck, uses: list[FlagUse]):
    """The findings of this aspect on the flags of a command, however it was written."""
    for use in uses:
        for finding in _judge_use(params, use):
            if use.parser in BOTH and use.llm_verdict and (use.known or use.ambiguous):
                # the LLM server's verdict; a diffusion model fails on the flag too
                finding = dataclasses.replace(finding, message=finding.message + BOTH[use.parser])
            if use.prefix is not None:
                handed = f" ({use.prefix.framework} passes {use.prefix.text}* flags on to sglang)"
                finding = dataclasses.replace(finding, message=finding.message + handed)
            yield finding


# the LLM server's verdict where the diffusion server was asked too (`sglang serve`, a framework's flags)
BOTH = {"serve": "; the diffusion server of `sglang serve` has no such flag",
        "framework": "; sglang's diffusion server has no such flag either"}


def _judge_use(params: ServerArgsCheck, use: FlagUse):
    if params.aspect == "deprecated" and use.llm_verdict:
        found = params.table.deprecates(use.flag)
        if found is not None:
            fix = replacement_fix(use.element, use.alone, found, params.table, use.written)
            text = deprecated_text(found, params.table, fix, use.value is not None, use.written)
            yield Finding(use.element, f"launch flag {use.shown}: {text}", fix, found.severity(use.value is not None))
            return
    if params.aspect == "deprecated" and use.field is None:
        return
    if use.ambiguous:
        if params.aspect == "unknown" and "." in use.parser:
            yield script_ambiguous(use, params.table)
        elif params.aspect == "unknown":
            shown = ", ".join(map(use.written, use.ambiguous[:6])) + (", ..." if len(use.ambiguous) > 6 else "")
            hint, fix = foreign_hint(params.foreign, use.flag, params.table, use.element if use.alone else None,
                                     written=use.written)
            yield Finding(
                use.element,
                f"launch flag {use.shown}: ambiguous in sglang {params.table.version}'s launcher, which "
                f"takes only a unique prefix of a flag; could be {shown}{hint}", fix,
            )
        return
    if use.field is None:
        if params.aspect == "unknown" and not use.known and not use.flag.startswith("--no-"):
            yield from _unknown_flag(use, params.table, params.foreign)
        return
    if params.aspect == "type":
        yield from flag_words.findings(use, params.table.version)
        return
    if use.field.nargs and use.field.choices and use.items:
        words = zip(use.items, use.item_nodes)  # a list flag: each word, as argparse judges each item
    elif use.value is not None and use.field.type == "str":
        words = [(use.value, use.value_node)]
    else:
        return
    for text, node in words:
        # ``--flag=value`` in one literal: the fix keeps the ``--flag=`` part.
        judged = judge_value(params, use.field, Known(text, node), f"launch flag {use.shown} ",
                             keep_prefix=(use.shown + "=") if node is use.element else "")
        if judged is not None:
            yield Finding(node, *judged)


def _unknown_flag(use: FlagUse, table: Table, foreign: dict):
    """SGL009 on a launch flag no parser it reaches takes. The hint: for a flag sglang removed,
    what it said to do instead while it deprecated it (never a guess at a like-spelled flag);
    for another engine's flag, sglang's for it; else the nearest flag of those parsers (only a
    literal that is the flag alone is rewritten, not ``--flag=value``). Under a framework's own
    build of sglang, only where there is such a hint."""
    node = use.element if use.alone else None
    commands = table.commands
    if "." in use.parser:  # a script's parser (flags.script_uses)
        yield script_unknown(use, table, node)
        return
    if use.parser in ("diffusion", "generate"):
        parser = commands.diffusion if use.parser == "diffusion" else commands.generate
        hint, fix = rename_hint(use.flag, parser.flags, node, use.written)
        where = (f"sglang {table.version}'s diffusion server has" if use.parser == "diffusion"
                 else f"`sglang generate` of sglang {table.version} has")
        if hint or not use.own_build:
            yield Finding(use.element, f"launch flag {use.shown}: {where} no such flag{hint}", fix)
        return
    change = table.flag_change(use.flag)
    hint, fix = removed_hint(use, table)
    if not hint:  # (not removed, or sglang said nothing: no fix of it either)
        hint, fix = foreign_hint(foreign, use.flag, table, node, written=use.written)
    diffusion = use.parser in BOTH  # both servers were asked
    if not hint:
        options = table.known_flags | (commands.diffusion.flags if diffusion else frozenset())
        hint, fix = unexplained_hint(use.flag, change, table, options, node, written=use.written)
    if hint or not use.own_build:
        yield Finding(use.element, f"launch flag {use.shown}: sglang {table.version} has no such server argument"
                      f"{change}{' and its diffusion server no such flag' if diffusion else ''}{hint}", fix)
