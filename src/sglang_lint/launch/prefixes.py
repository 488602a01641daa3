"""Server flags under a framework's prefix: frameworks that take sglang's server arguments on
their own command line and hand each on to the server they start (slime's ``python train.py
--sglang-mem-fraction-static 0.7``: ``--mem-fraction-static 0.7``). The prefixes are data
(``rules/prefixes.toml``: each with the framework's own flags under it, the server flags it
withholds, the server it hands them to, and what names the framework), and a project adds its
own (``prefixes = [...]`` in ``[tool.sglang-lint]``).

A prefix is read only where it is a framework's: in a project that is the framework or requires
it (the names catalog/frameworks.py reads), in a file one of whose commands runs the framework's
entry point, or where the configuration names the prefix. Frameworks of one prefix that apply
together are one :class:`Prefix` (their own flags all left out; the diffusion server's flags and
the LLM server's both taken where their servers differ).

In a shell script, a Markdown shell block or a YAML command, every simple command that is not
itself an sglang launch (nor ``echo``, ``grep`` ..., nor sglang-lint itself, nor a pre-commit
file's hooks) is looked at: a bash array's lines as much as the trainer's command line, since
that is where such flags are written. Each prefixed flag is kept as written, with the word after
it as its value; the framework's other flags are left out. The server reads each as the server
flag it stands for (:meth:`Prefix.server_word`); what a check finds is said of the flag as
written (``--sglang-x``), and a fix rewrites it under the prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sglang_lint.launch.commands import YAML_SUFFIXES, command_index, find_launch, shell_regions
from sglang_lint.launch.shell_split import Word, moved_word, shell_words
from sglang_lint.launch.yaml_commands import yaml_commands
from sglang_lint.core.places import default_rules_dir
from sglang_lint.core.rulefile import tomllib
from sglang_lint.launch.wrappers import NOT_COMMANDS

PREFIX_TABLE = "prefixes.toml"


SERVERS = ("llm", "diffusion")


@dataclass(frozen=True)
class Prefix:
    text: str  # "--sglang-"
    framework: str  # who reads it ("slime"; "the project's configuration")
    own: frozenset = frozenset()  # the framework's own flags under the prefix: not sglang's
    withheld: frozenset = frozenset()  # server fields the framework sets itself and does not take under it
    servers: frozenset = frozenset({"llm"})  # the sglang servers its flags may reach (SERVERS)
    packages: frozenset = frozenset()  # the names of the framework's project (a requirement, a package folder)
    entry_points: tuple = ()  # its scripts as another project runs them ("slime/train.py")
    # where the framework runs sglang built from its own branch (miles: its image checks out
    # sglang-miles), the flags that build adds are unknown to every release: a flag no release
    # takes is reported under the prefix only as a misspelling of one that does
    fork: str = ""

    def server_flag(self, flag: str) -> str:
        """``--sglang-x`` -> ``--x``."""
        return "--" + flag[len(self.text):]

    def written(self, flag: str) -> str:
        """``--x`` -> ``--sglang-x``."""
        return self.text + flag[2:]

    def server_word(self, text: str) -> str:
        """A word of :attr:`PrefixedCommand.words` as the server reads it: a flag under the prefix
        the server flag it stands for (``--sglang-x=1`` -> ``--x=1``), a value itself."""
        return self.server_flag(text) if text.startswith(self.text) else text

    @property
    def backend(self) -> str:
        """What a launch of its flags says of the server (checks/server_args/flags.py ``Launch.backend``):
        "" the LLM server, "diffusion" the diffusion server, "auto" either."""
        return "" if self.servers == {"llm"} else "diffusion" if self.servers == {"diffusion"} else "auto"


@dataclass(frozen=True)
class PrefixedCommand:
    prefix: Prefix
    words: list  # the words handed on, as written: each prefixed flag and its value


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
        server = entry.get("server", "llm")
        if server not in SERVERS:
            raise ValueError(f"{path}: prefix[{index}].server: must be one of {', '.join(SERVERS)}, got {server!r}")
        found.append(Prefix(text, str(entry.get("framework", "")), frozenset(entry.get("own", ())),
                            frozenset(entry.get("withheld", ())), frozenset({server}),
                            frozenset(entry.get("packages", ())), tuple(entry.get("entry_points", ())),
                            str(entry.get("fork", ""))))
    return tuple(found)


def all_prefixes(configured: tuple[str, ...]) -> tuple[Prefix, ...]:
    """Every prefix a file may be read for: the shipped ones and the project's own."""
    shipped = shipped_prefixes()
    known = {p.text for p in shipped}
    return shipped + tuple(Prefix(text, "the project's configuration") for text in configured if text not in known)


def file_prefixes(commands: list[list[Word]], configured: tuple[str, ...], project: frozenset) -> tuple[Prefix, ...]:
    """The prefixes read in a file whose commands are ``commands``: each shipped one whose
    framework the project is (``project``: the framework packages it names, catalog/frameworks.py),
    or whose entry point a command runs, or whose prefix the configuration names; and the
    configuration's others. The frameworks of one prefix make one :class:`Prefix`."""
    configured = tuple(configured)
    chosen: dict[str, list[Prefix]] = {}
    for prefix in shipped_prefixes():
        if prefix.text in configured or prefix.packages & project or _runs(commands, prefix.entry_points):
            chosen.setdefault(prefix.text, []).append(prefix)
    merged = tuple(_merged(group) for group in chosen.values())
    return merged + tuple(Prefix(text, "the project's configuration") for text in configured if text not in chosen)


def _merged(group: list[Prefix]) -> Prefix:
    if len(group) == 1:
        return group[0]
    names = list(dict.fromkeys(p.framework for p in group))
    return Prefix(group[0].text, " or ".join(names), frozenset().union(*(p.own for p in group)),
                  frozenset().union(*(p.withheld for p in group)), frozenset().union(*(p.servers for p in group)),
                  fork="; ".join(p.fork for p in group if p.fork))


def _runs(commands: list[list[Word]], entry_points: tuple) -> bool:
    """Whether a command runs one of these scripts from a checkout (``python3 /root/slime/train.py``)."""
    return bool(entry_points) and any(
        not word.opaque and (word.text in entry_points or word.text.endswith(tuple("/" + e for e in entry_points)))
        for words in commands for word in words)


def mentions_prefix(text: str, prefixes: tuple[Prefix, ...]) -> bool:
    return any(p.text in text for p in prefixes)


PRE_COMMIT_FILES = frozenset({".pre-commit-config.yaml", ".pre-commit-hooks.yaml"})  # their args are hooks'
LINTER, LINTER_MODULE = "sglang-lint", "sglang_lint"


def file_commands(path: str, text: str) -> list[list[Word]]:
    """The simple commands of a shell script, Markdown or YAML file, with offsets in the file
    (none in a pre-commit file: the arguments there are its hooks', never a framework's)."""
    if path.lower().endswith(YAML_SUFFIXES):
        return [] if path.replace("\\", "/").rsplit("/", 1)[-1] in PRE_COMMIT_FILES else yaml_commands(text)
    return [[moved_word(w, region.start, text) for w in words]
            for region in shell_regions(path, text) for words in shell_words(region.text)]


def prefixed_commands(path: str, text: str, prefixes: tuple[Prefix, ...],
                      commands: list[list[Word]] | None = None) -> list[PrefixedCommand]:
    """Every simple command of the file (``commands``, if read already) that is no sglang launch,
    nor sglang-lint's own, and holds prefixed flags."""
    if not prefixes or not mentions_prefix(text, prefixes):
        return []
    found = []
    for words in file_commands(path, text) if commands is None else commands:
        if find_launch(words) is not None:
            continue
        head = command_index(words)
        if head is not None and not words[head].opaque and (
                words[head].text.rsplit("/", 1)[-1] in NOT_COMMANDS | {LINTER} or _runs_linter_module(words[head:])):
            continue
        for prefix in prefixes:
            server = _server_words(words, prefix)
            if server:
                found.append(PrefixedCommand(prefix, server))
    return found


def _runs_linter_module(words: list[Word]) -> bool:
    """``python -m sglang_lint ...``."""
    return any(a.text == "-m" and b.text.split(".", 1)[0] == LINTER_MODULE and not b.opaque
               for a, b in zip(words, words[1:]))


def _server_words(words: list[Word], prefix: Prefix) -> list[Word]:
    """The prefixed flags of a command, each with the word after it when that is no flag."""
    out = []
    for index, word in enumerate(words):
        name = word.text.partition("=")[0]
        if word.opaque or not name.startswith(prefix.text) or len(name) == len(prefix.text) or name in prefix.own:
            continue
        out.append(word)
        following = words[index + 1] if index + 1 < len(words) else None
        if "=" not in word.text and following is not None and not following.text.startswith("-"):
            out.append(following)
    return out
