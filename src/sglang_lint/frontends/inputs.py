"""Which files a run of the command reads: the paths named, and in a folder every ``*.py`` and
every file that may hold launch commands (shell scripts, Markdown, YAML), never walking into
the folders of tools and environments. A named pipe, a socket or a device met in a folder is
skipped and said (opening a pipe no one writes to would wait forever); a path named on the
command line is always read (``<(cat x.py)`` is a pipe)."""

from __future__ import annotations

import os
import stat
from typing import Iterator, Sequence

from sglang_lint.core.files import read_regular
from sglang_lint.launch.paths import is_launch_file

# Folders never walked into (a path named on the command line is always linted).
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "site-packages",
        "__pypackages__", ".eggs", ".sglang_lint_cache",
    }
)


class Skipped(str):
    """Why a file met in a folder is left alone without being an error (a named pipe, a
    socket, a device: opening one could block forever, and it holds no source)."""


def _launch_file(path: str) -> bool:
    """A shell script, Markdown or YAML file whose sglang launch commands are judged (a file
    without a suffix: by its shebang)."""
    name = os.path.basename(path)
    if "." in name:
        return is_launch_file(path)
    try:
        return is_launch_file(path, read_regular(path, 128))
    except OSError:
        return False


_SPECIAL_FILES = (
    (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
)


def _special_file(path: str) -> str | None:
    """What ``path`` is when it exists but is not a regular file (None for a regular file, and
    for one that cannot be looked at: reading it then says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((what for test, what in _SPECIAL_FILES if test(mode)), None)


def python_files(paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """(path, problem) for every file to lint; folders are walked for ``*.py`` and the files
    that may hold launch commands (shell scripts, Markdown, YAML). A problem is an error
    string, or ``Skipped`` for a file of a folder that is not a regular file (a path named on
    the command line is always read: ``<(cat x.py)`` is a pipe)."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    full = os.path.join(root, name)
                    special = _special_file(full)
                    if special is not None:
                        if name.endswith(".py") or "." not in name or is_launch_file(full):
                            yield full, Skipped(f"skipped: not a regular file ({special})")
                    elif name.endswith(".py") or _launch_file(full):
                        yield full, None
        elif os.path.exists(path):
            yield path, None
        else:
            yield path, "no such file or directory"


def inputs(paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    for path in paths:
        if path == "-":
            yield "-", None
        else:
            yield from python_files([path])
