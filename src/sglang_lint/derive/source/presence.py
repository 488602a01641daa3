"""Where a thing is over sglang's releases, oldest first: the one range a field or flag is
present in (:func:`presence`), the runs of consecutive releases that have a thing
(:func:`presence_runs`), and those runs read back (:func:`in_runs`). Every table of the
catalog that spans releases writes its items' releases this way; a merged table is opened as
each release's facts by :func:`read_merged`, so that a release is added without deriving the
older ones again."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from sglang_lint.catalog.rules import version_key
from sglang_lint.core.rulefile import tomllib


Presence = tuple  # (since, until): the first release that has it, the first later one that has not


def presence(present: list[bool], releases: list[str]) -> Presence:
    """Where an item is, over ``releases`` (oldest first): ("", "") when in every one; the
    first release that has it ("" when the oldest does) and the first after its last
    appearance ("" when the newest has it). An item that leaves and comes back counts as
    there in between: never a finding where a release might accept it."""
    first = present.index(True)
    last = len(present) - 1 - present[::-1].index(True)
    since = releases[first] if first > 0 else ""
    until = releases[last + 1] if last + 1 < len(releases) else ""
    return since, until


def in_runs(runs, releases: list[str]) -> list[str]:
    """The releases of ``releases`` (in order) that recorded runs ``[[since, until], ...]``
    cover ("" leaves an end open): what :func:`presence_runs` wrote, read back."""
    found = []
    for since, until in runs:
        low = releases.index(since) if since else 0
        high = releases.index(until) if until else len(releases)
        found += releases[low:high]
    return found


def presence_runs(flags: list[bool], releases: list[str]) -> list[Presence]:
    """The runs of consecutive releases where ``flags`` is true, each as (since, until)."""
    runs, start = [], None
    for index, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            runs.append((releases[start] if start else "", releases[index] if index < len(releases) else ""))
            start = None
    return runs


def read_merged(path: Path, read: Callable[[dict, list[str]], dict], write: Callable[[dict], str],
                writer: str) -> dict | None:
    """Each release of the merged table at ``path`` (release -> its facts, oldest first), as
    ``read`` takes them from the table and the releases it lists; None where there is no table.
    ValueError where the table does not read back as itself, to the byte through ``write``
    (edited by hand, or written by another deriver): ``writer`` says what would have written it."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
        releases = list(data["releases"])
        per_release = read(data, releases)
    except (KeyError, ValueError, TypeError, SyntaxError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path} does not read back as its releases ({type(exc).__name__}: {exc})") from None
    if sorted(per_release, key=version_key) != releases or write(per_release) != text:
        raise ValueError(f"{path} is not what {writer}")
    return per_release
