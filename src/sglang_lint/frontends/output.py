"""The command's output formats: ``text`` (flake8's), ``json``, ``sarif`` (2.1.0, for GitHub
code scanning and other SARIF viewers) and ``github`` (workflow commands that annotate a
pull request). Columns are 1-based everywhere, counted in characters."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import PurePath
from typing import Iterable, Sequence

from sglang_lint.core.version import __version__

FORMATS = ("text", "json", "sarif", "github")
FORMAT_SPELLINGS = {"concise": "text"}  # ruff's name of the one-line-per-finding format
HOMEPAGE = "https://pypi.org/project/sglang-lint/"


def text(path: str, diagnostic) -> str:
    return diagnostic.format(path)


def _fix(diagnostic) -> dict | None:
    edit = diagnostic.fix
    if edit is None:
        return None
    return {
        "applicability": "safe" if edit.safe else "unsafe",
        "old": edit.old,
        "new": edit.new,
        "line": edit.line,
        "column": edit.col + 1,
        "end_line": edit.end_line,
        "end_column": edit.end_col + 1,
    }


def json_objects(findings: Iterable[tuple[str, object]]) -> list[dict]:
    return [
        {
            "path": path,
            "line": d.line,
            "column": d.col + 1,
            "end_line": d.end_line,
            "end_column": d.end_col + 1,
            "code": d.code,
            "severity": d.severity,
            "message": d.message,
            "fix": _fix(d),
        }
        for path, d in findings
    ]


def render_json(findings: Sequence[tuple[str, object]]) -> str:
    return json.dumps(json_objects(findings), indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    return PurePath(path).as_posix().removeprefix("./")


def _rule_metadata(rule) -> dict:
    docs = rule.docs
    help_markdown = (
        f"{docs.why.strip()}\n\n**Bad**\n\n```python\n{docs.bad.strip()}\n```\n\n"
        f"**Good**\n\n```python\n{docs.good.strip()}\n```\n"
    )
    if docs.fix:
        help_markdown += f"\n**Fix**: {docs.fix.strip()}\n"
    site = rule.raise_site
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": docs.why.strip()},
        "help": {"text": docs.why.strip(), "markdown": help_markdown},
        "defaultConfiguration": {"level": rule.severity},
        "properties": {
            "tags": ["sglang", "correctness"],
            "raise_site": f"{site.module}.{site.function} ({site.exception}, sglang {site.sglang_version})",
            "fix": rule.fix_safety or "none",
        },
    }


def render_sarif(findings: Sequence[tuple[str, object]], rules: Iterable) -> str:
    """One run; the rules reported are described (title, why, examples, fix safety)."""
    by_code = {rule.code: rule for rule in rules}
    reported = sorted({d.code for _, d in findings})
    described = [code for code in reported if code in by_code]
    index = {code: number for number, code in enumerate(described)}
    results = []
    for path, d in findings:
        result = {
            "ruleId": d.code,
            "level": d.severity,
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.col + 1,
                            "endLine": d.end_line or d.line,
                            "endColumn": (d.end_col or d.col) + 1,
                        },
                    }
                }
            ],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.fix is not None:
            edit = d.fix
            result["fixes"] = [
                {
                    "description": {"text": f"{edit.old} -> {edit.new} ({'safe' if edit.safe else 'unsafe'})"},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": edit.line,
                                        "startColumn": edit.col + 1,
                                        "endLine": edit.end_line,
                                        "endColumn": edit.end_col + 1,
                                    },
                                    "insertedContent": {"text": edit.new},
                                }
                            ],
                        }
                    ],
                }
            ]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sglang-lint",
                        "version": __version__,
                        "informationUri": HOMEPAGE,
                        "rules": [_rule_metadata(by_code[code]) for code in described],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(path: str, d) -> str:
    """A workflow command: GitHub shows it on the line of the pull request's diff."""
    properties = (
        f"file={_escape_property(_uri(path))},line={d.line},col={d.col + 1},"
        f"endLine={d.end_line or d.line},endColumn={(d.end_col or d.col) + 1},title={_escape_property(d.code)}"
    )
    return f"::{d.severity} {properties}::{_escape_data(f'{d.code} {d.message}')}"


def statistics(findings: Iterable[tuple[str, object]], rules: Iterable) -> list[str]:
    """``count  CODE  name`` lines, most frequent first (as ``flake8 --statistics``)."""
    names = {rule.code: rule.name for rule in rules}
    counts = Counter(d.code for _, d in findings)
    return [f"{count:<6} {code}  {names.get(code, '')}".rstrip() for code, count in sorted(
        counts.items(), key=lambda item: (-item[1], item[0])
    )]
