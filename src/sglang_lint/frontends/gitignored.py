"""What git ignores under a folder the command walks (``respect-gitignore``, on by default as
ruff's is): its ``.gitignore`` files, ``.git/info/exclude`` and the user's excludes file, asked
of git itself, so the answer is git's own, negations and nested files included. A file git
tracks is never ignored. Outside a git work tree, or where git cannot answer (not installed, a
repository it refuses), nothing is ignored and the reason is kept for ``--verbose``."""

from __future__ import annotations

import os
import subprocess

GIT_TIMEOUT = 60  # seconds: a walk of a huge untracked tree is git's to do once, not ours again


def work_tree_of(folder: str) -> str | None:
    """The top of the git work tree ``folder`` is in (the nearest folder with a ``.git``, here or
    above), None outside one. Looked for before git is run, so a folder outside any repository
    costs no process."""
    current = os.path.realpath(folder)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


class GitIgnored:
    """The ignored paths of each repository met in a walk, and what was skipped for them."""

    def __init__(self) -> None:
        self.skipped: list[str] = []  # paths not walked into or read, as the walk met them
        self.unanswered: dict[str, str] = {}  # folder -> why git gave no answer

    def under(self, folder: str) -> frozenset[str]:
        """The paths under ``folder`` that git ignores, relative to it in ``/`` form, folders
        ending in ``/`` (a wholly ignored folder is one entry). Empty where git does not answer,
        and for a folder that git ignores as a whole (or lies in one): a folder named to the
        command is read."""
        top = work_tree_of(folder)
        if top is None:
            return frozenset()
        relative = os.path.relpath(os.path.realpath(folder), top).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        done = self._git(folder, top, "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                         "--directory", *(["--", prefix] if prefix else []))
        if done is None:
            return frozenset()
        if done.returncode != 0:
            # asked of a folder inside an ignored one, git 2.39 fails ("directory entry not
            # superset of prefix"): whether it lies in one is asked on its own
            inside = self._git(folder, top, "check-ignore", "--quiet", "--", prefix)
            if inside is None or inside.returncode != 0:
                problem = done.stderr.decode("utf-8", "replace").strip().splitlines()
                self.unanswered[folder] = f"git failed: {problem[-1] if problem else done.returncode}"
            return frozenset()
        found = set()
        for entry in (os.fsdecode(item) for item in done.stdout.split(b"\0") if item):
            if entry.endswith("/") and prefix.startswith(entry):
                return frozenset()  # the folder itself is ignored, or lies in an ignored one
            if entry.startswith(prefix):
                found.add(entry[len(prefix):])
        return frozenset(found)

    def _git(self, folder: str, top: str, *args: str) -> subprocess.CompletedProcess | None:
        """git's answer in the work tree ``top``; None (and why, kept for ``folder``) where git
        cannot be run."""
        try:
            return subprocess.run(["git", "-C", top, *args], capture_output=True, timeout=GIT_TIMEOUT, check=False)
        except FileNotFoundError:
            self.unanswered[folder] = "git is not installed"
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.unanswered[folder] = f"git did not answer ({exc})"
        return None
