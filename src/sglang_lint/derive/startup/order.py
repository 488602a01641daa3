"""The order a validation table's checks are written in (derive/startup/table.py): one order
that keeps the order in which each release's validation meets its own checks, so a reader
knows, of two checks of one release that a launch both fails, which one sglang raises
(checks/precedence.py). Where releases meet two checks in opposite orders (sglang moved a
step), the newer release's order is kept."""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Hashable, Iterable


def merged_order(sequences: Iterable[list], key: Callable[[Hashable], tuple]) -> list:
    """Every item of ``sequences`` (each in the order one release meets them, the newest
    release first; an item met twice counts where it is first met) once, in an order that keeps
    each sequence's, but where an earlier sequence put two items the other way round; where
    several items may come next, the least by ``key`` (so the result depends on the orders
    alone)."""
    following: dict = {}
    waiting: dict = {}  # item -> how many items must come before it
    for sequence in sequences:
        once = list(dict.fromkeys(sequence))
        for item in once:
            following.setdefault(item, set())
            waiting.setdefault(item, 0)
        for before, after in zip(once, once[1:]):
            if after not in following[before] and not _reaches(following, after, before):
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
    return order


def _reaches(following: dict, start: Hashable, goal: Hashable) -> bool:
    """Does an item already come before ``goal`` by way of ``start``?"""
    seen, todo = {start}, [start]
    while todo:
        item = todo.pop()
        if item == goal:
            return True
        for after in following[item]:
            if after not in seen:
                seen.add(after)
                todo.append(after)
    return False
