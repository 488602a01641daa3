"""Which sglang release(s) a file is judged against, found the way a user expects.

In this order, the first that answers wins:

1. ``--sglang-version X`` on the command line (flake8: ``--sglang-version``, or
   ``sglang-version = X`` in its ``[flake8]`` section);
2. ``sglang-version`` in ``[tool.sglang-lint]``;
3. the file's own images, for a Dockerfile, a YAML file or a shell script that names
   ``lmsysorg/sglang`` (launch/image_pins.py ``file_images``): what runs its commands, never a
   neighbour's image. A tag naming a release is that release; a nightly's
   (``nightly-dev-20251215-<sha>``) is every release from the last one uploaded before its day to
   the first one after it (catalog/release_dates.py); several stand for every release they give.
   A tag naming neither (``latest``, ``dev``) decides nothing: beside other images it adds the
   newest known release; alone, the file falls to the steps below (never to a neighbour's image,
   step 5) and the reason says so;
4. the sglang installed in the environment running the linter (its metadata only:
   ``importlib.metadata.version("sglang")``; sglang is never imported);
5. the project's pin, found by walking up from the linted file's folder: ``sglang==X``
   (``sglang[extras]==X``) in ``pyproject.toml`` (``[project].dependencies``,
   ``[project.optional-dependencies]``, ``[dependency-groups]``), ``requirements*.txt``
   (with their ``-r``/``-c`` includes), ``setup.cfg`` (``install_requires``,
   ``extras_require``) or the literal lists of ``setup.py`` (read with ``ast``, never run).
   A range (``>=0.5.10,<0.5.16``, ``~=0.5.10``, ``!=0.5.12``, ``==0.5.*``) stands for every
   known release in it. The walk stops at the first folder that pins sglang, and never goes
   above a folder holding ``.git`` (nor past the filesystem root);
6. with no such pin, the release the project's container images or setup scripts name, found
   by the same walk (launch/image_pins.py): ``FROM lmsysorg/sglang:v0.5.4-cu126`` in a Dockerfile, an
   ``image:`` of Compose, Kubernetes or CI YAML, ``SGLANG_VERSION=0.5.4`` in a shell script;
   each is a pin of that release (``==``), a nightly the releases around its day (as in step 3),
   and several stand for every release they name;
7. nothing: the newest rules.

A release newer than every known one is judged by the newest known release's rules, and the
result says so (:attr:`TargetRelease.newer_than_catalog`) for the front end to warn once.

The known releases are :func:`known_releases`: the one place that lists them.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import dataclasses
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from sglang_lint.catalog.release_dates import releases_around, upload_days
from sglang_lint.catalog.rules import Rule
from sglang_lint.core.files import read_regular
from sglang_lint.core.rulefile import tomllib
from sglang_lint.core.versions import version_key
from sglang_lint.launch.image_pins import NamedRelease, file_images, folder_releases

# A release as users write it: 0.5.23, 0.5.10.post1, 0.5.16rc1, 0.6.0.dev0.
RELEASE_PATTERN = re.compile(r"^[0-9]+(\.[0-9]+)*([.-]?[a-z]+[.-]?[0-9]*)?$")


def release_argument(text: str) -> str:
    """``--sglang-version X`` (the command's and flake8's): a release name, or argparse's error."""
    version = text.strip()
    if not RELEASE_PATTERN.match(version):
        raise argparse.ArgumentTypeError(f"{text!r} is not an sglang release like 0.5.23 or 0.5.10.post1")
    return version


PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")  # then requirements*.txt, by name
MAX_INCLUDE_DEPTH = 8


@dataclass(frozen=True)
class TargetRelease:
    """The releases a file is judged against (empty: the newest rules, nothing pinned), why
    (for ``--verbose``), and whether the pinned release is newer than every known one (then
    ``releases`` holds the newest known release)."""

    releases: tuple[str, ...] = ()
    reason: str = ("no sglang release named (no --sglang-version, no sglang-version, no sglang installed, "
                   "no pin or image above)")
    newer_than_catalog: bool = False

    @property
    def label(self) -> str:
        """``sglang 0.5.6``, ``sglang 0.5.10..0.5.15 (6 releases)``, or ``the newest rules``."""
        if not self.releases:
            return "the newest rules"
        if len(self.releases) == 1:
            return f"sglang {self.releases[0]}"
        return f"sglang {self.releases[0]}..{self.releases[-1]} ({len(self.releases)} releases)"


def known_releases(rules: Iterable[Rule]) -> tuple[str, ...]:
    """Every sglang release the catalog knows, oldest first.

    The single source of the release list (point it at the catalog's own list when the
    catalog has one). Until then it is read from the rules: each raise site's
    ``sglang_version``, ``since`` and ``until``, and the data tables beside the rule files (the
    server-argument table): their ``sglang_version`` and ``releases``. The compiled index keeps
    the shipped catalog's (catalog/index.py ``releases``): a run reads them there."""
    found: set[str] = set()
    folders: set[Path] = set()
    for rule in rules:
        site = rule.raise_site
        found.update(v for v in (site.sglang_version, site.since, site.until) if v)
        folders.add(Path(rule.path).parent)
    for folder in folders:
        for path in sorted(folder.glob("*.toml")):
            if not path.name.startswith("SGL"):  # rule files are SGLnnn-*.toml; the others are data
                found.update(_table_releases(str(path)))
    return tuple(sorted((v for v in found if isinstance(v, str) and RELEASE_PATTERN.match(v)), key=version_key))


@lru_cache(maxsize=None)
def _table_releases(path: str) -> tuple[str, ...]:
    """A data table's ``sglang_version`` and ``releases``: its top-level keys, read without
    the (large) tables after them."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        head = re.split(r"^\[", text, maxsplit=1, flags=re.M)[0]
        data = tomllib.loads(head)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return ()
    releases = data.get("releases") if isinstance(data.get("releases"), list) else []
    return tuple(v for v in [data.get("sglang_version"), *releases] if isinstance(v, str))


def find_target(
    path: str | Path | None,
    *,
    cli_version: str | None,
    config_version: str | None,
    known: Sequence[str],
    config_source: str | None = None,
) -> TargetRelease:
    """The release(s) to judge the file at ``path`` against (None: no file, e.g. an unsaved
    buffer; the walk then starts at the working folder). ``known``: :func:`known_releases`.
    ``config_source`` names where ``config_version`` came from, for the reason."""
    known = tuple(sorted(known, key=version_key))
    if cli_version:
        return _exact(cli_version, f"--sglang-version {cli_version}", known)
    if config_version:
        where = f" in {config_source}" if config_source else ""
        return _exact(config_version, f'sglang-version = "{config_version}"{where}', known)
    images = file_images(os.path.abspath(path)) if path is not None else ()
    own = tuple(_image_pin(named) for named in images if named.release or named.built)
    vague = "; ".join(f"{named.text} in {named.where}" for named in images if not (named.release or named.built))
    if own:
        return _with_newest(_resolve_pins(own, known), vague, known) if vague else _resolve_pins(own, known)
    target = _beyond_the_file(path, known, images=not vague)
    if not vague:
        return target
    said = target.reason if target != TargetRelease() else "no pin above: the newest rules"
    return dataclasses.replace(target, reason=f"{vague}: a tag that names no release; {said}")


def _beyond_the_file(path: str | Path | None, known: Sequence[str], images: bool) -> TargetRelease:
    """Steps 4 to 7: the installed sglang, the project's pin, its images (``images``: a file whose
    own image names no release is never judged by a neighbour's), nothing."""
    installed = installed_version()
    if installed:
        return _exact(installed, f"sglang {installed} installed in this environment ({sys.prefix})", known)
    folder = os.path.abspath(path if path is not None else ".")
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    found = _walk(folder, folder_pins, _WALK) or (_walk(folder, folder_image_pins, _IMAGE_WALK) if images else None)
    if found is None:
        return TargetRelease()
    return _resolve_pins(found, known)


def _with_newest(target: TargetRelease, vague: str, known: Sequence[str]) -> TargetRelease:
    """A file's images that name releases, beside some naming none (``latest``): those stand for
    the newest known release too."""
    if not known or not target.releases:
        return target
    releases = tuple(sorted(set(target.releases) | {known[-1]}, key=version_key))
    return TargetRelease(releases, f"{target.reason}; {vague}: a tag that names no release, the newest ({known[-1]})")


# ---- the installed release, and the walk (cached: many files share a project) ----

_INSTALLED: list[str | None] = []
_WALK: dict[str, tuple[Pin, ...] | None] = {}
_FOLDER: dict[str, tuple[Pin, ...]] = {}
_IMAGE_WALK: dict[str, tuple[Pin, ...] | None] = {}
_IMAGE_FOLDER: dict[str, tuple[Pin, ...]] = {}


def clear_cache() -> None:
    """Forget the installed release and every folder read (a long-running server calls this
    when project files may have changed)."""
    for cache in (_INSTALLED, _WALK, _FOLDER, _IMAGE_WALK, _IMAGE_FOLDER):
        cache.clear()


def installed_version() -> str | None:
    """The installed sglang's release from its metadata (a local part ``+cu124`` dropped), or
    None when it is not installed."""
    if not _INSTALLED:
        try:
            import importlib.util

            version = None
            # Only where Python would find sglang is its metadata read: a search of the paths
            # costs a fraction of a millisecond, importlib.metadata's import and its search of
            # every installed distribution tens (each editor save or pre-commit run pays them).
            # (find_spec imports nothing for a top-level name.)
            if importlib.util.find_spec("sglang") is not None:
                from importlib import metadata  # only when no pin or option says the release

                version = metadata.version("sglang")
        except Exception:  # not installed, or unreadable metadata: as if not installed
            version = None
        version = version.split("+", 1)[0].strip() if isinstance(version, str) else None
        _INSTALLED.append(version if version and RELEASE_PATTERN.match(version.lower()) else None)
    return _INSTALLED[0]


@dataclass(frozen=True)
class Pin:
    requirement: str  # as written: sglang[all]==0.5.6
    clauses: tuple[tuple[str, str], ...]  # (operator, version): (("==", "0.5.6"),)
    where: str  # the file it is in (an image's or a script's: path:line)
    built: str = ""  # a nightly image's day (then no clauses): judged by the releases around it

    @property
    def text(self) -> str:
        return f"{self.requirement} in {self.where}"


def _walk(folder: str, pins_of: Callable[[str], tuple[Pin, ...]],
          walked: dict[str, tuple[Pin, ...] | None]) -> tuple[Pin, ...] | None:
    """The pins (``pins_of`` a folder) of the first folder from ``folder`` up that has any (None:
    none has); ``walked`` keeps each folder's answer."""
    trail = []
    current = folder
    found: tuple[Pin, ...] | None = None
    while True:
        if current in walked:
            found = walked[current]
            break
        trail.append(current)
        pins = pins_of(current)
        if pins:
            found = pins
            break
        parent = os.path.dirname(current)
        if parent == current or os.path.exists(os.path.join(current, ".git")):
            break
        current = parent
    for visited in trail:
        walked[visited] = found
    return found


def folder_pins(folder: str) -> tuple[Pin, ...]:
    """The sglang requirements with a version in the project files of this one folder."""
    if folder not in _FOLDER:
        pins = [pin for text, where in folder_requirements(folder) if (pin := parse_requirement(text, where))]
        _FOLDER[folder] = tuple(dict.fromkeys(pins))
    return _FOLDER[folder]


def folder_requirements(folder: str) -> list[tuple[str, str]]:
    """Every requirement the project files of this one folder list, as written, with the file
    it is in (a requirements file's includes too)."""
    found: list[tuple[str, str]] = []
    for name in PROJECT_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            found += [(text, path) for text in _READERS[name](path)]
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("requirements") and n.endswith(".txt"))
    except OSError:
        names = []
    seen: set[str] = set()
    for name in names:
        found += _requirements_txt(os.path.join(folder, name), seen, 0)
    return found


def folder_image_pins(folder: str) -> tuple[Pin, ...]:
    """The releases the container images and setup scripts of this one folder name, as pins."""
    if folder not in _IMAGE_FOLDER:

        _IMAGE_FOLDER[folder] = tuple(_image_pin(named) for named in folder_releases(folder)
                                      if named.built or RELEASE_PATTERN.match(named.release))
    return _IMAGE_FOLDER[folder]


def _image_pin(named: NamedRelease) -> Pin:
    """An image's release as a pin (``==``), or a nightly's day (``built``)."""
    return Pin(named.text, () if named.built else (("==", named.release),), named.where, named.built)


# ---- the project files ----

_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(.*)$", re.S)
_CLAUSE = re.compile(r"^\s*(===|==|!=|~=|>=|<=|>|<)\s*([0-9][0-9A-Za-z.*_-]*)\s*$")


def parse_requirement(text: str, where: str) -> Pin | None:
    """A pin of sglang from one requirement (PEP 508), or None: another package, no version,
    a URL, or a specifier this reader does not understand."""
    text = text.split(";", 1)[0].strip()  # environment markers: not judged
    match = _NAME.match(text)
    if match is None or requirement_name(text) != "sglang":
        return None
    rest = match.group(3).strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    if not rest or "@" in rest:
        return None
    clauses = []
    for part in rest.split(","):
        clause = _CLAUSE.match(part)
        if clause is None:
            return None
        version = clause.group(2).split("+", 1)[0]
        if not RELEASE_PATTERN.match(version.lower().removesuffix(".*")):
            return None
        clauses.append((clause.group(1), version.lower()))
    return Pin(text, tuple(clauses), where)


def requirement_name(text: str) -> str | None:
    """The project a requirement names (PEP 503-normalised: ``Slime_RL`` -> ``slime-rl``), or None."""
    match = _NAME.match(text.split(";", 1)[0])
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match is not None else None


def _strings(texts: Iterable) -> list[str]:
    return [text for text in texts if isinstance(text, str)]


def _pyproject(path: str) -> list[str]:
    try:
        data = tomllib.loads(read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    lists = [project.get("dependencies")]
    for table in (project.get("optional-dependencies"), data.get("dependency-groups")):
        if isinstance(table, dict):
            lists += list(table.values())
    return [text for items in lists if isinstance(items, list) for text in _strings(items)]


def _setup_cfg(path: str) -> list[str]:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(read_regular(path).decode("utf-8"), path)
    except (configparser.Error, OSError, UnicodeDecodeError):
        return []
    values = []
    if parser.has_option("options", "install_requires"):
        values.append(parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        values += [value for _, value in parser.items("options.extras_require")]
    return [line for value in values for line in value.splitlines()]


def _setup_py(path: str) -> list[str]:
    """The string literals of the list, tuple and set literals of setup.py (what
    ``install_requires=[...]``, ``extras_require={...: [...]}`` and ``REQUIRES = [...]``
    hold); the file is parsed, never run."""
    try:
        tree = ast.parse(read_regular(path), path)
    except (OSError, SyntaxError, ValueError):
        return []
    return [
        item.value for node in ast.walk(tree) if isinstance(node, (ast.List, ast.Tuple, ast.Set))
        for item in node.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)
    ]


def _requirements_txt(path: str, seen: set[str], depth: int) -> list[tuple[str, str]]:
    """One requirements file's requirements, and those of the files it includes (``-r``/``-c`` with a
    plain relative or absolute path; a URL or a variable is not followed)."""
    path = os.path.abspath(path)
    if path in seen or depth > MAX_INCLUDE_DEPTH:
        return []
    seen.add(path)
    try:
        text = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    found: list[tuple[str, str]] = []
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        include = re.match(r"^(?:-r|-c|--requirement|--constraint)(?:\s*=\s*|\s+|(?=[^\s-]))(\S+)$", line)
        if include:
            name = include.group(1)
            if "://" not in name and "$" not in name:
                found += _requirements_txt(os.path.join(os.path.dirname(path), name), seen, depth + 1)
            continue
        if line.startswith("-"):
            continue  # -e, --index-url, ...
        line = re.split(r"\s+--?[a-z]", line, maxsplit=1)[0]  # per-requirement options: --hash=...
        if line:
            found.append((line, path))
    return found


_READERS = {"pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "setup.py": _setup_py}


# ---- specifiers against the known releases ----


def _numbers(version: str) -> tuple[int, ...]:
    numbers = list(version_key(version)[0])
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def _key(version: str) -> tuple:
    """:func:`version_key` with ``0.5`` and ``0.5.0`` the same release."""
    _, kind, number = version_key(version)
    return (_numbers(version), kind, number)


def _is_pre(version: str) -> bool:
    return version_key(version)[1] == 0


def _prefix(version: str, wildcard: str) -> bool:
    """``version`` is in ``0.5.*`` (``wildcard`` without the ``.*``)."""
    wanted = version_key(wildcard)[0]
    have = version_key(version)[0]
    have = have + (0,) * (len(wanted) - len(have))
    return have[:len(wanted)] == wanted


def satisfies(version: str, operator: str, spec: str) -> bool:
    """One clause of a specifier (PEP 440, as far as sglang's releases need it)."""
    if spec.endswith(".*"):
        inside = _prefix(version, spec[:-2])
        return inside if operator == "==" else (not inside if operator == "!=" else False)
    have, want = _key(version), _key(spec)
    if operator == "===":
        return version == spec
    if operator == "==":
        return have == want
    if operator == "!=":
        return have != want
    if operator == ">=":
        return have >= want
    if operator == "<=":
        return have <= want
    if operator == ">":  # not a post-release of the release named (unless it names one)
        return have > want and not (have[0] == want[0] and have[1] == 2 and want[1] != 2)
    if operator == "<":  # not a pre-release of the release named (unless it names one)
        return have < want and not (have[0] == want[0] and have[1] == 0 and want[1] != 0)
    if operator == "~=":
        numbers = version_key(spec)[0]
        if len(numbers) < 2:
            return False
        return have >= want and _prefix(version, ".".join(map(str, numbers[:-1])))
    return False


def releases_in(clauses: Sequence[tuple[str, str]], known: Sequence[str]) -> tuple[str, ...]:
    """The known releases a specifier admits, oldest first (pre-releases only when a clause
    names one)."""
    pre = any(_is_pre(spec.removesuffix(".*")) for _, spec in clauses)
    return tuple(
        release for release in known
        if (pre or not _is_pre(release)) and all(satisfies(release, op, spec) for op, spec in clauses)
    )


def _exact(version: str, reason: str, known: Sequence[str]) -> TargetRelease:
    if known and _key(version) > _key(known[-1]):
        return _newer(reason, known)
    return TargetRelease((version,), reason)


def _newer(reason: str, known: Sequence[str]) -> TargetRelease:
    return TargetRelease(
        (known[-1],),
        f"{reason}: newer than every release the catalog knows; judged by the newest, {known[-1]}",
        newer_than_catalog=True,
    )


def _lowest(clauses: Sequence[tuple[str, str]]) -> str | None:
    bounds = [spec.removesuffix(".*") for op, spec in clauses if op in ("==", "===", ">=", ">", "~=")]
    return max(bounds, key=_key) if bounds else None


def _resolve(pin: Pin, known: Sequence[str]) -> TargetRelease:
    if pin.built:
        return _nightly(pin, known)
    clauses = pin.clauses
    if len(clauses) == 1 and clauses[0][0] in ("==", "===") and not clauses[0][1].endswith(".*"):
        return _exact(clauses[0][1], pin.text, known)
    matched = releases_in(clauses, known)
    if matched:
        return TargetRelease(matched, pin.text)
    lowest = _lowest(clauses)
    if known and lowest is not None and _key(lowest) > _key(known[-1]):
        return _newer(pin.text, known)
    return TargetRelease((), f"{pin.text}: no release the catalog knows is in it; the newest rules")


def _nightly(pin: Pin, known: Sequence[str]) -> TargetRelease:
    """A nightly image of day ``pin.built``: built from sglang's main branch between two releases,
    it is judged by both and every known release between them (a finding fails on all of them)."""
    days = upload_days()
    lower, upper = releases_around(pin.built, days)
    if lower is None and upper is None:
        return TargetRelease((), f"{pin.text}: a nightly of {pin.built}, and no release dates to place it; "
                                 "the newest rules")
    ends = " and ".join(f"{end} ({days[end]})" for end in (lower, upper) if end)
    reason = f"{pin.text}: a nightly of {pin.built}, {'between' if lower and upper else 'next to'} sglang {ends}"
    if known and (upper is None or _key(upper) > _key(known[-1])) and (lower is None or _key(lower) >= _key(known[-1])):
        return _newer(reason, known)
    span = [release for release in known if (lower is None or _key(lower) <= _key(release))
            and (upper is None or _key(release) <= _key(upper))]
    releases = {end for end in (lower, upper) if end and (not known or _key(end) < _key(known[0]))} | set(span)
    return TargetRelease(tuple(sorted(releases, key=version_key)), reason)


def _resolve_pins(pins: Sequence[Pin], known: Sequence[str]) -> TargetRelease:
    """A folder's pins together: every release any of them allows (a project installable on
    several releases is judged by what fails on all of them)."""
    targets = [_resolve(pin, known) for pin in pins]
    if len(targets) == 1:
        return targets[0]
    releases = tuple(sorted({r for t in targets for r in t.releases}, key=version_key))
    if all(t.newer_than_catalog for t in targets):
        return _newer("; ".join(pin.text for pin in pins), known)
    return TargetRelease(releases, "; ".join(t.reason for t in targets))
