"""Deprecations of server arguments, read from sglang's source: the launch flags registered with
a ``Deprecated*`` argparse action (with the replacement they name), and the values sglang maps
to others with a warning (``if self.x == "old": warn(...); self.x = "new"``). Written into
``rules/derived/server_args.toml`` (``[deprecated_flags]``, ``[deprecated_values]``) for SGL011."""

from __future__ import annotations

import ast
from collections import Counter

from sglang_lint.derive.tree import walk_all


DEPRECATED_ACTION_PREFIX = "Deprecated"  # sglang's DeprecatedAction, DeprecatedStoreTrueAction, ...


def deprecated_flags(tree: ast.Module) -> dict[str, tuple[str, str | None]]:
    """The flags ``server_args.py`` registers as deprecated: ``parser.add_argument("--x",
    action=Deprecated...Action, new_flag="--y")`` -> {"--x": (action name, "--y" or None)}.
    sglang keeps such a spelling for a few releases, warning (or, for ``DeprecatedAction``,
    stopping the launch), then removes it."""
    found = {}
    for node in walk_all(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "add_argument":
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        action = keywords.get("action")
        name = action.id if isinstance(action, ast.Name) else action.attr if isinstance(action, ast.Attribute) else ""
        if not name.startswith(DEPRECATED_ACTION_PREFIX):
            continue
        new = keywords.get("new_flag")
        new_flag = new.value if isinstance(new, ast.Constant) and isinstance(new.value, str) else None
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("--"):
                found[arg.value] = (name, new_flag)
    return found


def deprecated_values(trees: list[ast.Module]) -> dict[str, dict[str, tuple[str, bool]]]:
    """Values a server argument still takes but sglang rewrites to another, warning that they
    are deprecated: a mapping ``aliases = {"old": "new"}`` and then ``if cfg.field in aliases:``
    (or ``for attr in ("field", ...): old = getattr(args, attr)`` ... ``if old in aliases:``)
    whose branch says "deprecated" -> {field: {old: (new, exact)}}. ``exact``: the function
    names neither value anywhere else, so writing the new one changes nothing else (sglang's
    ``tokenspeed_mla`` also sets an FP8 KV cache: not exact)."""
    found: dict[str, dict[str, tuple[str, bool]]] = {}
    for tree in trees:
        for function in walk_all(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            mappings = {
                node.targets[0].id: pairs for node in walk_all(function)
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and (pairs := _string_pairs(node.value))
            }
            if not mappings:
                continue
            looped = _getattr_loops(function)
            for node in walk_all(function):
                test = node.test if isinstance(node, ast.If) else None
                if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
                        and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id in mappings):
                    continue
                if not _says_deprecated(node.body):
                    continue
                if isinstance(test.left, ast.Attribute):
                    names = [test.left.attr]
                elif isinstance(test.left, ast.Name):
                    names = looped.get(test.left.id, [])
                else:
                    names = []
                mapping = mappings[test.comparators[0].id]
                elsewhere = Counter(n.value for n in walk_all(function)
                                    if isinstance(n, ast.Constant) and isinstance(n.value, str))
                for name in names:
                    found.setdefault(name, {}).update({
                        old: (new, elsewhere[old] == 1 and elsewhere[new] == list(mapping.values()).count(new))
                        for old, new in mapping.items()
                    })
    return found


def _string_pairs(node: ast.AST) -> dict[str, str] | None:
    if not isinstance(node, ast.Dict) or not node.keys:
        return None
    pairs = {}
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                and isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        pairs[key.value] = value.value
    return pairs


def _getattr_loops(function: ast.AST) -> dict[str, list[str]]:
    """``for attr in ("a", "b"): x = getattr(obj, attr, ...)`` -> {"x": ["a", "b"]}."""
    found = {}
    for loop in walk_all(function):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)
                and isinstance(loop.iter, (ast.Tuple, ast.List))):
            continue
        names = [e.value for e in loop.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(names) != len(loop.iter.elts):
            continue
        for node in walk_all(loop):
            call = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "getattr"
                    and len(call.args) >= 2 and isinstance(call.args[1], ast.Name)
                    and call.args[1].id == loop.target.id and isinstance(node.targets[0], ast.Name)):
                found[node.targets[0].id] = names
    return found


def _says_deprecated(body: list[ast.stmt]) -> bool:
    """Does the branch warn that something is deprecated (a string that says so)?"""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "deprecated" in node.value.lower()
        for statement in body for node in walk_all(statement)
    )
