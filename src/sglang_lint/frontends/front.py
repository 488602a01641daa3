"""The ``sglang-lint`` entry point: answers the commonest run, Python files that call no catalog
name (an editor on save, pre-commit on a few changed files), from the compiled rule index
alone, before LibCST, the check kinds or the rule files are loaded; everything else goes to the
full command (frontends/cli.py), with the same result.

The quick answer is taken only for plain runs (file paths and nothing else: no option, no
folder, no stdin) whose every file is a Python file that exists, and that the index says no
rule of any release can fire on (catalog/index.py: the same trigger table as the prefilter, so a
file it passes on is one the full command would skip unparsed). Then the full command would
print nothing and exit 0, and so does this.
"""

from __future__ import annotations

import os
import sys

from sglang_lint.frontends.subcommands import subcommand


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    name, rest, note = subcommand(args)
    checking = name in (None, "check") and note is None
    if checking:
        from sglang_lint.frontends.indexes import new_run

        new_run()  # (the index read here serves the full command too)
        if quick_clean(rest):
            return 0
    from sglang_lint.frontends.cli import main as full

    return full(args, new=not checking)


def quick_clean(args: list[str]) -> bool:
    """Is this a plain run over Python files on which no rule can fire?"""
    if not args or any(arg.startswith("-") or not arg.endswith((".py", ".pyi")) for arg in args):
        return False
    if not all(os.path.isfile(arg) for arg in args):
        return False
    try:
        from sglang_lint.core.places import rules_folder
        from sglang_lint.frontends.indexes import rule_index

        dirs = [rules_folder()]
        if _may_have_config(args[0]):  # read (and judged) as the full command reads it
            from pathlib import Path

            from sglang_lint.frontends.config import find_config, load_config

            found = find_config(Path(args[0]))
            if found is not None:
                dirs += load_config(found).extra_rules
        index = rule_index(dirs)
        for arg in args:
            with open(arg, "rb") as handle:
                data = handle.read()
            data.decode("utf-8")  # any other encoding: the full command reads (or reports) it
            if index.mentions(data):
                return False
    except Exception:  # a configuration or rule folder with a problem: the full command says what
        return False
    return True


def _may_have_config(start: str) -> bool:
    """Is there a pyproject.toml above ``start`` that names sglang-lint at all? (Only then is
    the configuration module, and its TOML reader, loaded.)"""
    folder = os.path.realpath(start)
    folder = folder if os.path.isdir(folder) else os.path.dirname(folder)
    while True:
        try:
            with open(os.path.join(folder, "pyproject.toml"), "rb") as stream:
                if b"sglang-lint" in stream.read():
                    return True
        except OSError:
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
