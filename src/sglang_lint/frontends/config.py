"""``[tool.sglang-lint]`` in ``pyproject.toml``: found by walking up from the linted path (the
first ``pyproject.toml`` that has the table, as ruff finds ``[tool.ruff]``), or named with
``--config``. Command-line flags override it.

    [tool.sglang-lint]
    select = ["SGL"]                 # code prefixes to run (default: all)
    ignore = ["SGL007"]              # code prefixes not to run
    extend-select = ["SGL9"]         # added to select (the file's or the command line's)
    exclude = ["build/", "gen_*.py"] # globs, relative to this file's folder
    extend-exclude = ["scratch/"]    # more of them (added to exclude, or to --exclude)
    respect-gitignore = true         # skip what git ignores when walking a folder (the default)
    extra-rules = ["lint/rules"]     # folders of the team's own rule files, same format
    sglang-version = "0.5.23"        # judge every file against this release (catalog/target.py: the order)
    prefixes = ["--srv-"]            # flags a framework of the team passes on to sglang's server, prefixed
    gpu = "H100"                     # the GPU the launches run on (or platform = "cuda"): the start-up
                                     # checks that depend on it are judged (catalog/platforms.py)

    [tool.sglang-lint.per-file-ignores]
    "tests/*.py" = ["SGL001"]

An unknown key or a bad value is an error naming the file and the key.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from typing import Sequence

from sglang_lint.catalog.platforms import Machine, MachineError, declared_machine
from sglang_lint.catalog.target import RELEASE_PATTERN, TargetRelease, find_target
from sglang_lint.core.places import default_rules_dir
from sglang_lint.core.rulefile import tomllib
from sglang_lint.core.versions import version_key
from sglang_lint.frontends.indexes import rule_index

CODE_PREFIX = re.compile(r"^SGL[0-9]{0,4}$")
KEYS = ("select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude", "respect-gitignore",
        "extra-rules", "sglang-version", "prefixes", "platform", "gpu")


class ConfigError(Exception):
    def __init__(self, path: Path, key: str, problem: str):
        super().__init__(f"{path}: [tool.sglang-lint]{'.' + key if key else ''}: {problem}")
        self.path = path
        self.key = key


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # the pyproject.toml it came from (None: no file)
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    # ``--exclude`` / ``--extend-exclude``: (folder, glob), relative to the working folder;
    # ``--exclude`` replaces the file's ``exclude`` (None: not given)
    command_exclude: tuple[tuple[str, str], ...] | None = None
    command_extend_exclude: tuple[tuple[str, str], ...] = ()
    extra_rules: tuple[Path, ...] = ()
    sglang_version: str | None = None
    prefixes: tuple[str, ...] = ()  # prefixes of server flags a framework passes on (launch/prefixes.py)
    machine: Machine | None = None  # the platform and GPU it declares (catalog/platforms.py)
    _root: Path | None = field(default=None, compare=False)

    @property
    def root(self) -> Path:
        return self._root or (self.path.parent if self.path else Path.cwd())

    def relative(self, path: str) -> str | None:
        """``path`` relative to the configuration's folder, in ``/`` form (None: outside)."""
        return _relative_to(str(self.root), path)

    @cached_property
    def exclusions(self) -> tuple[tuple[str, str], ...]:
        """Every exclude glob with the folder it is relative to: the file's (``exclude``, or
        ``--exclude`` in its place) and both ``extend-exclude``s."""
        own = tuple((str(self.root), pattern) for pattern in self.exclude)
        extended = tuple((str(self.root), pattern) for pattern in self.extend_exclude)
        chosen = self.command_exclude if self.command_exclude is not None else own
        return chosen + extended + self.command_extend_exclude

    def excluded(self, path: str) -> bool:
        for folder, pattern in self.exclusions:
            relative = _relative_to(folder, path)
            if relative is not None and _matches(pattern, relative):
                return True
        return False

    def with_command_line(self, exclude: Sequence[str] | None, extend_exclude: Sequence[str] | None,
                          respect_gitignore: bool | None) -> Config:
        """This configuration with the command line's ``--exclude``, ``--extend-exclude`` (globs
        relative to the working folder) and ``--[no-]respect-gitignore`` where given."""
        here = os.getcwd()
        changes: dict = {}
        if exclude is not None:
            changes["command_exclude"] = tuple((here, pattern) for pattern in exclude)
        if extend_exclude:
            changes["command_extend_exclude"] = tuple((here, pattern) for pattern in extend_exclude)
        if respect_gitignore is not None:
            changes["respect_gitignore"] = respect_gitignore
        return dataclasses.replace(self, **changes) if changes else self

    def drop_ignored(self, path: str, diagnostics: list) -> list:
        """The diagnostics ``per-file-ignores`` leaves for ``path``."""
        ignored = self.ignored_codes(path)
        return [d for d in diagnostics if not d.code.startswith(ignored)] if ignored else diagnostics

    def ignored_codes(self, path: str) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()
        relative = self.relative(path)
        if relative is None:
            return ()
        found: list[str] = []
        for pattern, codes in self.per_file_ignores:
            if _matches(pattern, relative):
                found += codes
        return tuple(found)


def _relative_to(folder: str, path: str) -> str | None:
    """``path`` relative to ``folder``, in ``/`` form (None: outside it)."""
    # abspath, not resolve: the path as written decides (and a symlink loop must not
    # stop the run before the file is even read)
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(folder))
    if relative == ".." or relative.startswith(".." + os.sep):
        return None
    return PurePosixPath(Path(relative).as_posix()).as_posix()


def _matches(pattern: str, relative: str) -> bool:
    """A glob against the path relative to the configuration's folder: the file itself or
    anything under a folder it names; a pattern without ``/`` also matches any one part of
    the path (a file name like ``gen_*.py``, or a folder like ``build`` anywhere)."""
    stripped = pattern.strip().rstrip("/")
    if fnmatch.fnmatchcase(relative, stripped) or fnmatch.fnmatchcase(relative, stripped + "/*"):
        return True
    return "/" not in stripped and any(fnmatch.fnmatchcase(part, stripped) for part in relative.split("/"))


def ruleset_for(config: Config, select=None, ignore=None, extend_select=(), releases: Sequence[str] | None = None,
                codes: frozenset[str] | None = None, index=None):
    """The rules to run: the shipped catalog and the configuration's extra rule folders, for
    ``releases`` (None: the configuration's ``sglang-version``, if any; ``()``: every rule,
    for the caller to narrow per file with ``for_releases``, see catalog/target.py);
    ``select``/``ignore`` (the command line's) replace the file's where given, and
    ``extend_select`` adds to whichever selection holds. ``codes``: only these rules are
    read (the others cannot fire on the files at hand: catalog/index.py ``codes_for``), found through
    ``index`` when the caller holds the folders' index already."""
    from sglang_lint.engine.ruletable import RuleSet, default_ruleset, load_rules, rules_of  # the catalog: once needed

    folders = [default_rules_dir(), *config.extra_rules]
    # The rules are read when a file first needs them (a run the result cache answers reads
    # none); the folders' index is built from every rule file, each one validated, so a
    # malformed rule file is reported here, before any file is linted.
    index = index or rule_index(folders)
    identity = tuple(str(folder) for folder in folders)
    if codes is not None:
        picked = "codes " + ",".join(sorted(codes))
        ruleset = RuleSet(lambda: rules_of(codes, index, folders), identity=(identity, picked),
                          keeps=codes.__contains__)
    elif config.extra_rules:
        ruleset = RuleSet(lambda: load_rules(folders), identity=(identity, "all"))
    else:
        ruleset = default_ruleset()
    if releases is None:
        releases = (config.sglang_version,) if config.sglang_version is not None else ()
    ruleset = ruleset.for_releases(releases)
    select = select if select is not None else config.select
    ignore = ignore if ignore is not None else config.ignore
    extend = tuple(config.extend_select) + tuple(extend_select or ())
    if select is not None and extend:
        select = tuple(select) + extend
    return ruleset.select(select, ignore).with_prefixes(config.prefixes).on_machine(config.machine)


def known_for(config: Config) -> tuple[str, ...]:
    """The releases the catalog knows (target.known_releases), with those the configuration's
    extra rules name."""
    shipped = rule_index().releases  # (the compiled index keeps them: no rule file is read)
    if not config.extra_rules:
        return shipped
    return tuple(sorted(set(shipped) | set(rule_index(config.extra_rules).releases), key=version_key))


def target_for(config: Config, path: str | Path | None, known: Sequence[str],
               cli_version: str | None = None) -> TargetRelease:
    """The release(s) the file at ``path`` is judged against (target.find_target), with this
    configuration's ``sglang-version``."""
    return find_target(
        path, cli_version=cli_version, config_version=config.sglang_version, known=known,
        config_source=str(config.path) if config.path is not None else None,
    )


def find_config(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.sglang-lint]`` table, from ``start`` up."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # not ours to judge; a broken file named with --config is an error
            if "sglang-lint" in data.get("tool", {}):
                return path
    return None


def _codes(path: Path, key: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(path, key, f"must be a list of code prefixes like \"SGL001\", got {value!r}")
    codes = tuple(item.strip().upper() for item in value)
    for code in codes:
        if not CODE_PREFIX.match(code):
            raise ConfigError(path, key, f"{code!r} is not a code prefix like SGL or SGL001")
    return codes


def _strings(path: Path, key: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(path, key, f"must be a list of strings, got {value!r}")
    return tuple(value)


def load_config(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"cannot be read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"is not valid TOML: {exc}") from exc
    table = data.get("tool", {}).get("sglang-lint")
    if table is None:
        return Config(path=path)
    if not isinstance(table, dict):
        raise ConfigError(path, "", "must be a table")
    for key in table:
        if key not in KEYS:
            raise ConfigError(path, key, f"unknown key (known: {', '.join(KEYS)})")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(path, "per-file-ignores", "must be a table of glob = [codes]")
    version = table.get("sglang-version")
    if version is not None and (not isinstance(version, str) or not RELEASE_PATTERN.match(version.strip())):
        raise ConfigError(path, "sglang-version", f"must be a version like \"0.5.23\", got {version!r}")
    version = version.strip() if version is not None else None
    extra = _strings(path, "extra-rules", table["extra-rules"]) if "extra-rules" in table else ()
    folders = tuple((path.parent / folder).resolve() for folder in extra)
    for folder, text in zip(folders, extra):
        if not folder.is_dir():
            raise ConfigError(path, "extra-rules", f"{text!r} is not a folder (looked for {folder})")
    return Config(
        path=path,
        select=_codes(path, "select", table["select"]) if "select" in table else None,
        ignore=_codes(path, "ignore", table["ignore"]) if "ignore" in table else (),
        extend_select=_codes(path, "extend-select", table["extend-select"]) if "extend-select" in table else (),
        per_file_ignores=tuple(
            (pattern, _codes(path, f"per-file-ignores.{pattern}", codes)) for pattern, codes in per_file.items()
        ),
        exclude=_strings(path, "exclude", table["exclude"]) if "exclude" in table else (),
        extend_exclude=_strings(path, "extend-exclude", table["extend-exclude"]) if "extend-exclude" in table else (),
        respect_gitignore=_flag(path, "respect-gitignore", table.get("respect-gitignore", True)),
        extra_rules=folders,
        sglang_version=version,
        prefixes=_prefixes(path, table["prefixes"]) if "prefixes" in table else (),
        machine=_machine(path, table.get("platform"), table.get("gpu")),
    )


def _machine(path: Path, platform, gpu) -> Machine | None:
    for key, value in (("platform", platform), ("gpu", gpu)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(path, key, f"must be a name like \"{'cuda' if key == 'platform' else 'H100'}\", "
                                         f"got {value!r}")
    try:
        return declared_machine(platform, gpu)
    except MachineError as error:
        raise ConfigError(path, error.key, str(error)) from None


def _flag(path: Path, key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(path, key, f"must be true or false, got {value!r}")
    return value


def _prefixes(path: Path, value) -> tuple[str, ...]:
    found = _strings(path, "prefixes", value)
    for text in found:
        if not text.startswith("--") or len(text) < 3 or " " in text:
            raise ConfigError(path, "prefixes", f"each must be a flag prefix like \"--sglang-\", got {text!r}")
    return found
