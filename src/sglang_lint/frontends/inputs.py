"""Which files a run of the command reads: the paths named, and in a folder every ``*.py`` and
every file that may hold launch commands (shell scripts, Markdown, YAML), never walking into
the folders of tools and environments, nor into what the ``exclude`` globs name or (by default)
what git ignores (frontends/gitignored.py). A named pipe, a socket or a device met in a folder is
skipped and said (opening a pipe no one writes to would wait forever); a path named on the
command line is always read (``<(cat x.py)`` is a pipe)."""

from __future__ import annotations

import os
import stat
from typing import Callable, Iterator, Sequence

from sglang_lint.core.files import read_regular
from sglang_lint.frontends.gitignored import GitIgnored
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


class Walk:
    """The files one run reads (:meth:`files`), and what it left out on the way: paths the
    ``exclude`` globs name (``excluded``), and what git ignores (``gitignored``: None when
    ``respect-gitignore`` is off). A path named on the command line is read even where git
    ignores it; ``exclude`` holds for it too (pre-commit names every file)."""

    def __init__(self, excluded: Callable[[str], bool] | None = None, gitignored: GitIgnored | None = None):
        self.is_excluded = excluded
        self.gitignored = gitignored
        self.excluded: list[str] = []

    def files(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        """(path, problem) for every file to lint, ``-`` (stdin) as it comes; folders are
        walked for ``*.py`` and the files that may hold launch commands (shell scripts,
        Markdown, YAML). A problem is an error string, or ``Skipped`` for a file of a folder that
        is not a regular file (a path named on the command line is always read: ``<(cat x.py)``
        is a pipe)."""
        for path in paths:
            if path == "-":
                yield "-", None
            elif self._excluded(path):
                continue
            elif os.path.isdir(path):
                yield from self._walk(path)
            elif os.path.exists(path):
                yield path, None
            else:
                yield path, "no such file or directory"

    def _excluded(self, path: str) -> bool:
        if self.is_excluded is not None and self.is_excluded(path):
            self.excluded.append(path)
            return True
        return False

    def _walk(self, top: str) -> Iterator[tuple[str, str | None]]:
        git = self.gitignored
        # each folder's repository (where git's paths are relative to) and what git ignores there
        scopes = {top: (top, git.under(top) if git is not None else frozenset())}
        for root, dirs, files in os.walk(top):
            base, ignored = scopes.pop(root)
            kept = []
            for name in sorted(dirs):
                if name in SKIPPED_DIRS or name.endswith(".egg-info"):
                    continue
                full = os.path.join(root, name)
                if ignored and _relative(full, base) + "/" in ignored:
                    git.skipped.append(full + "/")
                elif not self._excluded(full):
                    kept.append(name)
                    nested = git is not None and os.path.lexists(os.path.join(full, ".git"))
                    scopes[full] = (full, git.under(full)) if nested else (base, ignored)
            dirs[:] = kept
            for name in sorted(files):
                full = os.path.join(root, name)
                special = _special_file(full)
                if special is None and not (name.endswith(".py") or _launch_file(full)):
                    continue
                if special is not None and not (name.endswith(".py") or "." not in name or is_launch_file(full)):
                    continue  # (a pipe is not opened for its shebang)
                if ignored and _relative(full, base) in ignored:
                    git.skipped.append(full)
                elif not self._excluded(full):
                    yield full, None if special is None else Skipped(f"skipped: not a regular file ({special})")


def _relative(path: str, base: str) -> str:
    """``path`` (under ``base``, as the walk made it) relative to ``base``, in ``/`` form."""
    relative = path[len(base):].lstrip(os.sep)
    return relative if os.sep == "/" else relative.replace(os.sep, "/")


def python_files(paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """Every file to lint under ``paths``, nothing excluded or ignored (see :class:`Walk`)."""
    return Walk().files(paths)
