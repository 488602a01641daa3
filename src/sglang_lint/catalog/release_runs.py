"""A merged table read against the releases a file is judged on. Its items record the runs of
releases that have them (``((since, until), ...)``, "" an open end); from them: whether a
release has an item (:func:`in_runs`), an item's whole life as one span (:func:`life`), the
name of the judged releases in a message (:func:`named`), and the words that say an item came
or went (:func:`change`). :class:`JudgedReleases` gives a table of the checks the releases it
is judged against."""

from __future__ import annotations

import dataclasses

from sglang_lint.catalog.rules import in_releases, version_key

Runs = tuple  # ((since, until), ...): "" leaves an end open
EVERY_RELEASE = ("", "")  # a span (since, until) with neither end: every release


def in_runs(runs: Runs, release: str) -> bool:
    return any(in_releases(since, until, release) for since, until in runs)


def life(runs) -> tuple[str, str]:
    """From the first release of the runs to the first after the last ("" an open end); no
    runs: EVERY_RELEASE (nothing came or went)."""
    if not runs:
        return EVERY_RELEASE
    sinces, untils = [s for s, _ in runs], [u for _, u in runs]
    since = "" if "" in sinces else min(sinces, key=version_key)
    until = "" if "" in untils else max(untils, key=version_key)
    return since, until


def named(releases) -> str:
    """The judged releases (oldest first) as a message names them: ``0.5.1``, ``0.5.1..0.5.9``."""
    return releases[0] if len(releases) == 1 else f"{releases[0]}..{releases[-1]}"


def change(span: tuple, judged) -> str:
    """`` (removed in sglang X)`` / `` (added in sglang X)`` for an item of ``span`` (its life)
    that every judged release lacks, the newer ones for having come after it went, the older
    for coming before it; "" otherwise."""
    since, until = span
    if until and all(version_key(r) >= version_key(until) for r in judged):
        return f" (removed in sglang {until})"
    if since and all(version_key(r) < version_key(since) for r in judged):
        return f" (added in sglang {since})"
    return ""


class JudgedReleases:
    """For a frozen dataclass table with ``releases`` (every release it records, oldest first)
    and ``judged`` (those a file is judged against, oldest first; empty: the newest)."""

    releases: tuple
    judged: tuple

    def for_releases(self, releases):
        return dataclasses.replace(self, judged=tuple(sorted(releases, key=version_key)))

    @property
    def targets(self) -> tuple:
        return self.judged or self.releases[-1:]

    @property
    def version(self) -> str:
        return named(self.targets)

    def runs_change(self, runs) -> str:
        """When an item of these runs came or went, where the judged releases lack it."""
        return change(life(runs), self.targets)
