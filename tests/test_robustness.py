"""Never crash, never lose a line: a crashing rule inside a real flake8, deriving rules never
imports sglang, and a ``--fix`` killed in the middle leaves every file whole."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from conftest import FIX_FIXTURES, ROOT, env_with_a_crashing_check
from snippets import DFLASH_NONE, SGL001_AND_SGL004

TREE = Path(__file__).resolve().parent / "derive_tree"
TWO_RULES = SGL001_AND_SGL004 + DFLASH_NONE


def test_a_crashing_rule_inside_flake8(tmp_path: Path):
    # A sitecustomize makes SGL004's check raise inside the flake8 process (and its workers).
    env = env_with_a_crashing_check(tmp_path)
    (tmp_path / "a.py").write_text(TWO_RULES)
    (tmp_path / "b.py").write_text(TWO_RULES)
    (tmp_path / "c.py").write_text("import os\n")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "SGL,F", "-j", "2", "a.py", "b.py", "c.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300,
    )
    lines = sorted(result.stdout.splitlines())
    assert result.returncode == 1 and "Traceback" not in result.stderr
    for name in ("a.py", "b.py"):
        mine = [line for line in lines if line.startswith(name)]
        codes = [line.split()[1] for line in mine if " SGL" in line]
        assert codes == ["SGL900", "SGL001"]  # once per file, and the other rule still runs
        assert "rule SGL004 crashed on this file (RuntimeError: boom)" in mine[0]
    assert any(line.startswith("c.py") and " F401 " in line for line in lines)  # flake8 went on


def test_deriving_rules_never_imports_sglang(tmp_path: Path):
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    marker = tmp_path / "imported"
    (tree / "sglang" / "side_effect.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n\n\n"
        "def pick(mode):\n"
        "    if mode not in ('a', 'b'):\n"
        "        raise ValueError(f'bad mode {mode}')\n"
    )
    (tree / "sglang" / "__init__.py").write_text(
        (tree / "sglang" / "__init__.py").read_text() + f"\nopen({str(marker)!r}, 'w').close()\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "sglang_lint", "catalog", "derive", "--sglang", str(tree), "--rules",
         str(tmp_path / "rules")],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "pick" in "".join(p.read_text() for p in (tmp_path / "rules" / "derived").glob("SGL*.toml"))
    assert not marker.exists()


def test_fix_killed_midway_leaves_every_file_whole(tmp_path: Path):
    source = FIX_FIXTURES / "SGL003_unsupported_gdn_backend_crlf.py"
    fixed = source.with_name(source.stem + ".fixed.py").read_bytes()
    original = source.read_bytes()
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(100):
        path = folder / f"m{index:03d}.py"
        path.write_bytes(original)
        os.chmod(path, 0o640)
    process = subprocess.Popen(
        [sys.executable, "-m", "sglang_lint", "--no-cache", "--fix", "-j", "1", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline:  # kill it once some files are fixed and others are not
        if sum(p.read_bytes() == fixed for p in folder.glob("*.py")) >= 5:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    states = [p.read_bytes() for p in sorted(folder.glob("*.py"))]
    assert len(states) == 100
    assert all(state in (original, fixed) for state in states)  # never half written
    assert 0 < states.count(fixed)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o640 for p in folder.glob("*.py"))
    leftovers = [p.name for p in folder.iterdir() if not p.name.endswith(".py")]
    assert all(name.startswith(".m") and name.endswith(".sglang-lint-fix") for name in leftovers)
    # A second run finishes the job; what the kill left behind is never linted.
    subprocess.run([sys.executable, "-m", "sglang_lint", "--no-cache", "--fix", str(folder)], capture_output=True)
    assert all(p.read_bytes() == fixed for p in folder.glob("*.py"))
    assert ROOT.exists()
