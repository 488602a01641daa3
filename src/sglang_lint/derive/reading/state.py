"""The state a method reads through ``self``, as its receiver was made.

A method's raise often tests what ``__init__`` stored (``if self.use_additional_t_cond and
addition_t_cond is None``). Where the class's own ``__init__`` sets ``self.a`` on every run
from its parameters, and no other method of the class (nor of its sglang bases) sets it again,
``self.a`` is known at a call whose receiver was made there (``m = Block(use_x=True); m(t)``):
the rule reads the constructor's parameters as its *receiver parameters*
(``checks.fails_when.Parameter.receiver``), bound from the call that made the receiver.

``__init__`` is run with the path runner (path_run.py) to its end, so what it stores is written
over its parameters exactly as a path is (``self.n = n or 4``); a statement it cannot follow,
``setattr``/``__dict__``, or a hook of the class on attribute access leaves no state at all."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.checks.fails_when.check import Parameter
from sglang_lint.derive.reading.constants import parameters_of
from sglang_lint.derive.reading.path_run import PathRun, Unwritable, function_body
from sglang_lint.derive.source.tree import Module, defined_at, walk_all
from sglang_lint.text.pynames import ast_dotted_name

# Hooks that make an attribute read or write run code of the class's own.
_ATTRIBUTE_HOOKS = frozenset({"__setattr__", "__getattr__", "__getattribute__", "__delattr__", "__new__",
                              "__init_subclass__"})
# Attributes a base outside sglang sets in its own methods (``nn.Module.train()`` sets training).
_SET_BY_EXTERNAL_BASES = frozenset({"training"})
MODULE_BASES = frozenset({"torch.nn.Module", "nn.Module"})
MAX_BASES = 8  # how far up sglang's bases are looked at


@dataclass(frozen=True)
class ReceiverState:
    """What a method of the class may read through ``self`` at a call whose receiver was made
    there: ``attributes`` (``self.a`` -> an expression over ``parameters``, the constructor's,
    each marked ``receiver``; None: set by ``__init__`` to something not followed)."""

    parameters: tuple[Parameter, ...]
    attributes: dict


def receiver_state(module: Module, owner: ast.ClassDef, modules: dict[str, Module], classes) -> ReceiverState | None:
    """The state of ``owner``'s instances right after ``owner(...)``, or None when there is none
    that is certain."""
    if owner.decorator_list or owner.keywords:
        return None
    found = _constructor(owner, module, modules, 0)
    if found is None:
        return None
    init, init_module = found  # (an inherited __init__ reads its own module's names)
    if init.decorator_list:
        return None
    positional = [*init.args.posonlyargs, *init.args.args]
    if not positional:
        return None
    parameters = [p for p in parameters_of(init, init_module, True) if not p.var and p.keyword]  # passed by name
    runner = PathRun(init_module, init, [p.name for p in parameters], positional[0].arg)
    runner.classes = classes
    try:
        for statement in function_body(init):
            runner._before(statement)
    except (Unwritable, RecursionError):
        return None
    stored = {key: value for key, value in runner.env.items() if key.startswith("self.")}
    changed = _set_elsewhere(owner, module, modules, 0)
    if changed is None or not any(value is not None for value in stored.values()):
        return None
    # (an attribute set again elsewhere stays, unknown: a call of the object it holds changes that object only)
    attributes = {key: None if key[5:] in changed else value for key, value in stored.items()}
    return ReceiverState(tuple(Parameter(p.name, p.position, p.keyword, p.default, receiver=True)
                               for p in parameters), attributes)


def _constructor(cls: ast.ClassDef, module: Module, modules: dict[str, Module], depth: int):
    """(``__init__``, its module) that ``cls(...)`` runs: its own, else its first sglang base's
    (the bases in order, each up its own first line); None where a class on the way has a hook
    of its own on attribute access or construction, or a base outside sglang comes first."""
    if depth > MAX_BASES or any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in _ATTRIBUTE_HOOKS
                                for n in cls.body):
        return None
    own = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if own is not None:
        return own, module
    for base in cls.bases:
        found = _sglang_class(base, module, modules)
        if found is None:
            return None  # nn.Module, object...: their __init__ sets none of the class's own attributes
        inherited = _constructor(found[1], found[0], modules, depth + 1)
        if inherited is not None:
            return inherited
    return None


def _set_elsewhere(cls: ast.ClassDef, module: Module, modules: dict[str, Module], depth: int) -> set[str] | None:
    """The attribute names a method of ``cls`` or of its sglang bases may set, ``__init__``s
    aside (a base's runs inside ``super().__init__(...)``, after which the runner forgets every
    ``self.`` attribute), and their properties; None when any attribute may be set
    (``setattr``, ``__dict__``)."""
    if depth > MAX_BASES:
        return None
    names: set[str] = set(_SET_BY_EXTERNAL_BASES)
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(ast.unparse(d).startswith(("property", f"{item.name}.")) or "cached_property" in ast.unparse(d)
                   for d in item.decorator_list):
                names.add(item.name)  # a property: storing it runs its setter
            if item.name == "__init__":
                continue
        selves = {"self", "cls"}
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and [*item.args.posonlyargs, *item.args.args]:
            selves.add([*item.args.posonlyargs, *item.args.args][0].arg)
        for node in walk_all(item):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                    "setattr", "delattr", "vars") and node.args and _is_self(node.args[0], selves):
                return None  # setattr(self, name, value): any attribute
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and _is_self(node.value, selves):
                return None
    for base in cls.bases:
        found = _sglang_class(base, module, modules)
        if found is None:
            continue  # a base outside sglang (nn.Module, ABC): its methods set its own attributes
        base_module, base_cls = found
        above = _set_elsewhere(base_cls, base_module, modules, depth + 1)
        if above is None:
            return None
        names |= above
    return names


def _is_self(node: ast.expr, selves: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in selves


def _sglang_class(base: ast.expr, module: Module, modules: dict[str, Module]):
    """(module, class statement) of a base class defined in sglang's source; None for one
    defined elsewhere; raises nothing."""
    qualified = base_name(base, module)
    if qualified is None or not qualified.startswith("sglang"):
        return None
    found = defined_at(qualified, modules)
    if found is None:
        return None
    owner, short = found
    cls = next((c for c in owner.tree.body if isinstance(c, ast.ClassDef) and c.name == short), None)
    return (owner, cls) if cls is not None else None


def base_name(base: ast.expr, module: Module) -> str | None:
    """The qualified name a base class expression reads (``nn.Module`` -> ``torch.nn.Module``)."""
    if isinstance(base, ast.Subscript):  # Generic[T], Base[T]
        base = base.value
    dotted = ast_dotted_name(base)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    if head in module.definitions:
        qualified = f"{module.name}.{head}"
    else:
        qualified = module.imports.get(head, head)
    return f"{qualified}.{rest}" if rest else qualified


def runs_when_called(method: str, owner: ast.ClassDef, module: Module, modules: dict[str, Module]) -> bool:
    """Does calling an instance of ``owner`` run ``method``: its own ``__call__``, or the
    ``forward`` of an ``nn.Module`` whose sglang classes define no ``__call__`` of their own?"""
    if method == "__call__":
        return True
    return method == "forward" and _module_subclass(owner, module, modules, 0)


def _module_subclass(cls: ast.ClassDef, module: Module, modules: dict[str, Module], depth: int) -> bool:
    if depth > MAX_BASES or any(isinstance(n, ast.FunctionDef) and n.name == "__call__" for n in cls.body):
        return False
    for base in cls.bases:
        if base_name(base, module) in MODULE_BASES:
            return True
        found = _sglang_class(base, module, modules)
        if found is not None and _module_subclass(found[1], found[0], modules, depth + 1):
            return True
    return False
