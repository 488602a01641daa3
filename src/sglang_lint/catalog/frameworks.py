"""Which frameworks that pass sglang's server flags on under a prefix (rules/prefixes.toml,
launch/prefixes.py) a file's project is: so that slime's ``--sglang-<flag>`` is read as a
server flag in slime's own scripts and in a project built on slime, and ``--sglang-version`` on
sglang-lint's own command line, in any other project, is not.

A project is a framework where, in a folder from the file's up to the one holding ``.git`` (or
the filesystem's root), one of the framework's ``packages`` is

- the project's own name (``[project].name`` of pyproject.toml, ``[metadata] name`` of
  setup.cfg, a literal ``name=`` of setup.py, read and never run);
- a requirement of it, as target.py reads the sglang pin (pyproject.toml's dependency lists,
  setup.cfg, the literal lists of setup.py, requirements*.txt and their includes): ``slime``,
  ``slime @ git+https://...``, or a URL naming the repository (``git+https://github.com/THUDM/slime.git``);
- a package folder of it (``slime/__init__.py``).
"""

from __future__ import annotations

import ast
import configparser
import os
import re

from sglang_lint.catalog.target import folder_requirements, requirement_name
from sglang_lint.core.files import read_regular
from sglang_lint.core.rulefile import tomllib
from sglang_lint.launch.prefixes import shipped_prefixes

_URL_NAME = re.compile(r"(?:#egg=|/)([A-Za-z0-9][\w.-]*?)(?:\.git)?(?:@[^/#]*)?(?:#.*)?$")

_FOLDER: dict[tuple[str, frozenset], frozenset] = {}
_PROJECT: dict[tuple[str, frozenset], frozenset] = {}


def clear_cache() -> None:
    """Forget every folder read (a long-running server calls this when files may have changed)."""
    _FOLDER.clear()
    _PROJECT.clear()


def project_frameworks(path: str | None) -> frozenset:
    """The framework packages of the shipped prefixes the project of the file at ``path`` names
    (None: the working folder's)."""
    packages = frozenset(name for prefix in shipped_prefixes() for name in prefix.packages)
    if not packages:
        return frozenset()
    folder = os.path.abspath(path if path is not None else ".")
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    key = (folder, packages)
    if key not in _PROJECT:
        found: set[str] = set()
        current = folder
        while True:
            found |= _folder_names(current, packages)
            parent = os.path.dirname(current)
            if parent == current or os.path.exists(os.path.join(current, ".git")):
                break
            current = parent
        _PROJECT[key] = frozenset(found)
    return _PROJECT[key]


def _folder_names(folder: str, packages: frozenset) -> frozenset:
    key = (folder, packages)
    if key not in _FOLDER:
        names = {_own_name(folder, name) for name in ("pyproject.toml", "setup.cfg", "setup.py")}
        names |= {_required(text) for text, _ in folder_requirements(folder)}
        names |= {name for name in packages if os.path.isfile(os.path.join(folder, name, "__init__.py"))}
        _FOLDER[key] = frozenset(names) & packages
    return _FOLDER[key]


def _required(text: str) -> str | None:
    """The project a requirement names: its name, or the repository of a bare URL."""
    text = text.split(";", 1)[0].strip()
    if "://" in text and "@" not in text.split("://", 1)[0]:
        match = _URL_NAME.search(text)
        return requirement_name(match.group(1)) if match else None
    return requirement_name(text)


def _own_name(folder: str, file: str) -> str | None:
    """The name the project file gives the project itself."""
    path = os.path.join(folder, file)
    if not os.path.isfile(path):
        return None
    try:
        data = read_regular(path)
        if file == "pyproject.toml":
            project = tomllib.loads(data.decode("utf-8")).get("project")
            name = project.get("name") if isinstance(project, dict) else None
        elif file == "setup.cfg":
            parser = configparser.RawConfigParser()
            parser.read_string(data.decode("utf-8"))
            name = parser.get("metadata", "name", fallback=None)
        else:
            name = next((keyword.value.value for node in ast.walk(ast.parse(data, path))
                         if isinstance(node, ast.Call) for keyword in node.keywords
                         if keyword.arg == "name" and isinstance(keyword.value, ast.Constant)), None)
    except (OSError, UnicodeDecodeError, ValueError, SyntaxError, configparser.Error, tomllib.TOMLDecodeError):
        return None
    return requirement_name(name) if isinstance(name, str) else None
