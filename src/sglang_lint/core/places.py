"""Where sglang-lint's files are: the shipped catalog and the cache (a leaf: start-up reads it,
so it imports next to nothing; the ``*_folder`` functions answer in plain strings, without
pathlib, for the quick path of the command and the flake8 plugin)."""

from __future__ import annotations

import marshal
import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # sglang_lint/, above core/


def shipped_rules_folder() -> str | None:
    """The catalog as installed inside the package (a wheel's ``sglang_lint/rules``), or None
    when running from a source checkout (an editable install): see catalog/index.py for why the two
    are fingerprinted differently."""
    shipped = os.path.join(_PACKAGE, "rules")
    return shipped if os.path.isdir(shipped) else None


def rules_folder() -> str:
    """The catalog shipped in the wheel, or the repository's rules/ when run from source."""
    return shipped_rules_folder() or os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "rules")


def docs_file():
    """docs/rules.md: shipped in the wheel (``sglang_lint/docs``), or the repository's when run
    from source."""
    from pathlib import Path

    shipped = Path(_PACKAGE) / "docs" / "rules.md"
    return shipped if shipped.is_file() else Path(_PACKAGE).parent.parent / "docs" / "rules.md"


def default_rules_dir():
    from pathlib import Path

    return Path(rules_folder())


def cache_folder() -> str:
    """Where sglang-lint keeps what it can compute again: ``$SGLANG_LINT_CACHE``, else
    ``$XDG_CACHE_HOME/sglang-lint``, else ``~/.cache/sglang-lint``."""
    root = os.environ.get("SGLANG_LINT_CACHE")
    if root:
        return root
    xdg = os.environ.get("XDG_CACHE_HOME")
    return os.path.join(xdg if xdg else os.path.join(os.path.expanduser("~"), ".cache"), "sglang-lint")


def results_folder() -> str:
    """Where results are kept by file content (frontends/cache.py, the command's; frontends/plugin_cache.py, the
    flake8 plugin's, in ``flake8`` inside it): ``$SGLANG_LINT_CACHE_DIR``, else
    ``results`` in :func:`cache_folder`."""
    return os.environ.get("SGLANG_LINT_CACHE_DIR") or os.path.join(cache_folder(), "results")


def cache_home():
    from pathlib import Path

    return Path(cache_folder())


def keep_marshal(path, data) -> bool:
    """Write ``data`` as marshal to ``path`` (a str or a Path), atomically (:func:`keep_file`);
    False when it was not written (a cache that cannot be written only costs time)."""
    try:
        blob = marshal.dumps(data)
    except ValueError:
        return False
    return keep_file(path, blob)


def keep_gitignore(folder) -> None:
    """``folder`` (a str or a Path), made if missing, with a ``.gitignore`` of ``*``: a cache
    inside a repository (``--cache-dir .sglang_lint_cache``) never shows up in ``git status``."""
    ignore = os.path.join(os.fspath(folder), ".gitignore")
    try:
        if not os.path.exists(ignore):
            os.makedirs(os.fspath(folder), exist_ok=True)
            with open(ignore, "w") as stream:
                stream.write("# written by sglang-lint: a cache, never to be committed\n*\n")
    except OSError:
        pass  # a cache that cannot be written only costs time


def keep_file(path, blob: bytes) -> bool:
    """Write ``blob`` to ``path`` (a str or a Path) atomically: a temporary file, then a
    rename, so that a reader never sees half of it. False when the cache cannot be written
    (it only costs time)."""
    path = os.fspath(path)
    try:
        folder, name = os.path.split(path)
        os.makedirs(folder, exist_ok=True)
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            stream.write(blob)
        os.replace(temporary, path)
        return True
    except OSError:
        return False


def prune_kept(path, prefix: str, suffix: str, count: int, folders: bool = False) -> None:
    """Remove all but the newest ``count`` files named ``prefix...suffix`` beside ``path`` (a
    file just kept, which stays): each cache of this kind grows by one file whenever its
    inputs change (a rule edited, another folder or version). ``folders``: folders instead,
    named as long as ``path``'s own (a fingerprint: the user's own folders beside them stay)."""
    folder, keep = os.path.split(os.fspath(path))

    def prunable(entry: os.DirEntry) -> bool:
        if entry.name == keep or not (entry.name.startswith(prefix) and entry.name.endswith(suffix)):
            return False
        return entry.is_dir() and len(entry.name) == len(keep) if folders else True

    try:
        found = sorted(((entry.stat().st_mtime_ns, entry.path) for entry in os.scandir(folder) if prunable(entry)),
                       reverse=True)
        for _, old in found[count:]:
            if folders:
                import shutil

                shutil.rmtree(old, ignore_errors=True)
            else:
                os.remove(old)
    except OSError:
        pass  # another process pruned it first, or the cache is read-only: it only costs disk


def package_stamp() -> str:
    """Every source file of this package (path, size, modification time), for the keys of the
    caches that hold what this code made: in a checkout installed for editing, an edited module
    changes what the same version gives. Read once per process (some 10 ms; the code running
    is the code it was when the process imported it)."""
    global _package_stamp
    if _package_stamp is None:
        _package_stamp = _stamp_of_package()
    return _package_stamp


_package_stamp: str | None = None


def _stamp_of_package() -> str:
    stamps = []
    for folder, folders, names in os.walk(_PACKAGE):
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                stat = os.stat(path)
                stamps.append(f"{os.path.relpath(path, _PACKAGE)} {stat.st_size} {stat.st_mtime_ns}")
    return "\n".join(sorted(stamps))


def code_stamp() -> str:
    """What made a cache's results besides the rules: this package's source files
    (:func:`package_stamp`), Python's version and the installed LibCST (:func:`libcst_stamp`)."""
    import sys

    return f"{package_stamp()}\0python {sys.version_info[:2]}\0libcst {libcst_stamp()}"


def libcst_stamp() -> str:
    """Which LibCST is installed (its package file's path, size and modification time: an
    upgrade changes them), without importing it: a run the screens answer needs none."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
        stat = os.stat(spec.origin)
        return f"{spec.origin} {stat.st_size} {stat.st_mtime_ns}"
    except (ImportError, AttributeError, TypeError, ValueError, OSError):
        return "?"
