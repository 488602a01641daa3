"""The modules of sglang a user runs with ``python -m`` (``rules/derived/scripts.toml``): each
module whose source has a main block (``if __name__ == "__main__":``, or a package's
``__main__.py``), with the releases that have it, and what its main block parses: the option
strings of its own parser, whether it hands that parser to ``ServerArgs.add_cli_args`` (then it
takes every server flag too: ``sglang.bench_one_batch``), whether those are all of them, and the
module whose main it only runs (a stub left at an old path: ``from sglang.benchmark.one_batch
import cli_main``). Read with :mod:`..server_args.parsers`, never imported (derive/commands/scripts_table.py
merges the releases into the table).

``sglang.launch_server`` is left out: its flags are the server-argument table's. The server-args
check reads the table (checks/server_args/table.py ``load_scripts``), named by launchers.toml's
``[scripts] table``."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from sglang_lint.derive.server_args.parsers import ModuleSet, ParserReader
from sglang_lint.derive.source.tree import read_module

SERVER_ARGS = "server_args"  # the tag of a parser ServerArgs.add_cli_args filled
FILLERS = {("sglang.srt.server_args", "ServerArgs.add_cli_args"): SERVER_ARGS}
LEFT_OUT = frozenset({"sglang.launch_server"})  # its flags: server_args.toml
MAIN_MARK = b"__main__"


@dataclass(frozen=True)
class Script:
    """One runnable module of one release and what its main block parses."""

    module: str
    parses: bool = False  # its main block parses the command line with a parser it builds
    flags: tuple = ()  # that parser's own option strings (ServerArgs' are not among them)
    server_args: bool = False  # ServerArgs.add_cli_args filled it: every server flag is taken too
    judged: bool = False  # one parser, parse_args (a word it does not know is its error), every option string read
    exact: bool = False  # allow_abbrev=False: no prefix of a flag is taken
    aliases: tuple = ()  # (flag, the first long flag of its argument) where one argument has two long flags
    runs: str = ""  # the module whose main function its main block only calls (a stub at an old path)


def tree_scripts(root: Path) -> tuple[Script, ...]:
    """Every runnable module of the tree under ``root`` (see the module docstring)."""
    modules = ModuleSet(root=root, packages=("sglang.",))
    found = []
    for path in sorted((root / "sglang").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] in ("__init__", "__main__"):
            parts = parts[:-1]
        name = ".".join(parts)
        if not all(p.isidentifier() for p in parts) or name in LEFT_OUT or MAIN_MARK not in path.read_bytes():
            continue
        module = _module(modules, name, path)
        body = _main_body(module) if module is not None else None
        if body is not None:
            found.append(_script(modules, module, body))
    return tuple(found)


def _module(modules: ModuleSet, name: str, path: Path):
    if path.name != "__main__.py":
        return modules.get(name)
    return read_module(name, path, path.read_text(encoding="utf-8", errors="replace"))


def _main_body(module) -> list | None:
    """The statements a ``python -m`` run of the module runs as its main."""
    if module.path.name == "__main__.py":
        return module.tree.body
    for node in module.tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test):
            return node.body
    return None


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def _script(modules: ModuleSet, module, body: list) -> Script:
    reader = ParserReader(modules, FILLERS, script=True)
    reading = reader.read_main(module, body)
    runs = _runs(module, body, modules)
    if not reading.parsers:
        return Script(module.name, runs=runs)
    flags = sorted({flag for parser in reading.parsers for flag in parser.flags})
    server = any(SERVER_ARGS in parser.includes for parser in reading.parsers)
    one = reading.parsers[0] if len(reading.parsers) == 1 else None
    judged = one is not None and one.complete and one.known_args is False and not reading.unresolved
    aliases = sorted({(flag, longs[0]) for parser in reading.parsers for strings in parser.arguments
                      for longs in [[s for s in strings if s.startswith("--")]] if len(longs) > 1
                      for flag in longs[1:]})
    return Script(module.name, True, tuple(flags), server, judged, one is not None and not one.abbrev,
                  tuple(aliases), runs)


def _runs(module, body: list, modules: ModuleSet) -> str:
    """The module whose function the main block only calls (``cli_main()`` imported from it)."""
    calls = [s.value for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
    if len(calls) != 1 or len(body) != 1 or not isinstance(calls[0].func, ast.Name):
        return ""
    origin = module.imports.get(calls[0].func.id, "")
    owner = origin.rpartition(".")[0]
    return owner if owner.startswith("sglang.") and owner != module.name and owner in modules else ""


__all__ = ["Script", "tree_scripts"]
