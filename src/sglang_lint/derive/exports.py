"""Names as users import them: the classes and functions a package's ``__init__.py`` re-exports
(``from .awq import AWQConfig``, sglang's ``Engine = LazyImport("sglang.srt.entrypoints.engine",
"Engine")``), read from sglang's source and never imported. A rule whose target is
``sglang.srt.layers.quantization.awq.awq.AWQConfig`` then also matches a call of
``sglang.srt.layers.quantization.AWQConfig``: the table (``exports.toml``) lists, for each name
a rule targets, the other names it is imported by."""

from __future__ import annotations

import ast

from sglang_lint.derive.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.tree import Module
from sglang_lint.pynames import resolve_relative

LAZY_IMPORTERS = frozenset({"LazyImport"})  # sglang.utils.LazyImport(module, name)


def package_exports(modules: list[Module]) -> dict[str, str]:
    """Every re-exported name: ``package.Name`` -> where it is bound (one step)."""
    found: dict[str, str] = {}
    for module in modules:
        if module.path.name != "__init__.py":
            continue
        for node in _top_level(module.tree.body):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = resolve_relative(module.name, True, node.level, node.module)
                    if base is None:
                        continue
                for alias in node.names:
                    if alias.name != "*":
                        found.setdefault(f"{module.name}.{alias.asname or alias.name}", f"{base}.{alias.name}")
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                  and node.value.func.id in LAZY_IMPORTERS and len(node.value.args) == 2
                  and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.value.args)):
                where, name = (a.value for a in node.value.args)
                found.setdefault(f"{module.name}.{node.targets[0].id}", f"{where}.{name}")
    return found


def _top_level(body: list[ast.stmt]):
    """A module's statements, and those of its top-level ``try``/``if`` blocks (guarded imports)."""
    for node in body:
        yield node
        if isinstance(node, ast.Try):
            yield from _top_level(node.body)
        elif isinstance(node, ast.If):
            yield from _top_level(node.body)


def aliases_of(targets: set[str], exports: dict[str, str]) -> dict[str, list[str]]:
    """For each targeted qualified name, the other names that lead to it (through any number
    of re-exports), sorted."""
    def canonical(name: str) -> str:
        seen = set()
        while name in exports and name not in seen:
            seen.add(name)
            name = exports[name]
        return name

    found: dict[str, list[str]] = {}
    for alias in exports:
        target = canonical(alias)
        if target in targets and alias != target:
            found.setdefault(target, []).append(alias)
    return {target: sorted(names) for target, names in sorted(found.items())}


def exports_text(aliases: dict[str, list[str]], version: str) -> str:
    lines = [
        GENERATED_MARK,
        f"# The names sglang {version} re-exports, for each class or function a rule targets: a",
        "# call through any of them is a call of the target.",
        "[exports]",
    ]
    lines += [f"{toml_string(target)} = [{', '.join(toml_string(n) for n in names)}]"
              for target, names in aliases.items()]
    return "\n".join(lines) + "\n"
