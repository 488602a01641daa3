"""Which files hold launch commands the command reads besides Python (standard library and the
leaf launch_text only: it decides before anything heavy is imported): shell scripts, Markdown and
YAML, by suffix, and files without a suffix whose first line is a shell shebang."""

from __future__ import annotations

from sglang_lint.launch.commands import MARKDOWN_SUFFIXES, SHEBANG, SHELL_SUFFIXES, YAML_SUFFIXES

LAUNCH_FILE_SUFFIXES = SHELL_SUFFIXES + MARKDOWN_SUFFIXES + YAML_SUFFIXES


def is_launch_file(path: str | None, head: bytes = b"") -> bool:
    """A file whose launch commands the command reads: by its suffix, or (a file without one)
    a shell shebang on its first line (``head``: its first bytes)."""
    if not path or path.endswith(".py"):
        return False
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith(LAUNCH_FILE_SUFFIXES):
        return True
    return "." not in name and bool(SHEBANG.match(head.decode("utf-8", "replace")))
