"""The choices of every flag of sglang's own launch parser, built by sglang's code from an
unpacked release (``ServerArgs.add_cli_args`` on a fresh ``argparse`` parser) with everything
heavy stubbed, in a separate interpreter (tests/startup/harness.py's ``setup``).

Parent side: ``parser_choices(release)`` returns ``{dest: {"flags": [...], "choices": [...] |
None}}`` for every action of the parser; a choice that is not a JSON scalar (a stub standing for
a value sglang computes with a stubbed library) is written as the string ``"<stub>"``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner)


def parser_choices(release: str, timeout: float = harness.TIMEOUT) -> dict:
    """sglang ``release``'s launch parser, each destination's flags and choices (see above)."""
    return harness.spawn(Path(__file__), release, [], timeout=timeout)


def _child(tree: str, payload, deps: str, gpu: str) -> dict:
    import argparse
    import importlib

    harness.setup(tree, deps, gpu)
    module = importlib.import_module("sglang.srt.server_args")
    parser = argparse.ArgumentParser()
    module.ServerArgs.add_cli_args(parser)
    found = {}
    for action in parser._actions:
        if not action.option_strings or action.dest == "help":
            continue
        choices = None if action.choices is None else [
            c if isinstance(c, (str, int, float, bool)) or c is None else "<stub>" for c in action.choices]
        found[action.dest] = {"flags": list(action.option_strings), "choices": choices}
    return {"outcome": "built", "actions": found}


if __name__ == "__main__":
    harness.child_main(_child)
