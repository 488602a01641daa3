"""The sglang release a project's container images and setup scripts name, for a project that
pins sglang only there (catalog/target.py reads these after the pip pins).

In one folder (:func:`folder_releases`), and in its ``docker``, ``scripts``, ``deploy``,
``deployment``, ``k8s``, ``kubernetes``, ``manifests`` and ``.github/workflows`` folders:

* Dockerfiles (``Dockerfile``, ``Containerfile``, ``*.Dockerfile``, ``Dockerfile.*``): the image
  of each ``FROM`` (``--platform=...`` and ``AS name`` allowed), with the defaults of the ``ARG``s
  before the first ``FROM`` put in (``FROM lmsysorg/sglang:v${SGLANG_VERSION}``);
* YAML (Compose, Kubernetes, CI): the value of an ``image:``, ``container:`` or ``uses:`` key
  (``docker://`` dropped; ``${TAG:-v0.5.4}`` gives its default);
* shell scripts (``*.sh``, ``*.bash``): ``SGLANG_VERSION=`` / ``SGLANG_TAG=`` assignments (also
  after ``export``, ``readonly``, ``declare``, ``local``, ``env``) and image words
  (``docker run lmsysorg/sglang:v0.5.4 ...``), with the script's earlier assignments put in.

Only ``lmsysorg/sglang`` images count. A tag names a release (``v0.5.4``, ``v0.5.4-cu126``,
``v0.5.4.post1``, ``v0.5.5rc0``), or the day of a build from sglang's main branch
(``nightly-dev-20251215-1a2b3c4d``, ``nightly-dev-cu13-20260511-044bb88a``: catalog/target.py
judges it by the releases around that day), or neither (``latest``, ``dev``, ``dev-cu13``, no tag,
a bare digest): :func:`file_images` reports those too, for a file's own images; a folder's are
only those that name a release or a day. A value with a variable this reading does not know is
no image. Nothing is run or imported: files are read as text, each one's first
:data:`MAX_BYTES` bytes, at most :data:`MAX_FILES` files a folder (Dockerfiles first, then
Compose files, scripts, other YAML), and only those naming sglang are parsed.
"""

from __future__ import annotations

import bisect
import datetime
import os
import re
from typing import Iterator, NamedTuple, Optional

from sglang_lint.core.files import read_regular
from sglang_lint.launch.shell_split import shell_words

SUBFOLDERS = ("docker", "scripts", "deploy", "deployment", "k8s", "kubernetes", "manifests",
              os.path.join(".github", "workflows"))
MAX_FILES = 24  # read in one folder of the walk (with its SUBFOLDERS)
MAX_BYTES = 256 * 1024  # read of one file: enough for any Dockerfile, manifest or setup script
VARIABLES = ("SGLANG_VERSION", "SGLANG_TAG")
DECLARERS = frozenset({"export", "readonly", "declare", "typeset", "local", "env"})

_IMAGE = re.compile(r"(?:(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)/)?lmsysorg/sglang"
                    r"(?::([\w][\w.-]*))?(?:@sha256:[0-9a-f]+)?")
# A tag that names a release: the release, then a build's suffix (v0.5.4.post1-cu126-amd64).
_TAG_RELEASE = re.compile(r"v?([0-9]+\.[0-9]+\.[0-9]+(?:\.?(?:post|rc|a|b|dev)[0-9]+)?)(?:-[\w.-]*)?", re.I)
# A build of main: nightly-dev-20251215-<sha>, nightly-dev-cu13-20260511-<sha>, dev-20250820.
_BUILD_DAY = re.compile(r"(?:nightly|dev)(?:-[\w.]+)*?-([0-9]{4})([0-9]{2})([0-9]{2})(?:-[\w.-]*)?", re.I)
_EXPANSION = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?:(:?[-=])([^{}$]*))?\}|([A-Za-z_]\w*))")
_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)=(.*)", re.S)
_YAML_IMAGE = re.compile(r"^[ \t]*(?:-[ \t]+)*([\"']?)(?:image|container|uses)\1[ \t]*:[ \t]+"
                         r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s#]\S*))", re.M)
# What a file must hold to name an image or a version variable: sglang's images are lmsysorg's
# (the launch scripts of a project mention sglang everywhere; few name its image).
_MAY_NAME_ONE = re.compile(rb"lmsysorg|SGLANG_VERSION|SGLANG_TAG")


class NamedRelease(NamedTuple):
    text: str  # as reported: "the image lmsysorg/sglang:v0.5.4-cu126", "SGLANG_VERSION=0.5.4"
    release: str  # "0.5.4"; "" for a tag that names no release
    where: str  # "/path/Dockerfile:3"
    built: str = ""  # a nightly's day, "2025-12-15" (its tag names no release)


def tag_release(tag: str) -> Optional[str]:
    """The release a tag or a version variable's value names (``v0.5.4-cu126``: 0.5.4), or None."""
    match = _TAG_RELEASE.fullmatch(tag.strip())
    return match.group(1).lower() if match else None


def build_day(tag: str) -> str:
    """The day a nightly or dev tag was built, ``YYYY-MM-DD`` (``nightly-dev-20251215-1a2b3c4d``:
    2025-12-15), or "" (no full date in it: ``dev``, ``nightly-dev-cu13``, ``dev-nightly-0820``)."""
    match = _BUILD_DAY.fullmatch(tag.strip())
    if match is None:
        return ""
    try:
        return datetime.date(*map(int, match.group(1, 2, 3))).isoformat()
    except ValueError:  # 20251315
        return ""


def image_release(reference: str) -> Optional[str]:
    """The release an ``lmsysorg/sglang`` image reference's tag names, or None (another image, no
    tag, a tag that names no release)."""
    match = _IMAGE.fullmatch(reference.strip())
    return tag_release(match.group(1)) if match and match.group(1) else None


def expand(text: str, variables: dict[str, str]) -> Optional[str]:
    """``text`` with ``$X``, ``${X}``, ``${X:-default}``, ``${X-default}``, ``${X:=default}`` put in
    from ``variables``; None when it holds any other expansion or a variable without a value."""
    unknown = False

    def value(match: re.Match) -> str:
        nonlocal unknown
        name, operator = match.group(1) or match.group(4), match.group(2) or ""
        if name in variables and (variables[name] or not operator.startswith(":")):
            return variables[name]
        if operator:
            return match.group(3)
        unknown = True
        return ""

    out = _EXPANSION.sub(value, text)
    return None if unknown or "$" in out or "`" in out else out


def folder_releases(folder: str) -> tuple[NamedRelease, ...]:
    """The releases and nightly days the images and scripts of this folder (and its SUBFOLDERS)
    name, each file's first mention of each."""
    return tuple(named for _, path in _candidates(folder)[:MAX_FILES] for named in file_images(path)
                 if named.release or named.built)


def file_images(path: str) -> tuple[NamedRelease, ...]:
    """The sglang images (and version variables) one Dockerfile, YAML file or shell script names,
    each tag's first mention, those naming no release or day included; () for any other file."""
    kind = _kind(os.path.basename(path))
    text = _read(path) if kind is not None else None
    if text is None:
        return ()
    reader = _dockerfile if kind == "dockerfile" else _shell if kind == "shell" else _yaml
    found: dict[tuple[str, str], NamedRelease] = {}
    for line, text_of, release, built in reader(text):
        key = (release, built) if release or built else ("", text_of)
        found.setdefault(key, NamedRelease(text_of, release, f"{path}:{line}", built))
    return tuple(found.values())


def _kind(name: str) -> Optional[str]:
    lower = name.lower()
    if lower in ("dockerfile", "containerfile") or lower.endswith(".dockerfile") or lower.startswith("dockerfile."):
        return "dockerfile"
    if lower.endswith((".sh", ".bash")):
        return "shell"
    if lower.endswith((".yaml", ".yml")):
        return "compose" if lower.startswith(("compose", "docker-compose")) else "yaml"
    return None


_ORDER = {"dockerfile": 0, "compose": 1, "shell": 2, "yaml": 3}


def _candidates(folder: str) -> list[tuple[tuple, str]]:
    """(order, path) of the files of ``folder`` and its SUBFOLDERS that may name a release, in the
    order they are read."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    listed = set(names)
    places = [(folder, names)]
    for sub in SUBFOLDERS:
        if sub.split(os.sep, 1)[0] in listed:
            try:
                places.append((os.path.join(folder, sub), os.listdir(os.path.join(folder, sub))))
            except OSError:  # not a folder
                pass
    found = []
    for depth, (place, entries) in enumerate(places):
        for name in entries:
            kind = _kind(name)
            if kind is not None:
                found.append(((_ORDER[kind], depth, name), os.path.join(place, name)))
    return sorted(found)


def _read(path: str) -> Optional[str]:
    """The start of a text file that may name an image, or None (unreadable, binary, or no mention)."""
    try:
        data = read_regular(path, MAX_BYTES)
    except OSError:
        return None
    if b"\0" in data or not _MAY_NAME_ONE.search(data):
        return None
    return data.decode("utf-8", errors="replace")


def _image(reference: Optional[str]) -> Optional[tuple[str, str, str]]:
    """(text, release, day built) of an ``lmsysorg/sglang`` image, release and day "" when its tag
    names neither; None for another image."""
    match = _IMAGE.fullmatch(reference.strip()) if reference is not None else None
    if match is None:
        return None
    tag = match.group(1) or ""
    release = tag_release(tag) if tag else None
    return f"the image {reference}", release or "", "" if release else build_day(tag)


def _dockerfile(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, text, release, day built) of each FROM naming an sglang image."""
    variables: dict[str, str] = {}
    seen_from = False
    for line, content in _logical_lines(text):
        instruction, rest = (content.split(None, 1) + ["", ""])[:2]
        instruction = instruction.upper()
        if instruction == "ARG" and not seen_from:  # only these reach a FROM
            for word in rest.split():
                name, equals, value = word.partition("=")
                value = expand(value.strip("\"'"), variables) if equals else None
                if value is not None:
                    variables[name] = value
        elif instruction == "FROM":
            seen_from = True
            words = [w for w in rest.split() if not w.startswith("--")]
            found = _image(expand(words[0], variables)) if words else None
            if found:
                yield (line, *found)


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """A Dockerfile's instructions: (first line, text) with continuation lines joined and comment
    lines left out."""
    start, parts = 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        start = start or number
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            parts.append(stripped[:-1])
            continue
        parts.append(line)
        yield start, " ".join(parts)
        start, parts = 0, []
    if parts:
        yield start, " ".join(parts)


def _yaml(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, text, release, day built) of each ``image:``/``container:``/``uses:`` naming an
    sglang image."""
    for match in _YAML_IMAGE.finditer(text):
        value = next(v for v in match.group(2, 3, 4) if v is not None).strip()
        found = _image(expand(value.removeprefix("docker://"), {}))
        if found:
            yield (text.count("\n", 0, match.start()) + 1, *found)


def _shell(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, text, release, day built) of each SGLANG_VERSION/SGLANG_TAG assignment naming a
    release and each image word naming an sglang image, read in order with the script's
    assignments put in."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    variables: dict[str, str] = {}
    for command in shell_words(text):
        declaring = True  # the leading assignments, and those after export, env, ...
        for word in command:
            line = bisect.bisect_right(starts, word.start)
            assignment = _ASSIGNMENT.fullmatch(word.text) if declaring else None
            if assignment is None:
                declaring = word.text in DECLARERS or (declaring and word.text.startswith("-"))  # declare -x
                found = _image(expand(word.text, variables))
                if found:
                    yield (line, *found)
                continue
            name, value = assignment.group(1), expand(assignment.group(2), variables)
            if value is None:
                variables.pop(name, None)
                continue
            variables[name] = value
            release = tag_release(value) if name in VARIABLES else None
            found = (f"{name}={value}", release, "") if release else _image(value)
            if found:
                yield (line, *found)
