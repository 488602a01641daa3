"""Which of the checks that certainly fail one call or one launch are reported: sglang stops at
the first raise it reaches, so the first, in the order sglang runs them (a callable's raise
sites by their line in its function, the start-up checks in the order of its validation), is
reported; a later one only where no fix of an earlier one can make it pass, because it reads
nothing an earlier one reads (a parameter, a field, an environment variable), and its message
says so (:data:`ALSO`). The one analysis of the command, flake8 and the language server alike:
the engine applies it to the derived rules of a call (engine/precedence.py), the start-up check
to a launch's checks (checks/server_args/startup.py)."""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

Item = TypeVar("Item")

ALSO = "also fails once the error sglang raises first is fixed"


def first_raised(failing: Iterable[Item], reads: Callable[[Item], frozenset | None]) -> list[tuple[Item, bool]]:
    """``failing``: the checks that certainly fail, in the order sglang reaches them. Each one
    reported, with whether it comes after another (then it fails whichever way the user fixes
    the earlier ones). ``reads``: the names a check's condition reads; None where not known (it
    may read anything: never reported after another)."""
    kept: list[tuple[Item, bool]] = []
    earlier: set = set()
    unknown = False
    for item in failing:
        names = reads(item)
        if not kept:
            kept.append((item, False))
        elif not unknown and names is not None and earlier.isdisjoint(names):
            kept.append((item, True))
        if names is None:
            unknown = True
        else:
            earlier.update(names)
    return kept


def also(message: str) -> str:
    """The message of a check reported after another that fails first."""
    return f"{message} ({ALSO})"
