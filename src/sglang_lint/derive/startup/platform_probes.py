"""The platform probes a start-up condition reads: what sglang asks the machine (``is_cuda()``,
``is_sm100_supported()``, ``get_platform().is_blackwell``), named so that a declared machine
answers them (catalog/platforms.py, ``rules/platforms.toml``).

* A probe is a query (derive/reading/symbolic.py ``query``) of a function of sglang's utils module
  whose name the platform table lists, whether sglang defines it with ``def`` or binds it at
  module level to a made function (``is_sm100_supported = lru_cache(...)(partial(...))``).
* ``get_platform()``'s facts (0.5.20 on: ``get_platform().is_sm100``) are the probes sglang's
  own table of them names (``_PLATFORM_PROBES`` and ``_PLATFORM_VALUES``, literal dicts read
  from its source): the fact is that probe's query.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from sglang_lint.catalog.platforms import load_platforms
from sglang_lint.checks.fails_when.grammar import QUERY_PREFIX
from sglang_lint.derive.source.tree import Module, defined_at, defining_module

PROBE_MODULES = ("sglang.srt.utils", "sglang.srt.utils.common")  # where sglang keeps its probes
FACT_TABLES = ("_PLATFORM_PROBES", "_PLATFORM_VALUES")  # get_platform()'s facts -> probe names
PLATFORM_CALL = "get_platform"


def assigned_function(func: ast.expr, module: Module, modules: dict[str, Module], imported_here: dict):
    """(module name, name) of the module-level name of an sglang module that ``func`` calls,
    where that module binds it once to a call's result (a function made by ``lru_cache`` or
    ``partial``); None otherwise."""
    if not isinstance(func, ast.Name):
        return None
    if func.id in imported_here:
        found = defined_at(imported_here[func.id], modules)
    elif func.id in module.imports or func.id in module.definitions:
        found = defining_module(func.id, module, modules)
    else:
        found = (module, func.id)  # (bound in the module itself, or nowhere)
    if found is None:
        return None
    owner, name = found
    for _ in range(4):  # (a re-export: ``from .common import *`` names, a few modules deep)
        bound = [node.value for node in owner.tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
        if bound:
            return (owner.name, name) if len(bound) == 1 and isinstance(bound[0], ast.Call) else None
        star = owner.imports.get("*", "")  # (``from .common import *``: the one module a name may come from)
        further = defined_at(owner.imports.get(name) or (f"{star[:-2]}.{name}" if star else ""), modules)
        if further is None:
            return None
        owner, name = further
    return None


def platform_facts(modules: dict[str, Module]) -> dict[str, str]:
    """get_platform()'s facts -> the probe each reads (sglang's own literal tables; empty in a
    release without them)."""
    found: dict[str, str] = {}
    for module in modules.values():
        if not module.name.startswith("sglang.srt.") or "_PLATFORM_PROBES" not in module.source:
            continue
        for node in module.tree.body:
            target = node.target if isinstance(node, ast.AnnAssign) else \
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            if isinstance(target, ast.Name) and target.id in FACT_TABLES and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values):
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Constant) \
                            and isinstance(key.value, str) and isinstance(value.value, str):
                        found[key.value] = value.value
    return found


def is_platform_call(reason: str) -> bool:
    """Is a query's reason that of ``get_platform()`` (whose facts are probes)?"""
    return reason.endswith(f".{PLATFORM_CALL}()") and reason.startswith("queries sglang.")


@lru_cache(maxsize=1)
def _probe_names() -> frozenset:
    return frozenset(load_platforms().probes)


def probes_read(names_and_reasons) -> frozenset:
    """The probe names (without the query prefix) among a condition's query names, each given
    with its reason: those of a function of sglang's utils the platform table lists, read by
    its own name (a query renamed apart from another function of the same name is not one)."""
    found = set()
    for name, reason in names_and_reasons:
        if not name.startswith(QUERY_PREFIX):
            continue
        probe = name[len(QUERY_PREFIX):]
        if probe in _probe_names() and any(reason == f"queries {where}.{probe}()" for where in PROBE_MODULES):
            found.add(probe)
    return frozenset(found)
