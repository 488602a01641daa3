"""What git ignores under a folder the command walks (``respect-gitignore``, on by default as
ruff's is): its ``.gitignore`` files, ``.git/info/exclude`` and the user's excludes file, asked
of git itself, so the answer is git's own, negations and nested files included. A file git
tracks is never ignored. Outside a git work tree, or where git cannot answer (not installed, a
repository it refuses), nothing is ignored and the reason is kept for ``--verbose``."""

from __future__ import annotations

import os
import subprocess

GIT_TIMEOUT = 60  # seconds: a walk of a huge untracked tree is git's to do once, not ours again


def in_work_tree(folder: str) -> bool:
    """Is ``folder`` in a git work tree (a ``.git`` here or above)? Looked at before git is run,
    so a folder outside any repository costs no process."""
    current = os.path.abspath(folder)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


class GitIgnored:
    """The ignored paths of each repository met in a walk, and what was skipped for them."""

    def __init__(self) -> None:
        self.skipped: list[str] = []  # paths not walked into or read, as the walk met them
        self.unanswered: dict[str, str] = {}  # folder -> why git gave no answer

    def under(self, folder: str) -> frozenset[str]:
        """The paths under ``folder`` that git ignores, relative to it in ``/`` form, folders
        ending in ``/`` (a wholly ignored folder is one entry). Empty where git does not answer,
        and for a folder that git ignores as a whole: a folder named to the command is read."""
        if not in_work_tree(folder):
            return frozenset()
        command = ["git", "-C", folder, "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                   "--directory"]
        try:
            done = subprocess.run(command, capture_output=True, timeout=GIT_TIMEOUT, check=False)
        except FileNotFoundError:
            self.unanswered[folder] = "git is not installed"
            return frozenset()
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.unanswered[folder] = f"git did not answer ({exc})"
            return frozenset()
        if done.returncode != 0:
            problem = done.stderr.decode("utf-8", "replace").strip().splitlines()
            self.unanswered[folder] = f"git failed: {problem[-1] if problem else done.returncode}"
            return frozenset()
        found = frozenset(os.fsdecode(entry) for entry in done.stdout.split(b"\0") if entry)
        return frozenset() if "./" in found else found
