"""The public Python API of one sglang release: what each name users call takes, read from the
source and never imported.

The public names are those of the modules users import from: the package itself (what
``sglang/__init__.py`` re-exports: ``sgl.Engine``, ``sgl.gen``, ``sgl.Runtime``), sglang's
launch helpers (``sglang.utils``), its test helpers (``sglang.test.test_utils``), the engine's
own module (``sglang.srt.entrypoints.engine``), and the modules of the classes whose keywords
build a server's arguments (keyword_launchers.py). Each public function, class and method of
such a class (inherited from sglang's own bases too) is written with its signature as Python
writes it (``(prompt=..., sampling_params=..., *, cache_salt=...)``, the defaults elided), under
the name users call it by (``sglang.Engine.generate``), and each module and class with whether
its names are all known (``closed``): a name a closed container lacks fails with an
``AttributeError`` or ``ImportError``; one of an open container (a base outside sglang, a
``__getattr__``, a star import) may come from elsewhere.

A signature the deriver cannot read with certainty is written ``(*args, **kwargs)``, which any
call passes: a decorator other than those that keep the calling convention, a name bound by an
assignment or in a branch, a class built by a dataclass or struct decorator or base, or one whose
constructor hands its keywords to ``ServerArgs`` (the server-argument rules judge those)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from sglang_lint.derive.source.exports import LAZY_IMPORTERS
from sglang_lint.derive.server_args.keyword_launchers import KeywordLauncher, keyword_launchers
from sglang_lint.derive.reading.state import base_name
from sglang_lint.derive.source.tree import TRANSPARENT_DECORATORS, LazyTree, Module, bound_names, import_base
from sglang_lint.text.pynames import ast_dotted_name

PACKAGE = "sglang"
# The modules users import sglang's API from (beside the package and the launchers' modules).
PUBLIC_MODULES = ("sglang.utils", "sglang.test.test_utils", "sglang.srt.entrypoints.engine")
OPAQUE = "(*args, **kwargs)"
# Bases that add no public method a call could reach.
PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol",
                         "abc.ABCMeta"})
# Decorators that keep the calling convention, beyond the deriver's usual ones.
SAME_CALL = TRANSPARENT_DECORATORS | frozenset(
    {"abstractmethod", "abc.abstractmethod", "contextmanager", "contextlib.contextmanager",
     "asynccontextmanager", "contextlib.asynccontextmanager", "override", "typing.override",
     "typing_extensions.override"})
# Decorators and bases that make a class's constructor from its fields: not read here.
FIELD_MAKERS = frozenset({"dataclass", "dataclasses.dataclass", "attr.s", "attrs.define", "define"})
STRUCT_BASES = frozenset({"msgspec.Struct", "pydantic.BaseModel", "BaseModel", "NamedTuple", "typing.NamedTuple",
                          "TypedDict", "typing.TypedDict", "enum.Enum", "Enum", "enum.IntEnum", "IntEnum"})
MAX_DEPTH = 10


@dataclass
class Surface:
    """One release's public API. ``callables``: public name -> signature text; ``containers``:
    module or class public name -> closed; ``defined``: a class's public name -> the
    qualified names of its definition (a receiver made by any is one of it)."""

    callables: dict[str, str] = field(default_factory=dict)
    containers: dict[str, bool] = field(default_factory=dict)
    defined: dict[str, tuple] = field(default_factory=dict)
    methods: set[str] = field(default_factory=set)  # the callables that are methods of a class


def tree_surface(tree: LazyTree, launchers: list[KeywordLauncher] | None = None) -> Surface:
    """The public API of the tree (``launchers``: its keyword launchers, if found already)."""
    launchers = keyword_launchers(tree) if launchers is None else launchers
    # (the LLM server's: the diffusion server's modules are no part of the API read here)
    launchers = [launcher for launcher in launchers if not launcher.server]
    by_keywords = {launcher.name for launcher in launchers}
    surface = Surface()
    for name in (PACKAGE, *PUBLIC_MODULES):
        module = tree.module(name)
        if module is not None:
            _read_module(surface, tree, module, by_keywords)
    for launcher in launchers:  # (the classes among them, with their methods; not their modules' other names)
        found = tree.definition(launcher.name)
        known = any(where[0] == launcher.name for where in surface.defined.values())
        if found is not None and isinstance(found[1], ast.ClassDef) and not known:
            _read_class(surface, tree, launcher.name, found[0], found[1], True)
            surface.defined[launcher.name] = (launcher.name,)
    return surface


def _read_module(surface: Surface, tree: LazyTree, module: Module, by_keywords: set[str]) -> None:
    """The module's public functions and classes: its own, and, for a package, what it re-exports
    from sglang (``from .x import Y``, ``Y = LazyImport("sglang.x", "Y")``), the last binding of
    a name winning as in Python. A module is never closed here: a name it binds otherwise (an
    assignment, a branch) is not read, and an import fails before any call it would judge."""
    surface.containers[module.name] = False
    package = module.path.name == "__init__.py"
    for node in module.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = [(node.name, (module, node))]
        elif package and isinstance(node, ast.ImportFrom):
            base = import_base(node, module.name, True)
            found = [(a.asname or a.name, _sglang_definition(tree, f"{base}.{a.name}" if base else ""))
                     for a in node.names if a.name != "*"]
        elif package and isinstance(node, ast.Assign):
            where = _lazy_import(node.value)
            found = [(t.id, _sglang_definition(tree, where)) for t in node.targets if isinstance(t, ast.Name)]
        else:
            found = [(name, None) for name in bound_names(node)]  # (rebound to something unread)
        for name, definition in found:
            if name.startswith("_"):
                continue
            public = f"{module.name}.{name}"
            _forget(surface, public)
            if definition is None:
                continue
            owner, statement = definition
            qualified = f"{owner.name}.{statement.name}"
            if isinstance(statement, ast.ClassDef):
                first = next((name for name, where in surface.defined.items() if where[0] == qualified), None)
                if first is not None:  # (a class read already under another name: this one names it too)
                    surface.defined[first] += (public,)
                    continue
                _read_class(surface, tree, public, owner, statement, qualified in by_keywords)
                surface.defined[public] = (qualified,)
            else:
                surface.callables[public] = OPAQUE if qualified in by_keywords else _signature(statement, False, owner)


def _sglang_definition(tree: LazyTree, where: str | None):
    if not where or not where.startswith(f"{PACKAGE}.") or tree.module(where) is not None:
        return None  # (outside sglang, or a module)
    return tree.definition(where)


def _lazy_import(value: ast.expr) -> str | None:
    """``LazyImport("sglang.x", "Y")``: ``sglang.x.Y``."""
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in LAZY_IMPORTERS
            and len(value.args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                             for a in value.args)):
        return f"{value.args[0].value}.{value.args[1].value}"
    return None


def _forget(surface: Surface, public: str) -> None:
    """A name bound again: what an earlier binding of it gave is gone."""
    for name in [n for n in surface.callables if n == public or n.startswith(f"{public}.")]:
        del surface.callables[name]
        surface.methods.discard(name)
    surface.containers.pop(public, None)
    surface.defined.pop(public, None)


def _read_class(surface: Surface, tree: LazyTree, public: str, module: Module, node: ast.ClassDef,
                keywords: bool) -> None:
    """The class's constructor (under its own name) and its public methods, through its
    sglang bases in Python's method resolution order."""
    line, open_ = _lineage(tree, module, node)
    makes_fields = any(_decorator_name(d, module) in FIELD_MAKERS for d in node.decorator_list)
    makes_fields |= any(base_name(b, module) in STRUCT_BASES for _, c in line for b in c.bases)
    surface.containers[public] = not open_ and not makes_fields
    seen: dict[str, tuple[Module, ast.stmt]] = {}
    for owner, cls in line:
        for statement in cls.body:
            for name in _class_names(statement):
                seen.setdefault(name, (owner, statement))
    init = seen.get("__init__")
    if keywords or makes_fields or init is None or not isinstance(init[1], ast.FunctionDef):
        surface.callables[public] = OPAQUE
    else:
        surface.callables[public] = _signature(init[1], True, init[0])
    for name, (owner, statement) in sorted(seen.items()):
        if name.startswith("_"):
            continue
        qualified = f"{public}.{name}"
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name:
            if any(_decorator_name(d, owner) in ("property", "cached_property", "functools.cached_property")
                   or (isinstance(d, ast.Attribute) and d.attr in ("setter", "getter", "deleter"))
                   for d in statement.decorator_list):
                continue  # an attribute, not a method a call names
            static = any(_decorator_name(d, owner) == "staticmethod" for d in statement.decorator_list)
            surface.callables[qualified] = _signature(statement, not static, owner)
        else:
            surface.callables[qualified] = OPAQUE
        surface.methods.add(qualified)


def _lineage(tree: LazyTree, module: Module, node: ast.ClassDef) -> tuple[list[tuple[Module, ast.ClassDef]], bool]:
    """The class and its sglang bases in method resolution order, and whether the order is
    open: a base outside sglang (but the plain ones), or one the deriver cannot read."""
    order: list[tuple[Module, ast.ClassDef]] = []
    open_ = False

    def visit(owner: Module, cls: ast.ClassDef, depth: int) -> list[tuple[Module, ast.ClassDef]]:
        nonlocal open_
        if depth > MAX_DEPTH:
            open_ = True
            return [(owner, cls)]
        lines = []
        for base in cls.bases:
            name = base_name(base, owner)
            if name in PLAIN_BASES or name in STRUCT_BASES:
                continue
            found = tree.definition(name) if name and name.startswith(f"{PACKAGE}.") else None
            if found is None or not isinstance(found[1], ast.ClassDef):
                open_ = True
                continue
            lines.append(visit(found[0], found[1], depth + 1))
        if any(k.arg == "metaclass" for k in cls.keywords):
            open_ = open_ or not all(base_name(k.value, owner) in PLAIN_BASES for k in cls.keywords
                                     if k.arg == "metaclass")
        return [(owner, cls), *_merge(lines)]

    order = visit(module, node, 0)
    open_ |= any(name in ("__getattr__", "__getattribute__") for _, cls in order for s in cls.body
                 for name in _class_names(s))
    return order, open_


def _merge(lines: list[list]) -> list:
    """C3: the bases' orders merged as Python merges them (the first head no other tail holds)."""
    lines = [list(line) for line in lines if line]
    merged = []
    while lines:
        for line in lines:
            head = line[0]
            if not any(head[1] is item[1] for other in lines for item in other[1:]):
                break
        else:
            return merged + [item for line in lines for item in line]  # (no order: Python would refuse it)
        merged.append(head)
        lines = [[item for item in line if item[1] is not head[1]] for line in lines]
        lines = [line for line in lines if line]
    return merged


def _class_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return sorted(bound_names(statement)) if isinstance(statement, (ast.If, ast.Try, ast.With)) else []


def _signature(function: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool, module: Module | None = None) -> str:
    """The function's parameters as Python writes them, defaults elided (``bound``: without
    the first, ``self`` or ``cls``); OPAQUE where a decorator may change them."""
    if any(_decorator_name(d, module) not in SAME_CALL for d in function.decorator_list):
        return OPAQUE
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    if bound:
        if not positional:
            return OPAQUE  # (a method without self: only *args takes it)
        positional, defaults = positional[1:], defaults[1:]
        only = max(len(args.posonlyargs) - 1, 0)
    else:
        only = len(args.posonlyargs)
    parts = []
    for index, (arg, default) in enumerate(zip(positional, defaults)):
        parts.append(arg.arg + ("=..." if default is not None else ""))
        if only and index == only - 1:
            parts.append("/")
    if args.vararg is not None:
        parts.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        parts.append("*")
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        parts.append(arg.arg + ("=..." if default is not None else ""))
    if args.kwarg is not None:
        parts.append(f"**{args.kwarg.arg}")
    return f"({', '.join(parts)})"


def _decorator_name(decorator: ast.expr, module: Module | None) -> str | None:
    """A decorator's dotted name; a name imported from the standard library's functools, abc,
    contextlib or typing as that module's (``from functools import wraps`` -> functools.wraps)."""
    name = ast_dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator)
    if name is not None and module is not None and "." not in name and name in module.imports:
        imported = module.imports[name]
        if imported.rpartition(".")[0] in ("functools", "abc", "contextlib", "typing"):
            return imported
    return name
