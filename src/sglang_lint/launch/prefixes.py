"""Server flags under a framework's prefix: frameworks that take sglang's server arguments on
their own command line and hand each on to the server they start (slime's ``python train.py
--sglang-mem-fraction-static 0.7``: ``--mem-fraction-static 0.7``). The prefixes are data
(``rules/prefixes.toml``: each with its framework's own flags under it, and the server flags it
withholds), and a project adds its own (``prefixes = [...]`` in ``[tool.sglang-lint]``).

In a shell script, a Markdown shell block or a YAML command, every simple command that is not
itself an sglang launch (nor ``echo``, ``grep`` ...) is looked at: a bash array's lines as much
as the trainer's command line, since that is where such flags are written. Each prefixed flag
becomes the server flag it stands for, with the word after it as its value; the framework's
other flags are left out. What a check finds is said of the flag as written (``--sglang-x``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from sglang_lint.launch.commands import (
    YAML_SUFFIXES, Word, command_index, find_launch, moved_word, shell_regions, shell_words, yaml_commands,
)
from sglang_lint.core.places import default_rules_dir
from sglang_lint.core.rulefile import tomllib
from sglang_lint.launch.wrappers import NOT_COMMANDS

PREFIX_TABLE = "prefixes.toml"


@dataclass(frozen=True)
class Prefix:
    text: str  # "--sglang-"
    framework: str  # who reads it ("slime"; "the project's configuration")
    own: frozenset = frozenset()  # the framework's own flags under the prefix: not sglang's
    withheld: frozenset = frozenset()  # server fields the framework sets itself and does not take under it

    def server_flag(self, flag: str) -> str:
        """``--sglang-x`` -> ``--x``."""
        return "--" + flag[len(self.text):]

    def written(self, flag: str) -> str:
        """``--x`` -> ``--sglang-x``."""
        return self.text + flag[2:]


@dataclass(frozen=True)
class PrefixedCommand:
    prefix: Prefix
    words: list  # the server's words: each prefixed flag renamed (its place kept), and its value


@lru_cache(maxsize=4)
def shipped_prefixes(rules_dir: str | None = None) -> tuple[Prefix, ...]:
    """The prefixes of rules/prefixes.toml."""
    path = Path(rules_dir or default_rules_dir()) / PREFIX_TABLE
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from exc
    found = []
    for index, entry in enumerate(table.get("prefix", [])):
        text = entry.get("prefix")
        if not isinstance(text, str) or not text.startswith("--") or len(text) < 3:
            raise ValueError(f"{path}: prefix[{index}].prefix: must be a flag prefix like \"--sglang-\", got {text!r}")
        found.append(Prefix(text, str(entry.get("framework", "")), frozenset(entry.get("own", ())),
                            frozenset(entry.get("withheld", ()))))
    return tuple(found)


def all_prefixes(configured: tuple[str, ...]) -> tuple[Prefix, ...]:
    """The shipped prefixes and the project's own (a configured one the table has is its entry)."""
    shipped = shipped_prefixes()
    known = {p.text for p in shipped}
    return shipped + tuple(Prefix(text, "the project's configuration") for text in configured if text not in known)


def mentions_prefix(text: str, prefixes: tuple[Prefix, ...]) -> bool:
    return any(p.text in text for p in prefixes)


def prefixed_commands(path: str, text: str, prefixes: tuple[Prefix, ...]) -> list[PrefixedCommand]:
    """Every simple command of the file that is no sglang launch and holds prefixed flags."""
    if not prefixes or not mentions_prefix(text, prefixes):
        return []
    if path.lower().endswith(YAML_SUFFIXES):
        commands = yaml_commands(text)
    else:
        commands = [[moved_word(w, region.start, text) for w in words]
                    for region in shell_regions(path, text) for words in shell_words(region.text)]
    found = []
    for words in commands:
        if find_launch(words) is not None:
            continue
        head = command_index(words)
        if head is not None and not words[head].opaque and words[head].text.rsplit("/", 1)[-1] in NOT_COMMANDS:
            continue
        for prefix in prefixes:
            server = _server_words(words, prefix)
            if server:
                found.append(PrefixedCommand(prefix, server))
    return found


def _server_words(words: list[Word], prefix: Prefix) -> list[Word]:
    """The prefixed flags of a command as the server's (``--sglang-x=1`` -> ``--x=1``, its
    place kept), each with the word after it when that is no flag."""
    out = []
    for index, word in enumerate(words):
        name = word.text.partition("=")[0]
        if word.opaque or not name.startswith(prefix.text) or len(name) == len(prefix.text) or name in prefix.own:
            continue
        renamed = replace(word, text=prefix.server_flag(word.text), exact=False)
        out.append(renamed)
        following = words[index + 1] if index + 1 < len(words) else None
        if "=" not in word.text and following is not None and not following.text.startswith("-"):
            out.append(following)
    return out
