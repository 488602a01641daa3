"""The day each sglang release reached PyPI (``rules/derived/release_dates.toml``), which dates a
nightly image (``lmsysorg/sglang:nightly-dev-20251215-<sha>``) between two releases
(catalog/release_dates.py reads the table).

The dates are read from the package index's JSON listing (PEP 691, with PEP 700's
``upload-time`` of every file) through pip's own HTTP session, so pip's proxy, certificates and
retries apply: a release's day is the day (UTC) its first file was uploaded. Written by
``sglang-lint catalog derive --releases ...`` beside the other tables, or alone with
``python -m sglang_lint.derive.releases.dates [RULES_DIR]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sglang_lint.catalog.release_dates import TABLE, UPLOADED
from sglang_lint.catalog.rules import version_key
from sglang_lint.core.places import default_rules_dir
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.sites.writing import DERIVED_DIR

INDEX = "https://pypi.org/simple/"
JSON_LISTING = "application/vnd.pypi.simple.v1+json"
_DAY = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})T")


def upload_dates(project: str = "sglang", index: str = INDEX) -> dict[str, str]:
    """release -> its first upload's day, ``YYYY-MM-DD``, from the index (through pip)."""
    from pip._internal.network.session import PipSession  # (pip's own session: its config applies)

    with PipSession() as session:
        response = session.get(f"{index.rstrip('/')}/{project}/", headers={"Accept": JSON_LISTING}, timeout=60)
        response.raise_for_status()
        return dates_in_listing(response.json(), project)


def dates_in_listing(listing: dict, project: str = "sglang") -> dict[str, str]:
    """release -> the day of its earliest file in a PEP 691 listing (files without an upload
    time, or whose name is not ``<project>-<release>`` as a wheel or a source archive, are
    left out), oldest release first."""
    name = re.escape(project.replace("-", "_")).replace("_", "[-_]")
    release = re.compile(rf"^{name}-([0-9][0-9A-Za-z.!+]*?)(?:-[^-]+-[^-]+-[^-]+\.whl|\.tar\.gz|\.zip)$", re.I)
    days: dict[str, str] = {}
    for entry in listing.get("files", ()):
        named = release.match(str(entry.get("filename", "")))
        day = _DAY.match(str(entry.get("upload-time") or ""))
        if named and day:
            version = named.group(1).lower()
            days[version] = min(days.get(version, day.group(1)), day.group(1))
    return {v: days[v] for v in sorted(days, key=version_key)}


def release_dates_text(days: dict[str, str]) -> str:
    lines = [
        GENERATED_MARK,
        "# The day (UTC) each sglang release's first file was uploaded to PyPI, as the index's JSON",
        "# listing (PEP 691/700) gives it through pip. A nightly image is dated by its tag and judged",
        "# against the releases around that day (catalog/release_dates.py).",
        f"[{UPLOADED}]",
    ]
    lines += [f"{toml_string(release)} = {toml_string(day)}" for release, day in days.items()]
    return "\n".join(lines) + "\n"


def write_release_dates(rules: Path, days: dict[str, str] | None = None) -> Path:
    """derived/release_dates.toml, from ``days`` (None: read from the index now)."""
    path = rules / DERIVED_DIR / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(release_dates_text(upload_dates() if days is None else days), encoding="utf-8")
    return path


if __name__ == "__main__":  # pragma: no cover - a maintainer's refresh of the one table
    print(write_release_dates(Path(sys.argv[1]) if len(sys.argv) > 1 else default_rules_dir()))
