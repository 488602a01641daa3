#!/usr/bin/env python3
"""What any pure-Python linter of sglang's tree pays before it judges a single call: the floors
that bench.py measures beside ``ruff check``, in the same run.

    python bench/floors.py {text,parse,parse-named} [-j N] FILE...

* ``text``: read every file and look in its text for a catalog name written as a rule's trigger
  needs it (``name(``, ``.name(``: the compiled rule index's text prefilter, catalog/index.py
  ``codes_for``): sglang-lint's first stage, which decides most files of a tree;
* ``parse``: read every file and parse it with :func:`ast.parse` (CPython's own parser, the
  cheapest parse a Python program has, about a tenth of LibCST's);
* ``parse-named``: ``parse`` for the files ``text`` keeps (those that name a catalog API): what
  reading each such file's ast, as the call-site screen's second look does at most, costs.

Files are spread over ``-j`` worker processes (fork) as sglang-lint spreads them. Prints how
many files each stage kept; the time is what the bench measures from outside.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import sys

from sglang_lint.frontends.indexes import rule_index
from sglang_lint.screen.prefilter import index_screen

_NAMED = None


def _read(path: str) -> bytes:
    with open(path, "rb") as stream:
        return stream.read()


def _names_a_rule(data: bytes) -> bool:
    return bool(_NAMED.codes_for(data))


def _parses(data: bytes) -> bool:
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _one(job: tuple[str, str]) -> bool:
    stage, path = job
    data = _read(path)
    if stage == "text":
        return _names_a_rule(data)
    if stage == "parse-named" and not _names_a_rule(data):
        return False
    return _parses(data)


def main(argv: list[str] | None = None) -> int:
    global _NAMED
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=("text", "parse", "parse-named"))
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    _NAMED = index_screen(rule_index())  # (before the fork: each worker has it, as the linter's workers have theirs)
    jobs = [(args.stage, path) for path in args.files]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            kept = pool.map(_one, jobs, chunksize=16)
    else:
        kept = [_one(job) for job in jobs]
    print(f"{args.stage}: {sum(kept)} of {len(jobs)} files kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
