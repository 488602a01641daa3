"""The relations aspect of server-args (SGL010): pairs of numeric server arguments sglang
checks against each other while resolving the configuration, where both are literal numbers
at the launch."""

from __future__ import annotations

from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.core.model import Finding


def number(value: object) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def flag_settings(uses: list[FlagUse]) -> dict:
    """field -> (number, node) for each flag set to a literal number on every path."""
    return {use.field.name: (number(use.value), use.value_node) for use in uses
            if use.certain and use.field is not None and number(use.value) is not None}


def may_break_relation(params, name: str, value: object) -> bool:
    """Could :func:`relations` find anything through this field set to this value? Only a
    number can break a relation: a positive field's when it is not above 0, a pair's whichever
    it is (the other side may be set by another word or launch: a superset, for the screen)."""
    found = number(value)
    if found is None:
        return False
    return (name in params.positive and found <= 0) or any(name in pair for pair in params.at_least)


def relations(params, values: dict):
    for name in params.positive:
        if name in values and values[name][0] <= 0:
            yield Finding(values[name][1], f"{name}={values[name][0]}: sglang requires {name} to be positive")
    for left, right in params.at_least:
        if left in values and right in values and values[left][0] < values[right][0]:
            yield Finding(
                values[left][1],
                f"{left}={values[left][0]} with {right}={values[right][0]}: sglang requires {left} >= {right}",
            )
