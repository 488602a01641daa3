"""A derive run finds a tree's keyword launchers once: the raise-site derivation finds them and
the public API's table is handed them (derive/api/table.py ``launchers``), not read again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import lint_in_process
from sglang_lint.derive.api import surface, table
from sglang_lint.derive.server_args.keyword_launchers import keyword_launchers
from sglang_lint.derive.sites import raise_sites
from sglang_lint.derive.source.tree import LazyTree
from test_derive import TREE

RUNTIME = '''
from sglang.srt.server_args import ServerArgs


class Runtime:
    def __init__(self, log_level="error", **kwargs):
        self.server_args = ServerArgs(log_level=log_level, **kwargs)
'''


@pytest.fixture()
def tree(tmp_path) -> Path:
    """The test tree with a class whose ``**`` keywords build ServerArgs."""
    root = tmp_path / "tree"
    shutil.copytree(TREE, root)
    (root / "sglang" / "runtime.py").write_text(RUNTIME, encoding="utf-8")
    return root


def _counted(monkeypatch) -> list:
    """One item for each time the derive modules find a tree's keyword launchers."""
    trees = []

    def counting(tree):
        trees.append(tree)
        return keyword_launchers(tree)

    monkeypatch.setattr(raise_sites, "keyword_launchers", counting)
    monkeypatch.setattr(surface, "keyword_launchers", counting)
    return trees


def test_catalog_derive_finds_the_keyword_launchers_once(tree, tmp_path, monkeypatch):
    trees = _counted(monkeypatch)
    rules = tmp_path / "rules"
    done = lint_in_process("catalog", "derive", "--sglang", str(tree), "--rules", str(rules))
    assert done.returncode == 0, done.stderr
    assert len(trees) == 1
    assert 'class = "sglang.runtime.Runtime"' in (rules / "derived" / "launchers.toml").read_text(encoding="utf-8")


def test_the_api_table_of_releases_takes_the_launchers_found(tree, tmp_path, monkeypatch):
    """`catalog derive --releases`: the newest release's launchers, found by the raise-site
    derivation, make its surface; another release's are found from its tree."""
    trees = _counted(monkeypatch)
    monkeypatch.setattr(table, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(table, "fetch_tree", lambda version: tree)
    found = keyword_launchers(LazyTree(tree))
    assert [launcher.name for launcher in found] == ["sglang.runtime.Runtime"]
    table.write_api(tmp_path, ["9.9.8", "9.9.9"], {"9.9.9": found})
    assert len(trees) == 1  # 9.9.8's alone
    text = (tmp_path / "derived" / table.TABLE).read_text(encoding="utf-8")
    assert text == table.api_text({r: surface.tree_surface(LazyTree(tree), found) for r in ("9.9.8", "9.9.9")})
    assert "sglang.runtime.Runtime" in text
