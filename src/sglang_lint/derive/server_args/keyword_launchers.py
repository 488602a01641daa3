"""sglang's classes and functions that build a server's arguments from their own keywords:
``Runtime(model_path=..., tp_size=2)`` hands ``**kwargs`` to ``ServerArgs(**kwargs)``, so its
keywords are server arguments, judged as ``sgl.Engine``'s are. The diffusion server's
(``sglang.multimodal_gen``) are found the same way from its own ``ServerArgs``, a dataclass whose
fields are its keywords: ``DiffGenerator.from_pretrained(**kwargs)`` hands them to
``ServerArgs.from_kwargs(**kwargs)``, which hands them to ``cls(**kwargs)``; each launcher says
whose server it builds (``server``). Read from sglang's source and never imported.

A function with a ``**`` parameter is such a launcher when it passes that parameter, as
``**name``, to a ``ServerArgs`` or to a launcher found so far (to a fixpoint): by its name, through
``self.<attribute>`` where the class sets that attribute to one (``server_args_class =
ServerArgs``), to the base class's ``__init__`` (``super().__init__(**kwargs)``), or, from a
class or static method, to ``cls`` or ``cls.<method>``. A class is one when its ``__init__`` is,
or when it defines none and its first base is one; a class or static method of a public class is
one as ``Class.method``. The keywords it keeps for itself are left to it (``exclude``): its named
parameters that it does not pass on under their own name, and the keys it pops from the ``**``
parameter. A launcher that hands the ``**`` dict itself to another call first
(``PipelineConfig.from_kwargs(kwargs)``) ``lends`` it: that call may take keys out. Where the
hand-off is under a test of a key of the ``**`` parameter (``if kwargs.get("server_args") is not
None: ... else: ServerArgs.from_kwargs(**kwargs)``), a call that passes that key may not hand the
others on at all (``unless``)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.derive.reading.state import base_name
from sglang_lint.text.pynames import ast_dotted_name
from sglang_lint.derive.source.tree import LazyTree, Module, import_base, source_path

SERVER_ARGS = "sglang.srt.server_args.ServerArgs"
# the diffusion server's ServerArgs: a module, then (0.5.19 on) a package re-exporting its module's
DIFFUSION_SERVER_ARGS = ("sglang.multimodal_gen.runtime.server_args.ServerArgs",
                         "sglang.multimodal_gen.runtime.server_args.server_args.ServerArgs")
DIFFUSION = "diffusion"
MAX_ROUNDS = 8


@dataclass(frozen=True)
class KeywordLauncher:
    kind: str  # "class" | "function"
    name: str  # qualified
    exclude: tuple[str, ...]  # keywords it keeps for itself
    evidence: str  # path/to/module.py:LINE of the call that hands the keywords on
    server: str = ""  # whose ServerArgs: "" the LLM server's, "diffusion" the diffusion server's
    unless: tuple[str, ...] = ()  # keywords whose presence may stop the hand-off
    lends: bool = False  # it hands its ** dict itself to another call first, which may take keys out


def keyword_launchers(tree: LazyTree) -> list[KeywordLauncher]:
    """Every class, module-level function and class or static method of the tree that hands its
    ``**`` keywords to a ``ServerArgs`` (directly or through another one), sorted by name; the
    diffusion server's ``ServerArgs`` itself (its fields are its keywords)."""
    found: dict[str, KeywordLauncher] = {}
    known = {SERVER_ARGS: KeywordLauncher("class", SERVER_ARGS, (), "")}
    for name in DIFFUSION_SERVER_ARGS:
        seed = _dataclass(tree, name)
        if seed is not None:
            known[name] = found[name] = seed
    words = {"ServerArgs"}
    for _ in range(MAX_ROUNDS):
        new = {}
        for name in tree.names():
            text = tree.text(name)
            if not text or "**" not in text or not any(w in text for w in words):
                continue
            module = tree.module(name)
            for launcher in _launchers_in(module, known, tree) if module is not None else ():
                if launcher.name not in known and launcher.name not in new:
                    new[launcher.name] = launcher
        if not new:
            break
        found.update(new)
        known.update(new)
        words = {name.rpartition(".")[2] for name in new}
    return sorted(found.values(), key=lambda launcher: launcher.name)


def _dataclass(tree: LazyTree, name: str) -> KeywordLauncher | None:
    """The diffusion server's ``ServerArgs`` as a launcher: where the tree defines it there (not
    a re-export), a dataclass without an ``__init__`` of its own (its fields are its keywords)."""
    module = tree.module(name.rpartition(".")[0])
    node = next((n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == name.rpartition(".")[2]),
                None) if module is not None else None
    if node is None or any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body):
        return None
    if not any(ast_dotted_name(d.func if isinstance(d, ast.Call) else d) in ("dataclass", "dataclasses.dataclass")
               for d in node.decorator_list):
        return None
    return KeywordLauncher("class", name, (), f"{source_path(module)}:{node.lineno}", DIFFUSION)


def _launchers_in(module: Module, known: dict[str, KeywordLauncher], tree: LazyTree):
    for node in module.tree.body:
        if getattr(node, "name", "_").startswith("_"):
            continue  # (a private helper is no one's entry point)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            handed = _hands_on(node, module, known, None, tree)
            if handed is not None:
                yield KeywordLauncher("function", f"{module.name}.{node.name}", *handed)
        elif isinstance(node, ast.ClassDef):
            qualified = f"{module.name}.{node.name}"
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is not None:
                handed = _hands_on(init, module, known, node, tree)
                if handed is not None:
                    yield KeywordLauncher("class", qualified, *handed)
            elif node.bases and base_name(node.bases[0], module) in known \
                    and base_name(node.bases[0], module) not in DIFFUSION_SERVER_ARGS:  # (a dataclass adds fields)
                line = f"{source_path(module)}:{node.lineno}"
                base = known[base_name(node.bases[0], module)]
                yield KeywordLauncher("class", qualified, base.exclude, line, base.server, base.unless, base.lends)
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and not method.name.startswith("_") and _on_class(method):
                    handed = _hands_on(method, module, known, node, tree, bound=bool(method.args.args)
                                       and "classmethod" in _decorators(method))
                    if handed is not None:
                        yield KeywordLauncher("function", f"{qualified}.{method.name}", *handed)


def _decorators(function: ast.FunctionDef) -> set[str]:
    return {ast_dotted_name(d) for d in function.decorator_list}


def _on_class(function: ast.FunctionDef) -> bool:
    """A class or static method: called on the class itself (``Class.method(...)``)."""
    return bool(_decorators(function) & {"classmethod", "staticmethod"})


def _hands_on(function: ast.FunctionDef, module: Module, known: dict[str, KeywordLauncher],
              owner: ast.ClassDef | None, tree: LazyTree, bound: bool = False) -> tuple | None:
    """(the keywords it keeps, where it hands the rest on, whose server, the keys that may stop
    the hand-off, whether it lends its dict to another call first) when ``function`` passes its
    ``**`` parameter to a known launcher; None otherwise. ``bound``: a class method (its first
    parameter is the class)."""
    if function.args.kwarg is None:
        return None
    kwargs = function.args.kwarg.arg
    first = function.args.args[0].arg if bound else None
    for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
        if not any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in call.keywords):
            continue
        callee = _canonical(_callee(call.func, module, owner, _local_imports(function, module), first), tree)
        if callee not in known:
            continue
        named = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
        passed = {k.arg for k in call.keywords if k.arg is not None and isinstance(k.value, ast.Name)
                  and k.value.id == k.arg}
        skip = 1 if owner is not None and "staticmethod" not in _decorators(function) else 0
        kept = [name for name in named[skip:] if name not in passed]
        kept += sorted(_popped(function, kwargs) - passed)  # (a key popped and passed on is still the engine's)
        kept += known[callee].exclude  # (what the launcher it calls keeps, it takes from this one too)
        unless = tuple(dict.fromkeys([*_tested_keys(function, call, kwargs), *known[callee].unless]))
        # (``PipelineConfig.from_kwargs(kwargs)``: the dict itself, which the callee may take keys out of)
        lends = known[callee].lends or any(isinstance(a, ast.Name) and a.id == kwargs for other in ast.walk(function)
                                           if isinstance(other, ast.Call) for a in other.args)
        return (tuple(dict.fromkeys(kept)), f"{source_path(module)}:{call.lineno}", known[callee].server, unless,
                lends)
    return None


def _tested_keys(function: ast.FunctionDef, call: ast.Call, kwargs: str) -> list[str]:
    """The keys of the ``**`` parameter that the tests of the ``if`` statements around ``call``
    read (``kwargs.get("x")``, ``kwargs["x"]``, ``"x" in kwargs``): where one is passed, the
    hand-off may not happen."""
    found = []

    def visit(body: list, tests: list) -> bool:
        for statement in body:
            if isinstance(statement, ast.If):
                if visit(statement.body, tests + [statement.test]) or visit(statement.orelse, tests + [statement.test]):
                    return True
            elif any(node is call for node in ast.walk(statement)):
                found.extend(key for test in tests for key in _keys_read(test, kwargs))
                return True
            elif any(visit(getattr(statement, part, []), tests) for part in ("body", "orelse", "handlers", "finalbody")
                     if isinstance(getattr(statement, part, None), list)):
                return True
        return False

    visit(function.body, [])
    return found


def _keys_read(test: ast.expr, kwargs: str):
    for node in ast.walk(test):
        key = None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == kwargs and node.args):
            key = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == kwargs:
            key = node.slice
        elif (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))
              and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == kwargs):
            key = node.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield key.value


def _canonical(name: str | None, tree: LazyTree) -> str | None:
    """The name where it is defined, through a package's re-exports (``runtime.server_args.ServerArgs``
    is ``runtime.server_args.server_args.ServerArgs`` from 0.5.19): the longest module of the tree
    the name starts with, and what that module imports the next part from."""
    for _ in range(MAX_ROUNDS):
        parts = (name or "").split(".")
        split = next((i for i in range(len(parts) - 1, 0, -1) if tree.module(".".join(parts[:i])) is not None), 0)
        module = tree.module(".".join(parts[:split])) if split else None
        imported = module.imports.get(parts[split]) if module is not None else None
        if imported is None or imported == ".".join(parts[:split + 1]):
            return name
        name = ".".join([imported, *parts[split + 1:]])
    return name


def _local_imports(function: ast.FunctionDef, module: Module) -> dict[str, str]:
    """The names the function's own ``from x import y`` statements bind (they hide the module's)."""
    found = {}
    for node in ast.walk(function):
        if isinstance(node, ast.ImportFrom):
            base = import_base(node, module.name, module.path.name == "__init__.py")
            for alias in node.names if base is not None else ():
                found[alias.asname or alias.name] = f"{base}.{alias.name}"
    return found


def _callee(func: ast.expr, module: Module, owner: ast.ClassDef | None, local: dict[str, str],
            first: str | None = None) -> str | None:
    """The qualified name a call's callee reads: a name (the function's own imports first),
    ``module.name``, ``self.<class attribute>``, ``super().__init__``, or in a class method
    whose first parameter is ``first``, ``cls`` and ``cls.<method>``."""
    if isinstance(func, ast.Name) and func.id in local:
        return local[func.id]
    if first is not None and owner is not None:
        qualified = f"{module.name}.{owner.name}"
        if isinstance(func, ast.Name) and func.id == first:
            return qualified
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == first:
            return f"{qualified}.{func.attr}"
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
