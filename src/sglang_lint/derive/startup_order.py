"""The order a validation table's checks are written in (derive/startup_table.py): one order
that keeps the order in which each release's validation meets its own checks, so a reader
knows, of two checks of one release that a launch both fails, which one sglang raises
(checks/precedence.py)."""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Hashable, Iterable


class OrderError(ValueError):
    """Two releases meet two checks in opposite orders: no one order keeps both."""


def merged_order(sequences: Iterable[list], key: Callable[[Hashable], tuple]) -> list:
    """Every item of ``sequences`` (each in the order one release meets them; an item met
    twice counts where it is first met) once, in an order that keeps each sequence's; where
    several may come next, the least by ``key`` (so the result depends on the orders alone).
    OrderError where the sequences disagree."""
    following: dict = {}
    waiting: dict = {}  # item -> how many items must come before it
    for sequence in sequences:
        seen: dict = {}
        for item in sequence:
            seen.setdefault(item, None)
            following.setdefault(item, set())
            waiting.setdefault(item, 0)
        once = list(seen)
        for before, after in zip(once, once[1:]):
            if after not in following[before]:
                following[before].add(after)
                waiting[after] += 1
    counter = itertools.count()  # (keys never tie for two items; should they, the first met first)
    ready = [(key(item), next(counter), item) for item in waiting if not waiting[item]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, item = heapq.heappop(ready)
        order.append(item)
        for after in following[item]:
            waiting[after] -= 1
            if not waiting[after]:
                heapq.heappush(ready, (key(after), next(counter), after))
    if len(order) < len(waiting):
        stuck = sorted((item for item in waiting if waiting[item]), key=key)[:2]
        raise OrderError(f"releases meet these checks in opposite orders: {stuck}")
    return order
