"""One flag of a launch command as the flag checks read it: the record checks/server_args/flags.py makes
and the checks and their advice (checks/server_args/advice.py, checks/server_args/relations.py) judge."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang_lint.checks.server_args.table import Field

if TYPE_CHECKING:
    from sglang_lint.launch.prefixes import Prefix


@dataclass(frozen=True)
class FlagUse:
    """One ``--flag`` of a command, and the value written with it (if literal)."""

    element: object  # the word's node
    flag: str
    field: Field | None
    known: bool  # the flag names something (a field, a hand-registered flag, a unique prefix)
    value: str | None
    value_node: object
    ambiguous: tuple = ()  # a prefix of flags of two or more arguments: argparse's own error
    alone: bool = False  # the word is the flag itself, exactly (a fix may rewrite it)
    certain: bool = True  # the flag (and its value) are written on every path
    items: tuple | None = None  # a list flag's (nargs "*"/"+") words, where each is known
    item_nodes: tuple = ()  # the node of each of those words
    # who judged it, after an `sglang` subcommand (command_uses): "serve" (the LLM server and the
    # diffusion server), "diffusion", "generate"; a module's name: the parser of that script
    # (script_uses); "" the LLM server's parser (ServerArgs) alone
    parser: str = ""
    # the LLM server's verdict on the flag (and its value) is the line's: it reaches that server
    # alone, or (serve) the diffusion server lacks it, failing the line there
    llm_verdict: bool = True
    own_build: bool = False  # the command's Launch.own_build
    # the prefix a framework takes the flag under (flags.Launch.handed_on): ``flag`` is the server
    # flag it stands for; what a finding says of it, and a fix writes, is as written under the prefix
    prefix: Prefix | None = None

    def written(self, flag: str) -> str:
        """A server flag as this command writes it (``--x``, or ``--sglang-x`` under a prefix)."""
        return self.prefix.written(flag) if self.prefix is not None else flag

    @property
    def shown(self) -> str:
        """The flag as written."""
        return self.written(self.flag)


_FLAG_IN_WORDS = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def in_words(text: str, written) -> str:
    """Words that name server flags (sglang's own, a table's note), each flag as ``written`` spells
    it (FlagUse.written); a flag in backquotes is quoted code, kept as it stands."""
    parts = text.split("`")
    return "`".join(part if index % 2 else _FLAG_IN_WORDS.sub(lambda found: written(found.group()), part)
                    for index, part in enumerate(parts))


def as_is(flag: str) -> str:
    """A server flag as sglang's own launcher takes it (``written`` where no prefix stands)."""
    return flag
