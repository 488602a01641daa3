"""The day each sglang release reached PyPI, and the releases a nightly build of a given day lies
between (catalog/target.py judges a ``lmsysorg/sglang:nightly-dev-20251215-<sha>`` image by them).

The days are data: ``rules/derived/release_dates.toml``, written by derive/releases/dates.py from
the package index's upload times. It is read only when a dated image is met.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Mapping, Optional

from sglang_lint.core.places import rules_folder
from sglang_lint.core.rulefile import tomllib
from sglang_lint.core.versions import version_key

TABLE = "release_dates.toml"  # in the catalog's derived/ folder
UPLOADED = "uploaded"  # its one table: release = "YYYY-MM-DD"


@lru_cache(maxsize=None)
def upload_days(path: Optional[str] = None) -> Mapping[str, str]:
    """release -> the day its first file reached PyPI (empty: no table, or a broken one)."""
    path = path or os.path.join(rules_folder(), "derived", TABLE)
    try:
        with open(path, "rb") as stream:
            table = tomllib.load(stream).get(UPLOADED)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {release: day for release, day in table.items() if isinstance(day, str)}


def releases_around(day: str, days: Mapping[str, str]) -> tuple[Optional[str], Optional[str]]:
    """(the newest release uploaded before ``day``, the oldest newer one uploaded after it), None
    where there is none. A nightly built that day from sglang's main branch holds the first's
    changes and some of the second's; a release uploaded on the day itself may be on either side
    of the build, so it is neither end (it lies between them). Pre-releases (``0.5.10rc0``) are
    no end: the catalog knows final releases, and the final after a pre-release holds its changes."""
    finals = {release: uploaded for release, uploaded in days.items() if version_key(release)[1] != 0}
    before = [release for release, uploaded in finals.items() if uploaded < day]
    lower = max(before, key=version_key) if before else None
    after = [release for release, uploaded in finals.items() if uploaded > day
             and (lower is None or version_key(release) > version_key(lower))]
    return lower, (min(after, key=version_key) if after else None)
