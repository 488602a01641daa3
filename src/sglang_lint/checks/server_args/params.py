"""What a server-args rule says, read from its rule file: the aspect it judges (``ASPECTS``: one
rule each, so each can be selected or ignored on its own) and the tables it judges by (the
server arguments, the ``sglang`` command's subcommands and sglang's scripts its targets table
names, other engines' flags, the start-up checks)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sglang_lint.checks.server_args.advice import load_foreign
from sglang_lint.checks.server_args.table import (
    Commands, Scripts, Table, load_commands, load_scripts, load_table, with_launchers,
)
from sglang_lint.core.rulefile import Fields, read_toml

ASPECTS = ("choices", "plugin-choices", "type", "unknown", "relations", "deprecated", "startup", "module")


@dataclass(frozen=True)
class ServerArgsCheck:
    aspect: str
    table: Table
    extra_names: tuple  # keywords the callee takes besides the fields (Engine's server_args=)
    marker: str | None  # an argv list of a subprocess call must name this (sglang.launch_server)
    positive: tuple = ()  # relations aspect: fields that must be > 0
    at_least: tuple = ()  # relations aspect: (a, b) pairs, a >= b
    startup: object = None  # startup aspect: the path of derived/startup.toml (read on first need)
    elsewhere: tuple = ()  # startup aspect: beginnings of sglang's messages another rule reports
    foreign: dict = dataclasses.field(default_factory=dict, compare=False)  # unknown aspect: other engines' flags
    machine: object = None  # startup aspect: the machine the project declares (catalog/platforms.py)

    def for_releases(self, releases) -> "ServerArgsCheck":
        """The check as a project on these releases has it: the table of those releases."""
        return dataclasses.replace(self, table=self.table.for_releases(releases))

    def on_machine(self, machine) -> "ServerArgsCheck":
        """The check as a project that declares this machine has it (the start-up checks that
        need the platform judged there)."""
        return dataclasses.replace(self, machine=machine) if self.aspect == "startup" else self


def parse(fields, targets):
    aspect = fields.str("aspect")
    if aspect not in ASPECTS:
        raise fields.error("aspect", f"must be one of {', '.join(ASPECTS)}, got {aspect!r}")
    table_path = fields.path.parent / fields.str("table")
    if not table_path.is_file():
        raise fields.error("table", f"{table_path} does not exist (run `sglang-lint catalog derive`)")
    table = load_table(table_path)
    commands, scripts = _commands(fields), _scripts(fields)
    if commands is not None or scripts is not None:
        table = with_launchers(table, commands, scripts)
    positive = fields.strings("positive", required=False) or ()
    pairs = []
    for text in fields.strings("at_least", required=False) or ():
        left, sep, right = (part.strip() for part in text.partition(">="))
        if not sep or left not in table.fields or right not in table.fields:
            raise fields.error("at_least", f"{text!r} is not 'field >= field' with two fields of the table")
        pairs.append((left, right))
    for name in positive:
        if name not in table.fields:
            raise fields.error("positive", f"{name!r} is not a field of the table")
    foreign = {}
    if fields.str("foreign", required=False):
        path = fields.path.parent / fields.str("foreign")
        if not path.is_file():
            raise fields.error("foreign", f"{path} does not exist")
        foreign = load_foreign(path)
    startup = None
    if aspect == "startup":
        startup = fields.path.parent / fields.str("startup")
        if not startup.is_file():
            raise fields.error("startup", f"{startup} does not exist (run `sglang-lint catalog derive`)")
    return ServerArgsCheck(
        aspect=aspect,
        table=table,
        extra_names=fields.strings("extra_names", required=False) or (),
        marker=fields.str("marker", required=False),
        positive=tuple(positive),
        at_least=tuple(pairs),
        startup=startup,
        elsewhere=tuple(fields.strings("reported_elsewhere", required=False) or ()) if startup else (),
        foreign=foreign,
    )


def _commands(fields) -> Commands | None:
    """The table of the ``sglang`` command's subcommands (serve.toml) that the check's targets
    table (launchers.toml) names under ``[serve] table``, if it names one."""
    path = _named_table(fields, "serve")
    return load_commands(path) if path is not None else None


def _scripts(fields) -> Scripts | None:
    """The table of the modules run with ``python -m`` (scripts.toml) that the targets table
    names under ``[scripts] table``, if it names one."""
    path = _named_table(fields, "scripts")
    return load_scripts(path) if path is not None else None


def _named_table(fields, key: str):
    name = fields.str("targets_table", required=False)
    if not name:
        return None
    path = fields.path.parent / name
    table = Fields(read_toml(path), path)  # catalog.targets_table has checked it exists
    section = table.sub(key, required=False)
    found = section.str("table", required=False) if section is not None else None
    if not found:
        return None
    named = path.parent / found
    if not named.is_file():
        raise section.error("table", f"{named} does not exist (run `sglang-lint catalog derive`)")
    return named
