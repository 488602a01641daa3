#!/usr/bin/env python3
"""How long the launch-text scanners take on 1 MB of pathological text (the shapes of
tests/test_launch_text.py's PATHOLOGICAL table: deep nesting, long quotes, many keys, binary).

    python bench/pathological.py [--size BYTES] [--runs N]

The suite asserts that the scanners run a number of Python lines linear in the text; a slow C
call (a regular expression backtracking) runs none, so its time is measured here: the median
and the slowest of ``--runs`` runs per shape, slowest shape first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_launch_text import PATHOLOGICAL, _scan  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for name, make in sorted(PATHOLOGICAL.items()):
        text = make(args.size)
        times = []
        for _ in range(args.runs):
            began = time.perf_counter()
            _scan(text)
            times.append(time.perf_counter() - began)
        rows.append((max(times), statistics.median(times), name))
    for slowest, median, name in sorted(rows, reverse=True):
        print(f"{name:24s} median {median:7.3f} s   slowest {slowest:7.3f} s")


if __name__ == "__main__":
    main()
