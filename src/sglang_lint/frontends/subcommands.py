"""The subcommands of ``sglang-lint`` and how a command line names one: read alike by the quick
entry point (frontends/front.py) and the full command (frontends/cli.py), so the two cannot disagree on whether a
run lints."""

from __future__ import annotations

import os

SUBCOMMANDS = {
    "check": "lint the paths (what a bare `sglang-lint PATH ...` does)",
    "rules": "list the rules, with their fix safety",
    "explain": "one rule's documentation: `sglang-lint explain SGL009`",
    "server": "the language server, over stdio (pip install 'sglang-lint[server]')",
    "catalog": "derive, verify and document the rule catalog from sglang's source (for maintainers)",
}


def subcommand(argv: list[str]) -> tuple[str | None, list[str], str | None]:
    """(subcommand, its arguments, a note for stderr); the subcommand is None for a lint run
    and ``check`` for an explicit one. A first word naming a subcommand is one unless a file or
    folder of that name is here: then it is linted (a project's ``rules/`` or ``server/``;
    pre-commit passing a script named ``server``), with a note, and the option spelling
    (``--rules``, ``--check``) runs the subcommand whatever is here."""
    first = argv[0] if argv else ""
    name = first[2:] if first.startswith("--") and first[2:] in SUBCOMMANDS else first
    if name not in SUBCOMMANDS:
        return None, argv, None
    if name == first and os.path.lexists(first):
        if name == "check":
            return None, argv, None
        return None, argv, (f"sglang-lint: linting the path {first!r} found here; `sglang-lint --{name}` runs the "
                            f"{name} subcommand\n")
    return name, argv[1:], None
