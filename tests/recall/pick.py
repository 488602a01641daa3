"""The recall benchmark's candidates: sglang 0.5.23's raise sites that have no rule, in a fixed random order.

Every raise site :func:`sglang_lint.derive.sites.raise_sites.derive_sites` finds in 0.5.23 and skips
(``skipped`` set: no rule was made from it) is sorted by a stable key, then shuffled with
``random.Random(17)``. The cases in ``tests/recall/cases/NNN_*.py`` take these candidates in this
order (NNN is the position printed here).

    python tests/recall/pick.py [--limit N] [--sglang DIR]

The pool depends on the deriver that is imported: the cases were picked with the deriver of commit 7e36fa9
(5549 sites, 5220 skipped). Once the deriver improves, sites that became rules leave the pool and the order
changes; ``picked.txt`` keeps the list the cases were taken from. To print it again from the old deriver:

    git archive 7e36fa9 src | tar -x -C /tmp/deriver-7e36fa9
    PYTHONPATH=/tmp/deriver-7e36fa9/src .venv/bin/python tests/recall/pick.py --limit 150
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

SEED = 17
DEFAULT_SGLANG = Path.home() / ".cache" / "sglang-lint" / "sglang-0.5.23"


def candidates(sglang: Path = DEFAULT_SGLANG) -> list:
    """The skipped raise sites of the tree at ``sglang``, in the benchmark's order."""
    from sglang_lint.derive.sites.raise_sites import derive_sites

    derivation = derive_sites(sglang, index_raises=True)
    pool = [site for site in derivation.sites if site.skipped is not None]
    pool.sort(key=lambda s: (s.module, s.function, s.line, s.parameter or "", s.exception, s.message, s.skipped))
    random.Random(SEED).shuffle(pool)
    return pool


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="print only the first N candidates")
    parser.add_argument("--sglang", type=Path, default=DEFAULT_SGLANG, help="the unpacked sglang 0.5.23 tree")
    args = parser.parse_args(argv)
    import sglang_lint

    pool = candidates(args.sglang)
    print(f"# seed {SEED}; {len(pool)} skipped raise sites; deriver {Path(sglang_lint.__file__).parent}")
    for number, site in enumerate(pool[:args.limit] if args.limit is not None else pool, start=1):
        message = " ".join(site.message.split())
        print(f"{number:03d}\t{site.skipped}\t{site.module}\t{site.function}\t{site.parameter}\t"
              f"line {site.line}\t{site.exception}: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
