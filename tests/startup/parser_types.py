"""How sglang's own launch parser converts each flag's words, built by sglang's code from an
unpacked release (``ServerArgs.add_cli_args`` on a fresh ``argparse`` parser) with everything
heavy stubbed, in a separate interpreter (tests/startup/harness.py's ``setup``); and its verdict
on a launch's words.

Parent side: ``parser_types(release)`` returns ``{flag: {"type": "int" | "float" | "str" |
"other" | None, "nargs": ...}}`` for every option string of the parser (``type`` None: the
action takes no word, a ``store_true``); ``parser_verdicts(release, launches)`` the message
argparse stops with on each list of words (``""``: taken).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner)


def parser_types(release: str, timeout: float = harness.TIMEOUT) -> dict:
    """sglang ``release``'s launch parser: each flag's conversion (see above)."""
    return harness.spawn(Path(__file__), release, {"mode": "types"}, timeout=timeout)["types"]


def parser_verdicts(release: str, launches: list[list[str]], timeout: float = harness.TIMEOUT) -> list[str]:
    """argparse's message on each launch's words (``""`` where the parser takes them)."""
    return harness.spawn(Path(__file__), release, {"mode": "verdicts", "launches": launches},
                         timeout=timeout)["verdicts"]


def _child(tree: str, payload, deps: str, gpu: str) -> dict:
    import argparse
    import importlib

    harness.setup(tree, deps, gpu)
    module = importlib.import_module("sglang.srt.server_args")

    def parser() -> argparse.ArgumentParser:
        made = argparse.ArgumentParser(exit_on_error=False)
        module.ServerArgs.add_cli_args(made)
        return made

    if payload["mode"] == "types":
        names = {int: "int", float: "float", str: "str", None: "str"}
        found = {}
        for action in parser()._actions:
            takes = action.nargs != 0
            kind = (names.get(action.type, "other") if takes else None)
            for flag in action.option_strings:
                found[flag] = {"type": kind, "nargs": action.nargs if isinstance(action.nargs, (int, str)) else None}
        return {"types": found}
    verdicts = []
    for words in payload["launches"]:
        made = parser()

        def stop(message: str, made=made) -> None:
            raise argparse.ArgumentError(None, message)

        made.error = stop
        try:
            made.parse_args(words)
            verdicts.append("")
        except argparse.ArgumentError as error:
            verdicts.append(str(error))
    return {"verdicts": verdicts}


if __name__ == "__main__":
    harness.child_main(_child)
