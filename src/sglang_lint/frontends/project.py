"""The command's project pass: launch helpers defined in one file and called from another.

The engine judges one file at a time; a helper of the same file that puts its parameter into a
launch is followed there (engine/reach.py). A project's helpers usually live in a module of their own
(``utils.launch_server(model, extra_flags)``, called from every test). Before linting, the
command finds them with the deriver's analysis of sglang's own entry points (derive/commands/launchers.py)
run over the project's files that may launch a server (those that name the launcher or one of
sglang's entry points, then those that call a helper found so far), and judges their calls as it
judges ``popen_launch_server``. Only ``ast`` is used here; a file that does not parse is skipped.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Iterable

from sglang_lint.catalog.rules import Target
from sglang_lint.derive.commands.launchers import EntryPoint, launch_entry_points
from sglang_lint.derive.source.tree import read_module
from sglang_lint.launch.commands import LAUNCHER_WORDS
from sglang_lint.text.pynames import module_name_for, name_matches

MAX_ROUNDS = 4  # helpers of helpers of helpers...
MAX_FILE_BYTES = 2_000_000
_THEN_CALLED = rb"[\s\\]*\("  # a call of the name, however written: ``f(``, ``f (``, ``f \`` then ``(``


def _calls_of(words: list[bytes]) -> re.Pattern | None:
    """A call of one of these names (escaped), however written; whole names are told by
    pynames.name_matches (a leading ``\\b`` sees no edge before ``é``, and is slow)."""
    return re.compile(b"(?:" + b"|".join(words) + b")" + _THEN_CALLED) if words else None


def module_name(path: str) -> str | None:
    """The module name imports give a file: its folders up to the first without ``__init__.py``."""
    file = Path(path).resolve()
    if file.suffix != ".py":
        return None
    parts = [] if file.stem == "__init__" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def project_targets(paths: Iterable[str],
                    shipped: Iterable[Target] | Callable[[], Iterable[Target]]) -> tuple[Target, ...]:
    """The functions of these files that hand a parameter on to an sglang launch (a list of
    flags, a whole command), as targets; ``shipped``: sglang's own entry points (or a function
    giving them, called only when a file outside sglang is there to read)."""
    texts = {}
    for path in paths:
        # sglang's own files: their entry points are the shipped table already (launchers.toml)
        if path.endswith(".py") and module_name_for(path)[0] is None:
            try:
                if os.path.getsize(path) <= MAX_FILE_BYTES:
                    with open(path, "rb") as handle:
                        texts[path] = handle.read()
            except OSError:
                continue
    if not texts:
        return ()
    seeds = [EntryPoint("function", t.name, t.argument, t.position, t.takes, "", program=t.program)
             for t in (shipped() if callable(shipped) else shipped)
             if t.kind == "function" and t.argument and t.takes in ("flags", "command")]
    words = [re.escape(seed.name.rpartition(".")[2].encode()) for seed in seeds]
    launcher = re.compile(LAUNCHER_WORDS.pattern.encode())
    called = _calls_of(words)
    modules, read, entries, names = [], set(), [], set()
    for _ in range(MAX_ROUNDS):
        frontier = [path for path, data in texts.items() if path not in read and (
            launcher is not None and launcher.search(data) or called is not None and any(name_matches(data, called)))]
        if not frontier:
            break
        for path in frontier:
            read.add(path)
            name = module_name(path)
            if name is not None:
                try:
                    module = read_module(name, Path(path), texts[path].decode("utf-8"))
                except UnicodeDecodeError:
                    module = None
                if module is not None:
                    modules.append(module)
        entries = launch_entry_points(modules, seeds)
        found = {entry.name.rpartition(".")[2] for entry in entries} - names
        if not found:
            break
        names |= found
        launcher, called = None, _calls_of([re.escape(n.encode()) for n in sorted(names)])
    return tuple(
        Target(kind=entry.kind, name=entry.name, argument=entry.argument, position=entry.position, takes=entry.takes,
               receivers=entry.receivers, program=entry.program, fields=bool(entry.launched_in),
               launched_in=entry.launched_in)
        for entry in entries
    )
