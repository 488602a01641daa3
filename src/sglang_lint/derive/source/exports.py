"""Names as users import them: the classes and functions a package's ``__init__.py`` re-exports
(``from .awq import AWQConfig``, sglang's ``Engine = LazyImport("sglang.srt.entrypoints.engine",
"Engine")``), read from sglang's source and never imported. A rule whose target is
``sglang.srt.layers.quantization.awq.awq.AWQConfig`` then also matches a call of
``sglang.srt.layers.quantization.AWQConfig``: the table (``exports.toml``) lists, for each name
a rule targets, the other names it is imported by."""

from __future__ import annotations

import ast

from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.source.tree import Module, import_base, walk_all

LAZY_IMPORTERS = frozenset({"LazyImport"})  # sglang.utils.LazyImport(module, name)


def package_exports(modules: list[Module]) -> dict[str, str]:
    """Every re-exported name: ``package.Name`` -> where it is bound (one step)."""
    found: dict[str, str] = {}
    names = {module.name for module in modules}
    for module in modules:
        if module.path.name != "__init__.py":
            continue
        for node in _top_level(module.tree.body):
            if isinstance(node, ast.ImportFrom):
                base = import_base(node, module.name, True)
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
            elif isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and node.args.args:
                for name, where in [*_lazy_attributes(node, module), *_table_attributes(node, module, names)]:
                    found.setdefault(f"{module.name}.{name}", where)
    return found


def _lazy_attributes(function: ast.FunctionDef, module: Module):
    """A module ``__getattr__(name)``'s lazy re-exports: ``if name == "X": from m import X``
    (``return X``) gives (X, m.X); ``if name in {"A", "B"}: from p import config as c``
    (``return getattr(c, name)``) gives (A, p.config.A) and (B, p.config.B)."""
    argument = function.args.args[0].arg
    for test in (n for n in walk_all(function) if isinstance(n, ast.If)):
        names = _names_tested(test.test, argument)
        if not names:
            continue
        for node in test.body:
            base = import_base(node, module.name, True) if isinstance(node, ast.ImportFrom) else None
            if base is None:
                continue
            for alias in node.names:
                bound = alias.asname or alias.name
                if len(names) == 1 and bound == names[0]:
                    yield names[0], f"{base}.{alias.name}"
                elif any(isinstance(r, ast.Return) and isinstance(r.value, ast.Call)
                         and isinstance(r.value.func, ast.Name) and r.value.func.id == "getattr"
                         and len(r.value.args) == 2 and isinstance(r.value.args[0], ast.Name)
                         and r.value.args[0].id == bound for r in test.body):
                    yield from ((name, f"{base}.{alias.name}.{name}") for name in names)


def _table_attributes(function: ast.FunctionDef, module: Module, names: set[str]):
    """A module ``__getattr__(name)`` that looks the name up in a module-level table of
    submodules (``_EXPORTS = {"f": "routing.f_triton", ...}``; ``TABLE.get(name)`` or
    ``TABLE[name]``) and returns ``getattr(import_module(owner), name)``: (f, owner.f) for each
    entry whose module (absolute, or under the package) is in the tree."""
    argument = function.args.args[0].arg
    calls = [n for n in walk_all(function) if isinstance(n, ast.Call)]
    if not any(isinstance(c.func, ast.Name) and c.func.id == "getattr" and len(c.args) == 2
               and isinstance(c.args[1], ast.Name) and c.args[1].id == argument and isinstance(c.args[0], ast.Call)
               and ast.unparse(c.args[0].func).endswith("import_module") for c in calls):
        return
    for node in walk_all(function):
        looked = _table_looked_up(node, argument)
        table = module.constants.get(looked.id) if isinstance(looked, ast.Name) else None
        if not isinstance(table, ast.Dict):
            continue
        for key, value in zip(table.keys, table.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                    and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            owner = next((o for o in (value.value, f"{module.name}.{value.value.lstrip('.')}") if o in names), None)
            if owner is not None:
                yield key.value, f"{owner}.{key.value}"


def _table_looked_up(node: ast.AST, argument: str) -> ast.expr | None:
    """The table ``node`` looks ``argument`` up in: ``TABLE[name]`` or ``TABLE.get(name, ...)``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == argument:
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == argument:
        return node.func.value
    return None


def _names_tested(test: ast.expr, argument: str) -> list[str]:
    """``name == "X"`` -> [X]; ``name in {"A", "B"}`` -> [A, B]; anything else -> []."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id == argument):
        return []
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Set, ast.Tuple, ast.List)):
        values = [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return values if len(values) == len(right.elts) else []
    return []


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
    of re-exports), sorted; a class or static method (``Class.method``) under each name of its
    class."""
    def canonical(name: str) -> str:
        seen = set()
        while name in exports and name not in seen:
            seen.add(name)
            name = exports[name]
        return name

    found: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}  # class -> its targeted methods
    for target in targets:
        owner = target.rpartition(".")[0]
        if owner.rpartition(".")[2][:1].isupper():  # (a class's, by sglang's naming)
            methods.setdefault(owner, []).append(target)
    for alias in exports:
        target = canonical(alias)
        if alias == target:
            continue
        if target in targets:
            found.setdefault(target, []).append(alias)
        for method in methods.get(target, ()):
            found.setdefault(method, []).append(alias + method[len(target):])
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
