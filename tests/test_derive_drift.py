"""`catalog verify` finds exactly the drift planted in a copy of sglang 0.5.23: one allowed
value added at a raise site and one raise site deleted. A file of its own because deriving the
copy takes minutes: another worker runs it while test_derive.py derives 0.5.23 itself (whose
shipped catalog this file reads, so the two agree when the catalog has no drift)."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import ROOT
from sglang_lint.derive.sites.drift import verify
from sglang_lint.derive.sites.raise_sites import derive_to_verify
from sglang_lint.engine.ruletable import load_rules


@pytest.mark.corpus
def test_exactly_the_planted_drift(tmp_path, sglang_tree):
    rules = list(load_rules([ROOT / "rules"]))
    # A copy (links, and real files for the two changed ones) with one allowed value added
    # at a raise site and one raise site deleted.
    copy = tmp_path / "tree"
    shutil.copytree(sglang_tree / "sglang", copy / "sglang", copy_function=os.link)
    serving = copy / "sglang" / "benchmark" / "serving.py"
    refiner = copy / "sglang" / "multimodal_gen" / "runtime" / "pipelines_core" / "stages" / (
        "model_specific_stages/sana_wm/streaming_refiner.py"
    )
    for path, old, new in (
        (serving, '"truss": async_request_truss,\n', '"truss": async_request_truss,\n    "sglang-grpc": None,\n'),
        (refiner, 'raise ValueError(f"unsupported capture mode: {mode}")', "return"),
    ):
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1
        path.unlink()
        path.write_text(text.replace(old, new), encoding="utf-8")
    drift = verify(rules, derive_to_verify(copy))
    assert len(drift.missing) == 1 and drift.missing[0].startswith("SGL001 ")
    assert len(drift.changed) == 1 and "'truss', 'sglang-grpc')" in drift.changed[0], drift.changed
    assert drift.new == []
