"""The one walk over a parsed file: every node once, in source order, whatever the number of
rules, calling the hooks of a few collectors (analysis/bindings.py, analysis/guards.py, analysis/sites.py).

``module.visit(visitor)`` rebuilds every node it passes (LibCST's visitors double as
transformers), which costs as much as parsing. :func:`walk` calls the same ``visit_X``,
``visit_X_field``, ``leave_X_field`` and ``leave_X`` hooks in the same order LibCST would,
reading the fields directly and never descending into whitespace or punctuation. Several
collectors share the walk: at each node, each collector's hook runs in the order the
collectors are given (a later collector sees what an earlier one recorded for that node).
"""

from __future__ import annotations

from typing import Sequence

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.syntax import child_fields


def walk(collectors: Sequence[object], node: cst.CSTNode) -> None:
    """Visit ``node`` and everything under it with every collector's hooks."""
    types = tuple(type(c) for c in collectors)
    methods = _METHODS.get(types)
    if methods is None:
        methods = _METHODS[types] = {}
    _walk(tuple(collectors), types, methods, node)


_METHODS: dict[tuple, dict] = {}


def _walk(collectors: tuple, types: tuple, methods: dict, node: cst.CSTNode) -> None:
    node_type = type(node)
    entry = methods.get(node_type)
    if entry is None:
        entry = methods[node_type] = (*_node_hooks(types, node_type), child_fields(node_type))
    visits, leaves, field_hooks, fields = entry
    for index, hook in visits:
        hook(collectors[index], node)
    for name in fields:
        value = getattr(node, name)
        hooks = field_hooks.get(name)
        if hooks is not None:
            for index, hook in hooks[0]:
                hook(collectors[index], node)
        # (by the value's type, cached: isinstance against LibCST's abstract node class was a
        # fifth of the walk)
        value_type = type(value)
        if value_type is list or value_type is tuple:
            for item in value:
                is_node = _IS_NODE.get(type(item))
                if is_node is None:
                    is_node = _is_node(type(item))
                if is_node:
                    _walk(collectors, types, methods, item)
        else:
            is_node = _IS_NODE.get(value_type)
            if is_node is None:
                is_node = _is_node(value_type)
            if is_node:
                _walk(collectors, types, methods, value)
        if hooks is not None:
            for index, hook in hooks[1]:
                hook(collectors[index], node)
    for index, hook in leaves:
        hook(collectors[index], node)


_IS_NODE: dict[type, bool] = {}


def _is_node(value_type: type) -> bool:
    found = _IS_NODE[value_type] = issubclass(value_type, cst.CSTNode)
    return found


def _node_hooks(types: tuple, node_type: type):
    """(visit hooks, leave hooks, {field: (before hooks, after hooks)}) for one node type,
    each a tuple of (collector index, function)."""
    name = node_type.__name__

    def hooks(method: str) -> tuple:
        return tuple(
            (index, function) for index, kind in enumerate(types)
            if (function := getattr(kind, method, None)) is not None
        )

    field_hooks = {}
    for field_name in child_fields(node_type):
        before = hooks(f"visit_{name}_{field_name}")
        after = hooks(f"leave_{name}_{field_name}")
        if before or after:
            field_hooks[field_name] = (before, after)
    return hooks(f"visit_{name}"), hooks(f"leave_{name}"), field_hooks
