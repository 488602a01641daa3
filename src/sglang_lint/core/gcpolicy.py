"""How the garbage collector runs while sglang-lint works (a leaf: the engine and the catalog
reader use it)."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def few_collections():
    """The garbage collector's thresholds raised while a file is screened, parsed and analysed
    (or the catalog read), then put back. A LibCST tree is hundreds of thousands of objects
    and holds almost no cycles; at Python's default (a collection every 700 allocations) the
    collector scanned them again and again, about a third of the time of a file LibCST parses,
    to free nothing: on 472 files of sglang's tree 17.7 s became 11.3 s, peak memory the same."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 100_000), max(before[1], 50), max(before[2], 1_000))
    try:
        yield
    finally:
        gc.set_threshold(*before)


def keep_for_good(collect: bool = True) -> None:
    """Take every object alive now out of the collector's sight (``gc.freeze``): called once
    the rules are read, some million objects that live as long as the process. Each full
    collection scanned them again: about 5 ms a file in the flake8 plugin, where the
    thresholds go back to flake8's own after each file. Forked workers also keep sharing
    their pages (the collector writes to the headers of the objects it scans).

    A collection first: garbage in cycles that is waiting for one (a flake8 worker's, of the
    files it has checked) would otherwise be frozen with the rules and never freed. Without
    it a flake8 process freezing as its rules grew held 639 MB and ran 2.5 times as long on a
    quarter of sglang's tree (137 MB with it). ``collect=False`` where nothing has been
    linted yet (the command, before its files): a full collection there costs a tenth of a
    second of a short run, to free what the imports left."""
    if collect:
        gc.collect()
    gc.freeze()
