"""The held-out set of mistakes in calls of sglang's Python API (tests/api/): drawn with a fixed
seed from every surface (Engine methods, classes whose keywords build ServerArgs, launch and
test helpers, the frontend, sampling parameters, registries) by api_heldout.py, each bad call
and its good twin confirmed by making the call for real in its release (api_harness.py).

- the data is well formed: at least 30 cases, every release one the catalog knows, every
  surface drawn, each case's verdicts the ones that confirm it;
- (corpus) a sample of cases, made again through the harness, still confirm;
- what sglang-lint catches of the set today (api_measure.py): exact figures.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

API = Path(__file__).resolve().parent / "api"
sys.path.insert(0, str(API))

import api_heldout  # noqa: E402
import api_measure  # noqa: E402

from sglang_lint.frontends.indexes import rule_index  # noqa: E402

DATA = json.loads(api_heldout.HELDOUT.read_text(encoding="utf-8"))
CASES = DATA["cases"]


def test_the_set_is_well_formed():
    assert DATA["seed"] == 44 and len(CASES) >= 30
    assert [c["id"] for c in CASES] == [f"{i:03d}" for i in range(len(CASES))]
    assert {c["release"] for c in CASES} <= set(rule_index().releases)
    surfaces = Counter(c["surface"] for c in CASES)
    assert set(surfaces) <= {s[0] for s in api_heldout.SURFACES} and len(surfaces) >= 6
    assert min(surfaces[s] for s in ("Engine methods", "sampling parameters", "registries")) >= 5
    assert all(api_heldout.confirmed(c, c["verdicts"]) for c in CASES)


@pytest.mark.corpus
@pytest.mark.parametrize("case", [CASES[i] for i in (0, len(CASES) // 3, 2 * len(CASES) // 3, len(CASES) - 1)],
                         ids=lambda c: c["id"])
def test_a_sample_still_confirms(case):
    verdicts = api_heldout.confirm(case)
    assert api_heldout.confirmed(case, verdicts), verdicts


def test_what_sglang_lint_catches():
    result = api_measure.measure(CASES)
    assert len(result["caught"]) == len(CASES) == 50
    assert result["flagged"] == set()
