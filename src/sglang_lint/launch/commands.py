"""sglang server launch commands in text that is not Python: the launches among the commands of a
shell script, the shell blocks of Markdown and the command lists of YAML, each word with its exact
place in the original text. The words come from the shell splitter (launch/shell_split.py) and
the YAML reader (launch/yaml_commands.py); here the launcher is found after wrappers, options and
assignments, and a file's shell regions are chosen (a Markdown block by its language or prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from sglang_lint.launch.shell_split import Word, moved_word, nested_commands, split
from sglang_lint.launch.wrappers import NOT_COMMANDS, WRAPPERS
from sglang_lint.launch.yaml_commands import yaml_commands


@dataclass(frozen=True)
class LaunchCommand:
    launcher: Word  # "sglang.launch_server" of ``-m sglang.launch_server``, "serve" of ``sglang serve``
    args: list[Word]  # the words after the launcher up to the end of the simple command
    env: dict = field(default_factory=dict)  # variables certainly set for it (shell_env fills it; here {})


@dataclass(frozen=True)
class Region:
    start: int  # offset in the file where ``text`` begins
    text: str  # same length as the file's slice: offset k in it is offset start + k in the file
    comment: str  # the comment prefix of this kind of file ("#")


MODULE_FLAG = "-m"
LAUNCHERS = {  # the launcher word: the module of `<python, python3.11, uv run python, torchrun, $PY> -m <module>`,
    "modules": frozenset({"sglang.launch_server"}),  # or the subcommand of the command word (after WRAPPERS)
    "commands": {"sglang": ("serve", "generate")},  # sglang serve, /path/to/bin/sglang generate
}
# python -m <this>: the server launcher (LAUNCHERS) or another module of sglang (scripts.toml judges it)
SCRIPT_MODULE = re.compile(r"sglang(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
MODULE_LAUNCH = re.compile(r"(?<![\w-])-m\W{1,8}sglang\.\w")  # in a text: python -m sglang.<module>
LAUNCHER_WORDS = re.compile(r"sglang\.launch_server|\bsglang\W{1,8}(?:serve|generate)\b|" + MODULE_LAUNCH.pattern)


SYS_EXECUTABLE = "sys.executable"  # the word a Python argv list writes for the running interpreter
_PYTHON = re.compile(r"(?:\S*/)?python[0-9.]*")


def launch_head(words: Sequence[Optional[str]]) -> Optional[str]:
    """The program an argv list starts, where its first words are sglang's own launcher:
    "" for ``<python> -m sglang.launch_server`` (``python3``, ``/usr/bin/python3.11`` or
    :data:`SYS_EXECUTABLE`), the subcommand for ``sglang serve`` or ``sglang generate``; None
    for any other list (``words``: the texts of its first elements, None where not known)."""
    first = words[0] if words else None
    if first is None:
        return None
    if len(words) >= 3 and (first == SYS_EXECUTABLE or _PYTHON.fullmatch(first)) and words[1] == MODULE_FLAG \
            and words[2] in LAUNCHERS["modules"]:
        return ""
    if len(words) >= 2 and words[1] in LAUNCHERS["commands"].get(first.rsplit("/", 1)[-1], ()):
        return words[1]
    return None


# the launcher

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


def command_index(words: Sequence[Word]) -> Optional[int]:
    """The index of the command word: after environment assignments and the WRAPPERS with their
    options; None when the words run out first."""
    i, n = 0, len(words)
    while i < n:
        if _ASSIGNMENT.match(words[i].text):
            i += 1
            continue
        values, subcommands, positionals = WRAPPERS.get(words[i].text.rsplit("/", 1)[-1], (None, (), 0))
        if values is None or words[i].opaque:
            return i
        head, i = i, _skip_options(words, i + 1, values)
        if subcommands:
            if i >= n or words[i].opaque or words[i].text not in subcommands:
                return head  # not a wrapper's use (`uv pip install`): the wrapper is the command
            i = _skip_options(words, i + 1, values)
        i += positionals
    return None


def _skip_options(words: Sequence[Word], i: int, values: frozenset) -> int:
    while i < len(words) and not words[i].opaque and len(words[i].text) > 1 and words[i].text[0] == "-":
        if words[i].text == "--":
            return i + 1
        i += 2 if words[i].text in values else 1
    return i


def find_launch(words: Sequence[Word]) -> Optional[LaunchCommand]:
    """The launch of an sglang server in one simple command, or None. ``sglang serve`` (``sglang
    generate``): the command word (after assignments and wrappers) is ``sglang`` and the next word
    ``serve`` (``generate``). ``-m sglang.launch_server`` (or any module of sglang): the first
    ``-m`` followed by one, after whatever runs it, unless the command word is one of NOT_COMMANDS.
    Opaque words never match."""
    words = list(words)
    k = command_index(words)
    name = words[k].text.rsplit("/", 1)[-1] if k is not None and not words[k].opaque else None
    if name in NOT_COMMANDS:
        return None
    subcommands = LAUNCHERS["commands"].get(name, ())
    if subcommands and k + 1 < len(words) and not words[k + 1].opaque and words[k + 1].text in subcommands:
        return LaunchCommand(words[k + 1], words[k + 2:])
    for j in range(len(words) - 1):
        if words[j].text == MODULE_FLAG and SCRIPT_MODULE.fullmatch(words[j + 1].text) and not (
                words[j].opaque or words[j + 1].opaque):
            return LaunchCommand(words[j + 1], words[j + 2:])
    return None


def launch_commands_in_words(commands: Iterable[Sequence[Word]]) -> list[LaunchCommand]:
    """find_launch over commands given as word lists (from yaml_commands, shell_words or Python)."""
    return [found for words in commands if (found := find_launch(words)) is not None]


def launch_commands(text: str, hole: Optional[str] = None) -> list[LaunchCommand]:
    """Every simple command in shell ``text`` that starts an sglang server, with the words after the
    launcher; the commands of a ``bash -c SCRIPT`` word are looked at too."""
    cmds = nested_commands(split(text, hole), text, hole)
    return launch_commands_in_words([w for w, _ in cmd] for cmd in cmds)


# files: shell scripts, Markdown, YAML

SHEBANG = re.compile(r"\ufeff?#![ \t]*(?:\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:sh|bash|zsh|dash)(?=[ \t\r\n]|$)")
SHELL_SUFFIXES, MARKDOWN_SUFFIXES, YAML_SUFFIXES = (".sh", ".bash", ".zsh"), (".md", ".markdown"), (".yaml", ".yml")
# A fenced block's language (the info string's first word) -> how its text is read.
MARKDOWN_LANGUAGES = {"bash": "shell", "sh": "shell", "shell": "shell", "zsh": "shell",
                      "console": "console", "shell-session": "console", "shellsession": "console"}
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n]*)\n?", re.M)
_LANGUAGE = re.compile(r"[{.]*([\w+-]*)")
_PROMPT = re.compile(r"[ \t]*(?:\([^()\n]*\)[ \t]*)?[\w.@:~/-]*\$(?:[ \t]|\r?$)")
_PS2 = re.compile(r"[ \t]*>[ \t]")


def shell_regions(path: str, text: str) -> list[Region]:
    """The shell text of a file: a whole shell script (by suffix or shebang), or the shell blocks of Markdown (a
    fence at any indentation; a ``console`` block keeps its ``$ `` command lines with the prompt blanked, and their
    continuation lines; its other lines are blanked: spaces, newlines kept; a fence with no language: _unlabelled).
    Other files: none (YAML: see yaml_commands)."""
    lower = path.lower()
    if lower.endswith(SHELL_SUFFIXES) or SHEBANG.match(text):
        return [Region(0, text, "#")]
    regions, pos = [], 0
    while lower.endswith(MARKDOWN_SUFFIXES) and (m := _FENCE.search(text, pos)):
        fence, info, begin = m.group(1), m.group(2).strip(), m.end()
        if fence[0] == "`" and "`" in info:
            pos = begin
            continue
        close = re.compile(r"^[ \t]*%s{%d,}[ \t]*\r?$" % (fence[0], len(fence)), re.M).search(text, begin)
        end, pos = (close.start(), close.end()) if close else (len(text), len(text))
        block = text[begin:end]
        kind = MARKDOWN_LANGUAGES.get(_LANGUAGE.match(info).group(1).lower()) if info else _unlabelled(block)
        if kind and block.strip():
            regions.append(Region(begin, _console(block) if kind == "console" else block, "#"))
    return regions


def _unlabelled(block: str) -> Optional[str]:
    """A fence with no language (as often output, JSON or Python) is shell only where its first command launches."""
    kind = "console" if _PROMPT.match(block.lstrip()) else "shell"
    first = next(iter(split(_console(block) if kind == "console" else block)), None)
    return kind if first and find_launch([word for word, _ in first]) else None


def _console(block: str) -> str:
    out, going_on = [], False
    for line in block.split("\n"):
        prompt = (_PS2 if going_on else _PROMPT).match(line)
        keep = " " * prompt.end() + line[prompt.end():] if prompt else line if going_on else ""
        out.append(keep.ljust(len(line)))
        going_on = bool(going_on or prompt) and line.rstrip("\r").endswith("\\")
    return "\n".join(out)


def launch_commands_in_file(path: str, text: str, hole: Optional[str] = None) -> list[LaunchCommand]:
    """The launch commands of a shell script, a Markdown or a YAML file, with offsets in the file."""
    if path.lower().endswith(YAML_SUFFIXES):
        return launch_commands_in_words(yaml_commands(text))
    return [LaunchCommand(moved_word(lc.launcher, r.start, text), [moved_word(w, r.start, text) for w in lc.args])
            for r in shell_regions(path, text) for lc in launch_commands(r.text, hole)]
