"""Reading an sglang tree: where it is, which release it is, and every module of it parsed
with :mod:`ast` (never imported), with its imports, module constants and in-place writes."""

from __future__ import annotations

import ast
import gc
import importlib.machinery
import sys
import warnings
from collections import Counter, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sglang_lint.text.pynames import resolve_relative

MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "remove", "discard", "clear",
     "register", "__setitem__"}
)

# Method names too common to match by name alone: builtins, torch.nn.Module, and the
# everyday verbs of Python code. A method named like this needs receiver evidence.
COMMON_METHODS = frozenset(
    {name for typ in (dict, list, str, set, bytes, int, float, object, tuple) for name in dir(typ)}
    | {
        "forward", "train", "eval", "to", "cuda", "cpu", "half", "float", "double", "apply",
        "load_state_dict", "state_dict", "named_parameters", "parameters", "modules",
        "register_buffer", "register_parameter", "zero_grad", "requires_grad_", "extra_repr",
        "run", "start", "stop", "close", "open", "read", "write", "send", "recv", "get", "set",
        "put", "join", "update", "reset", "init", "setup", "build", "load", "save", "call",
        "process", "validate", "generate", "encode", "decode", "parse", "record", "step",
        "flush", "submit", "result", "wait", "execute", "dispatch", "register", "create",
        "add", "remove", "clear", "copy", "format", "convert", "prepare", "finalize", "handle",
        "compute", "transform", "check", "configure", "initialize", "sample", "predict",
        "from_config", "from_pretrained", "from_dict", "to_dict", "__call__",
    }
)
# Decorators that keep a function's calling convention.
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "no_grad", "inference_mode", "lru_cache", "cache", "wraps",
     "torch.no_grad", "torch.inference_mode", "functools.lru_cache", "functools.cache"}
)


def method_owners(modules) -> Counter:
    """How many classes of the tree define each method name (a name several define cannot be
    matched by name alone)."""
    owners: Counter = Counter()
    for module in modules:
        for node in module.classes:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    owners[item.name] += 1
    return owners


def locate_sglang(explicit: str | None) -> Path:
    """The folder holding the ``sglang`` package: ``explicit``, or the installed one, found
    without importing it."""
    if explicit:
        root = Path(explicit)
        if (root / "sglang" / "__init__.py").is_file():
            return root
        if root.name == "sglang" and (root / "__init__.py").is_file():
            return root.parent
        raise FileNotFoundError(f"{explicit}: no sglang package here (expected {root / 'sglang' / '__init__.py'})")
    spec = importlib.machinery.PathFinder.find_spec("sglang", sys.path)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("sglang is not installed here; pass --sglang PATH (the folder holding sglang/)")
    return Path(list(spec.submodule_search_locations)[0]).parent


UNKNOWN_VERSION = "unknown"


def sglang_version(root: Path, wheel: str | Path | None = None) -> str:
    """The release of the sglang tree under ``root``, read in this order: the installed
    ``sglang-X.dist-info`` folder, the ``sglang/_version.py`` that sglang's wheels ship (written
    by its build), then the wheel's file name if the caller knows it. Never a fallback
    literal: ``sglang/version.py`` holds ``"0.0.0.dev0"`` for a tree without either, which is
    no release. :data:`UNKNOWN_VERSION` when none of them says."""
    for info in sorted(root.glob("sglang-*.dist-info")):
        return info.name[len("sglang-"): -len(".dist-info")]
    built = root / "sglang" / "_version.py"
    if built.is_file():
        version = _assigned_string(built, "__version__")
        if version:
            return version
    if wheel is not None:
        # sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl (PEP 427: name-version-...)
        parts = Path(wheel).name.split("-")
        if len(parts) >= 3 and parts[0] == "sglang" and Path(wheel).suffix == ".whl":
            return parts[1]
    return UNKNOWN_VERSION


def _assigned_string(path: Path, name: str) -> str | None:
    """The string literal assigned to a module-level ``name`` (also in a chained assignment,
    ``__version__ = version = '0.5.23'``), read with :mod:`ast`, never imported."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        else:
            targets = [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


@dataclass
class Module:
    name: str
    path: Path
    source: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)
    constants: dict[str, ast.expr] = field(default_factory=dict)
    definitions: set[str] = field(default_factory=set)  # top-level def and class names
    mutated: set[str] = field(default_factory=set)  # changed in place (X[k] = v, X.update()), or rebound (global)
    # module constants changed in place at run time, here or by a module importing them (a registry)
    extended: set[str] = field(default_factory=set)
    # attribute names written anywhere (``x.NAME = v``, ``x.NAME[k] = v``, ``x.NAME.update()``): a
    # class attribute or another module's constant of that name may be changed at run time
    written_attributes: set[str] = field(default_factory=set)
    functions: list[ast.FunctionDef] = field(default_factory=list)  # every def, nested or not
    classes: list[ast.ClassDef] = field(default_factory=list)
    _call_parameters: dict | None = field(default=None, repr=False, compare=False)

    def call_parameters(self) -> dict[int, set[str]]:
        """id(call) -> the parameters of the function the call stands in (a nested function's
        own), made once per module."""
        if self._call_parameters is None:
            self._call_parameters = {id(n): {a.arg for a in f.args.args + f.args.kwonlyargs}
                                     for f in self.functions for n in ast.walk(f) if isinstance(n, ast.Call)}
        return self._call_parameters


@contextmanager
def no_gc():
    """Millions of AST nodes stay alive at once; the cyclic collector would rescan them after
    every few thousand allocations (3-4x the work). Nothing here leaks cycles. (No
    ``gc.freeze`` after, though the first collection then scans every node read: it would also
    set aside for good whatever cyclic garbage the process holds at that moment, gigabytes in a
    long-lived process.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_modules(root: Path) -> list[Module]:
    """Every module of the tree, parsed, with its imports, constants and in-place writes."""
    with no_gc():
        modules = _read_modules(root)
    # A set or dict changed in place anywhere (its own module, or one importing it) is a
    # registry filled at run time, not a literal set.
    by_name = {m.name: m for m in modules}
    changed = {f"{m.name}.{name}" for m in modules for name in m.mutated}
    changed |= {origin(m.imports[name], by_name) for m in modules for name in m.mutated if name in m.imports}
    for module in modules:
        module.extended = {k for k in module.constants if f"{module.name}.{k}" in changed}
        module.constants = {k: v for k, v in module.constants.items() if k not in module.extended}
    return modules


def _read_modules(root: Path) -> list[Module]:
    modules = []
    for path in sorted((root / "sglang").rglob("*.py")):
        relative = path.relative_to(root).with_suffix("")
        parts = list(relative.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not all(p.isidentifier() for p in parts):
            continue
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, ValueError):
            continue
        module = read_module(".".join(parts), path, source)
        if module is not None:
            modules.append(module)
    return modules


def read_module(name: str, path: Path, source: str) -> Module | None:
    """One module, parsed, with its imports, constants and in-place writes (None: it does not
    parse)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sglang's own invalid escapes are not ours to report
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    module = Module(name, path, source, tree)
    is_package = path.name == "__init__.py"
    seen: Counter = Counter()
    for node in tree.body:
        for target in _top_level_names(node):
            seen[target] += 1
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    module.constants[target.id] = node.value
    module.constants = {k: v for k, v in module.constants.items() if seen[k] == 1}
    module.definitions = {
        n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    for node in walk_all(tree):
        kind = type(node)
        if kind not in _READ_KINDS:
            continue
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            module.functions.append(node)
        elif kind is ast.ClassDef:
            module.classes.append(node)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name):
                module.mutated.add(node.value.id)
            elif isinstance(node.value, ast.Attribute):
                module.written_attributes.add(node.value.attr)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            module.written_attributes.add(node.attr)
        elif isinstance(node, ast.Global):
            module.mutated.update(node.names)  # rebound at run time (``global _SP; _SP = group``): no constant
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if isinstance(node.func.value, ast.Name) and node.func.attr in MUTATING_METHODS:
                module.mutated.add(node.func.value.id)
            elif isinstance(node.func.value, ast.Attribute) and node.func.attr in MUTATING_METHODS:
                module.written_attributes.add(node.func.value.attr)
        elif isinstance(node, ast.ImportFrom):
            base = import_base(node, module.name, is_package)
            if base is None:
                continue
            for alias in node.names:
                module.imports.setdefault(alias.asname or alias.name, f"{base}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imports.setdefault(alias.asname, alias.name)
    return module


# what read_module notes of a node (a type's subclass is never an ast node's type)
_READ_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Subscript, ast.Attribute, ast.Global,
                         ast.Call, ast.ImportFrom, ast.Import})


MAX_REEXPORTS = 8  # (a re-export chain is short; a cycle is not followed for ever)


def follow_imports(module: Module, name: str, modules: dict[str, Module]) -> tuple[Module | None, str]:
    """Where ``name``, as ``module`` reads it, is bound: through the modules that only import it
    (a re-export: ``from sglang.a import NAME`` in ``sglang.x``) to the one that assigns or
    defines it, and its name there. A module that binds the name itself (a constant, a def or
    a class) ends the walk even where it also imports it: its own binding is the one its
    module-level code reads. (None, the qualified name) where the chain leaves ``modules``."""
    for _ in range(MAX_REEXPORTS):
        onward = module.imports.get(name)
        if onward is None or name in module.constants or name in module.definitions:
            return module, name
        owner, _, name = onward.rpartition(".")
        if owner not in modules:
            return None, onward
        module = modules[owner]
    return module, name


def origin(qualified: str, modules: dict[str, Module]) -> str:
    """The qualified name an imported ``sglang.x.NAME`` is bound under (:func:`follow_imports`):
    ``qualified`` itself where ``sglang.x`` is not among ``modules``."""
    owner, _, short = qualified.rpartition(".")
    if owner not in modules:
        return qualified
    module, name = follow_imports(modules[owner], short, modules)
    return name if module is None else f"{module.name}.{name}"


def import_base(node: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    """The module a ``from ... import`` reads from, relative dots resolved; None when the dots
    climb above sglang (the import fails, it binds nothing)."""
    if not node.level:
        return node.module or ""
    return resolve_relative(module, is_package, node.level, node.module)


def defining_module(name: str, module: Module, modules: dict[str, Module]) -> tuple[Module, str] | None:
    """Where a name ``module`` reads is defined: the module itself for its own top-level def or
    class, else the module it imports the name from (``from sglang.x import y``), with the name
    there; None when that module is not among ``modules``."""
    if name in module.definitions:
        return module, name
    return defined_at(module.imports.get(name, ""), modules)


def defined_at(qualified: str, modules: dict[str, Module]) -> tuple[Module, str] | None:
    """(module, name) of ``sglang.x.y`` among ``modules`` (``sglang.x`` and ``y``), else None."""
    owner, _, short = qualified.rpartition(".")
    return (modules[owner], short) if owner in modules else None


def _top_level_names(node: ast.stmt) -> list[str]:
    """The names a module-level statement binds (not looking inside functions or classes)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return [n.id for n in walk_local(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def walk_all(node: ast.AST):
    """:func:`ast.walk`, node for node in its order (breadth first), without its generator
    per node (``ast.iter_child_nodes``), and without the ``Load``/``Store``/``Del`` markers
    of names (a third of the nodes; a name's ``ctx`` tells its use): 1.4x faster, and the
    deriver walks tens of millions of nodes."""
    todo = deque([node])
    marker = ast.expr_context
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                if not isinstance(value, marker):
                    todo.append(value)
            elif isinstance(value, list):
                todo.extend([item for item in value if isinstance(item, ast.AST)])
        yield node


# not entered: nested scopes, and the markers of names' use (``ctx``)
_NOT_LOCAL = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr_context)


def walk_local(node: ast.AST):
    """ast.walk that does not enter nested functions, classes or lambdas (depth first), nor
    yields the ``Load``/``Store``/``Del`` markers of names."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                if not isinstance(value, _NOT_LOCAL):
                    stack.append(value)
            elif isinstance(value, list):
                stack.extend([item for item in value if isinstance(item, ast.AST) and not isinstance(item, _NOT_LOCAL)])


def local_raises(function: ast.AST) -> tuple[ast.Raise | ast.Assert, ...]:
    """The raise and assert statements of a function's own body (:func:`walk_local`'s order),
    found once per function: the deriver's passes each ask it of every function of the tree."""
    found = function.__dict__.get("_local_raises")
    if found is None:
        found = function._local_raises = tuple(
            node for node in walk_local(function) if isinstance(node, (ast.Raise, ast.Assert)))
    return found


def source_path(module: Module) -> str:
    """The module's file, relative to the tree (``sglang/srt/server_args.py``)."""
    path = module.name.replace(".", "/")
    return f"{path}/__init__.py" if module.path.name == "__init__.py" else f"{path}.py"


class LazyTree:
    """An sglang tree read on demand: its module names listed up front, a module's text read
    and the module parsed the first time it is asked for (a whole tree parses in tens of
    seconds; the public API needs a few dozen modules)."""

    def __init__(self, root: Path):
        self._paths: dict[str, Path] = {}
        for path in sorted((root / "sglang").rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if all(p.isidentifier() for p in parts):
                self._paths[".".join(parts)] = path
        self._texts: dict[str, str | None] = {}
        self._modules: dict[str, Module | None] = {}

    def names(self):
        """The tree's module names, none of them read."""
        return self._paths.keys()

    def text(self, name: str) -> str | None:
        """The module's text, unparsed (None: not in the tree, or it does not decode)."""
        if name not in self._texts:
            path = self._paths.get(name)
            try:
                self._texts[name] = path.read_text(encoding="utf-8") if path is not None else None
            except (UnicodeDecodeError, ValueError, OSError):
                self._texts[name] = None
        return self._texts[name]

    def module(self, name: str) -> Module | None:
        """The module ``name`` parsed (None: not in the tree, or it does not parse)."""
        if name not in self._modules:
            text = self.text(name)
            self._modules[name] = read_module(name, self._paths[name], text) if text is not None else None
        return self._modules[name]

    def definition(self, qualified: str, depth: int = 0) -> tuple[Module, ast.stmt] | None:
        """The top-level ``def`` or ``class`` statement a qualified name leads to, through the
        imports of the modules on the way (``sglang.x.Y`` imported into ``sglang.z``), and
        the module it is in; None where it leads out of the tree or to anything else."""
        owner, _, short = qualified.rpartition(".")
        module = self.module(owner)
        if module is None or depth > 8:
            return None
        last = next((node for node in reversed(module.tree.body) if short in bound_names(node)), None)
        if isinstance(last, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return module, last
        if isinstance(last, ast.ImportFrom) and module.imports.get(short, qualified) != qualified:
            return self.definition(module.imports[short], depth + 1)
        return None


def bound_names(node: ast.stmt) -> set[str]:
    """Every name a module-level statement binds: defs, classes, imports and assignments, in
    the branches of an ``if``, ``try``, ``with`` or loop too."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*"}
    inner = [getattr(node, name, None) or [] for name in ("body", "orelse", "finalbody", "handlers", "cases")]
    statements = [s for block in inner for s in block if isinstance(s, ast.stmt)]
    statements += [s for block in inner for h in block if isinstance(h, (ast.ExceptHandler, ast.match_case))
                   for s in h.body]
    if not statements:
        return set(_top_level_names(node))
    found = {n.id for part in ("test", "target", "items", "subject") for n in _names_in(getattr(node, part, None))}
    for statement in statements:
        found |= bound_names(statement)
    return found


def _names_in(value) -> list:
    values = value if isinstance(value, list) else [value] if value is not None else []
    return [n for v in values for n in walk_local(v) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
