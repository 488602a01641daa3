"""The launches at a site and their flags: each way a target's argv list (or shell command
string) may be built, and the flags of those launches, each once, as the parser each reaches
reads them (flags.py)."""

from __future__ import annotations

import dataclasses

from sglang_lint.checks.base import argument_of
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.checks.server_args.flags import (
    Launch, after_launcher, command_uses, flag_uses, python_words, script_uses, shell_launches, shell_true,
    split_string,
)
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.scripts import script_skipped


def site_uses(site, params: ServerArgsCheck, target) -> list[FlagUse]:
    """The flags of the target's argv list, in each way it may be built, or of its shell
    command string; none when a subprocess command does not start an sglang server."""
    return unique_uses(params, site_launches(site, params, target))


def site_launches(site, params: ServerArgsCheck, target) -> list:
    """Each way the target's argv (or shell command) may be built; None: no sglang server."""
    arg = argument_of(site.node, target.argument, target.position, site)
    if arg is None:
        return []
    takes = target.handed_as
    if takes == "shell" or (takes == "command" and shell_true(site)):
        return shell_launches(site, arg.value, params.marker)
    split = split_string(site, arg.value) if takes == "command" else None
    if split is not None:
        return shell_launches(site, split, params.marker)
    return [launch_of(words, params, takes, target) for words in python_words(site, arg.value)]


def launch_of(words, params: ServerArgsCheck, takes: str, target) -> Launch | None:  # (flags: to target.program)
    return after_launcher(words, params.marker) if takes == "command" else Launch.after(target.program, words)


def unique_uses(params: ServerArgsCheck, launches) -> list[FlagUse]:
    """The flags of each launch (each way a command may be built), each once; after ``sglang
    serve`` or ``sglang generate``, as the parsers the command may hand them to judge them
    (flags.command_uses: a value is judged only where the LLM server's verdict is the
    line's)."""
    uses, seen = [], set()
    for launch in launches:
        if launch is None or script_skipped(params.aspect, params.table, launch):
            continue
        found = command_uses(launch, params.table) if launch.command or launch.backend \
            else script_uses(launch, params.table) if launch.module else flag_uses(launch.words, params.table)
        for use in found:
            key = (id(use.element), id(use.value_node))
            if use.field is not None and use.field.name in launch.withheld:
                continue  # a framework that sets it itself never hands it on
            if key not in seen:
                seen.add(key)
                uses.append(dataclasses.replace(use, own_build=True) if launch.own_build else use)
    return uses
