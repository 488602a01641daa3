"""sglang's classes and functions that build a server's arguments from their own keywords:
``Runtime(model_path=..., tp_size=2)`` hands ``**kwargs`` to ``ServerArgs(**kwargs)``, so its
keywords are server arguments, judged as ``sgl.Engine``'s are. Read from sglang's source and
never imported.

A function with a ``**`` parameter is such a launcher when it passes that parameter, as
``**name``, to ``ServerArgs`` or to a launcher found so far (to a fixpoint): by its name, through
``self.<attribute>`` where the class sets that attribute to one (``server_args_class =
ServerArgs``), or to the base class's ``__init__`` (``super().__init__(**kwargs)``). A class is
one when its ``__init__`` is, or when it defines none and its first base is one. The keywords
it keeps for itself are left to it (``exclude``): its named parameters that it does not pass on
under their own name, and the keys it pops from the ``**`` parameter."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.derive.state import base_name
from sglang_lint.derive.tree import LazyTree, Module, import_base, source_path

SERVER_ARGS = "sglang.srt.server_args.ServerArgs"
DIFFUSION_PACKAGE = "sglang.multimodal_gen."  # its ServerArgs is another class, its servers others
MAX_ROUNDS = 8


@dataclass(frozen=True)
class KeywordLauncher:
    kind: str  # "class" | "function"
    name: str  # qualified
    exclude: tuple[str, ...]  # keywords it keeps for itself
    evidence: str  # path/to/module.py:LINE of the call that hands the keywords on


def keyword_launchers(tree: LazyTree) -> list[KeywordLauncher]:
    """Every class and module-level function of the tree that hands its ``**`` keywords to
    ``ServerArgs`` (directly or through another one), sorted by name."""
    found: dict[str, KeywordLauncher] = {}
    known = {SERVER_ARGS: ()}  # launcher -> the keywords it keeps
    words = {"ServerArgs"}
    for _ in range(MAX_ROUNDS):
        new = {}
        for name in tree.names():
            text = tree.text(name)
            if name.startswith(DIFFUSION_PACKAGE) or not text or "**" not in text or not any(w in text for w in words):
                continue
            module = tree.module(name)
            for launcher in _launchers_in(module, known) if module is not None else ():
                if launcher.name not in known and launcher.name not in new:
                    new[launcher.name] = launcher
        if not new:
            break
        found.update(new)
        known.update({name: launcher.exclude for name, launcher in new.items()})
        words = {name.rpartition(".")[2] for name in new}
    return sorted(found.values(), key=lambda launcher: launcher.name)


def _launchers_in(module: Module, known: dict[str, tuple]):
    for node in module.tree.body:
        if getattr(node, "name", "_").startswith("_"):
            continue  # (a private helper is no one's entry point)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            handed = _hands_on(node, module, known, None)
            if handed is not None:
                yield KeywordLauncher("function", f"{module.name}.{node.name}", *handed)
        elif isinstance(node, ast.ClassDef):
            qualified = f"{module.name}.{node.name}"
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is not None:
                handed = _hands_on(init, module, known, node)
                if handed is not None:
                    yield KeywordLauncher("class", qualified, *handed)
            elif node.bases and base_name(node.bases[0], module) in known:
                line = f"{source_path(module)}:{node.lineno}"
                yield KeywordLauncher("class", qualified, known[base_name(node.bases[0], module)], line)


def _hands_on(function: ast.FunctionDef, module: Module, known: dict[str, tuple],
              owner: ast.ClassDef | None) -> tuple[tuple[str, ...], str] | None:
    """(the keywords it keeps, where it hands the rest on) when ``function`` passes its ``**``
    parameter to a known launcher; None otherwise."""
    if function.args.kwarg is None:
        return None
    kwargs = function.args.kwarg.arg
    for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
        if not any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in call.keywords):
            continue
        callee = _callee(call.func, module, owner, _local_imports(function, module))
        if callee not in known:
            continue
        named = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
        passed = {k.arg for k in call.keywords if k.arg is not None and isinstance(k.value, ast.Name)
                  and k.value.id == k.arg}
        kept = [name for name in named[1 if owner is not None else 0:] if name not in passed]
        kept += sorted(_popped(function, kwargs) - passed)  # (a key popped and passed on is still the engine's)
        kept += known[callee]  # (what the launcher it calls keeps, it takes from this one too)
        return tuple(dict.fromkeys(kept)), f"{source_path(module)}:{call.lineno}"
    return None


def _local_imports(function: ast.FunctionDef, module: Module) -> dict[str, str]:
    """The names the function's own ``from x import y`` statements bind (they hide the module's)."""
    found = {}
    for node in ast.walk(function):
        if isinstance(node, ast.ImportFrom):
            base = import_base(node, module.name, module.path.name == "__init__.py")
            for alias in node.names if base is not None else ():
                found[alias.asname or alias.name] = f"{base}.{alias.name}"
    return found


def _callee(func: ast.expr, module: Module, owner: ast.ClassDef | None, local: dict[str, str]) -> str | None:
    """The qualified name a call's callee reads: a name (the function's own imports first),
    ``module.name``, ``self.<class attribute>`` or ``super().__init__``."""
    if isinstance(func, ast.Name) and func.id in local:
        return local[func.id]
    if isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call):
        inner = func.value.func
        if isinstance(inner, ast.Name) and inner.id == "super" and owner is not None and owner.bases:
            return base_name(owner.bases[0], module)
        return None
    if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
            and owner is not None):
        for statement in owner.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
            value = getattr(statement, "value", None)
            if (isinstance(statement, (ast.Assign, ast.AnnAssign)) and value is not None and len(targets) == 1
                    and isinstance(targets[0], ast.Name) and targets[0].id == func.attr):
                return base_name(value, module)
        return None
    return base_name(func, module)


def _popped(function: ast.FunctionDef, kwargs: str) -> set[str]:
    """The keys ``function`` takes out of its ``**`` parameter (``kwargs.pop("x")``, ``del kwargs["x"]``)."""
    found = set()
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == kwargs and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and target.value.id == kwargs and isinstance(target.slice, ast.Constant)
                        and isinstance(target.slice.value, str)):
                    found.add(target.slice.value)
    return found
