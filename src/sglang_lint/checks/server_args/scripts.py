"""How the server-args check judges ``python -m sglang.<module>`` (scripts.toml, read as
server_table.Scripts): which aspects judge a script's flags, what it says of a flag its parser
does not take or takes only ambiguously, and SGL015 on a module the target releases lack."""

from __future__ import annotations

from sglang_lint.checks.base import rename_hint, string_fix
from sglang_lint.checks.server_args.advice import removed_hint
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.checks.server_args.flags import Launch
from sglang_lint.checks.server_args.table import Table
from sglang_lint.core.model import Finding


def script_skipped(aspect: str, table: Table, launch: Launch) -> bool:
    """Is the launch none of this aspect's business? A script's flags are judged by the aspects of
    its parser's reading (unknown flags; choices, types and deprecated spellings where it takes
    ServerArgs'), not by the server's relations or start-up (its own start-up runs); the module
    aspect judges the module, not its flags, and only a script's."""
    if not launch.module:
        return aspect == "module"
    script = table.scripts.get(launch.module) if table.scripts is not None else None
    takes_server = script is not None and script.server_args
    return aspect in ("relations", "startup", "module") or not (takes_server or aspect == "unknown")


def gone_modules(table: Table, launches):
    """SGL015 on ``python -m sglang.<module>`` where no target release has the module and some
    release the table was derived from had it; naming where it moved, and fixing the word to
    that module where running it there runs what the old path ran."""
    seen = set()
    for launch in launches:
        scripts = table.scripts
        script = scripts.get(launch.module) if launch is not None and launch.module and scripts is not None else None
        if script is None or not script.absent or launch.module_node is None or id(launch.module_node) in seen:
            continue
        seen.add(id(launch.module_node))
        message = f"python -m {launch.module}: sglang {table.version} has no module {launch.module}" \
            f"{table.change(script.span)}"
        fix = None
        if script.moved_to:
            fix = string_fix(launch.module_node, script.moved_to, True) if script.unchanged else None
            message += f"; it moved to {script.moved_to}" + (" (fixable with `sglang-lint --fix`)" if fix else "")
        yield Finding(launch.module_node, message, fix)


def script_ambiguous(use: FlagUse, table: Table) -> Finding:
    """SGL009 on a prefix of two or more of the script's parser's flags: argparse's own words."""
    return Finding(use.element, f"launch flag {use.flag}: sglang {table.version}'s {use.parser}"
                   f"{_takes(table, use.parser)} stops with argparse's \"ambiguous option: {use.flag} could match "
                   f"{', '.join(use.ambiguous)}\"")


def script_unknown(use: FlagUse, table: Table, node) -> Finding:
    """SGL009 on a flag the script's parser does not take; the hint names the replacement sglang
    named for a removed server flag (where the parser takes the server's), else the nearest flag
    of that parser."""
    script = table.scripts.get(use.parser)
    hint, fix = removed_hint(use, table) if script.server_args else ("", None)
    if not hint:
        hint, fix = rename_hint(use.flag, script.table(table).known_flags, node)
    change = table.flag_change(use.flag) if script.server_args else ""
    return Finding(use.element, f"launch flag {use.flag}: sglang {table.version}'s {use.parser}"
                   f"{_takes(table, use.parser)} has no such flag{change}{hint}", fix)


def _takes(table: Table, module: str) -> str:
    """What a script's parser takes, said after its name."""
    return ", whose parser takes the server arguments and its own flags," if table.scripts.get(module).server_args \
        else ""
