from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECT = re.compile(r"#\s*expect:\s*(.+)$")
EXPECT_ITEM = re.compile(r"^(SGL[0-9]{3})@([0-9]+)$")

sys.path.insert(0, str(ROOT / "scripts"))


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("SGL*.py"))


def expected_findings(path: Path) -> set[tuple[int, int, str]]:
    """(line, 1-based column, code) for every ``# expect: CODE@COL`` annotation."""
    expected = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if not match:
            continue
        for item in match.group(1).split(","):
            parsed = EXPECT_ITEM.match(item.strip())
            assert parsed, f"{path.name}:{number}: bad annotation {item!r}"
            expected.add((number, int(parsed.group(2)), parsed.group(1)))
    return expected


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="session", autouse=True)
def private_result_cache(tmp_path_factory):
    """The command's result cache goes to a folder of this test session, never the user's."""
    os.environ["SGLANG_LINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("result-cache"))


@pytest.fixture(scope="session")
def sglang_tree() -> Path:
    """sglang 0.5.23's unpacked wheel, fetched through pip once and cached."""
    import sglang_corpus

    return sglang_corpus.fetch_tree()
