"""sglang's record classes: the dataclasses, msgspec structs and named tuples whose instances'
attributes are exactly the arguments they were made with (or the fields' literal defaults).

A fails-when rule whose path reads attributes of a parameter (``table.buckets``) lists the
record class the parameter is annotated with, so that the check can follow a call that makes
one (``_validate(GemmConfigTable(buckets={}))``). A class qualifies only when nothing of its
own runs at construction: no ``__init__``, ``__post_init__``, ``__new__`` or attribute hooks,
no base class but the record machinery, every default a literal, no ``init=False`` field.
"""

from __future__ import annotations

import ast

from sglang_lint.checks.fails_when import RecordClass
from sglang_lint.derive.tree import Module, defining_module
from sglang_lint.pynames import NOT_LITERAL, ast_literal

_DATACLASS = frozenset({"dataclass", "dataclasses.dataclass"})
_STRUCT = frozenset({"msgspec.Struct", "Struct"})
_NAMED_TUPLE = frozenset({"NamedTuple", "typing.NamedTuple"})
# Methods that make construction or attribute access do more than store the arguments.
_HOOKS = frozenset({"__init__", "__post_init__", "__new__", "__attrs_post_init__", "__setattr__", "__getattr__",
                    "__getattribute__", "__init_subclass__"})
_FACTORIES = {"list": [], "dict": {}, "tuple": ()}


def record_class(cls: ast.ClassDef, hooks: frozenset = _HOOKS) -> RecordClass | None:
    """The class's fields if it is a record class, else None. ``hooks``: the methods that
    disqualify it (the fails-when deriver reads a dataclass's ``__post_init__`` itself)."""
    decorators = cls.decorator_list
    names = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in decorators]
    bases = [ast.unparse(b) for b in cls.bases]
    options = {k.arg: ast_literal(k.value) for k in cls.keywords}
    if names and set(names) <= _DATACLASS and not bases and len(names) == 1:
        call = decorators[0]
        options = {k.arg: ast_literal(k.value) for k in call.keywords} if isinstance(call, ast.Call) else {}
        if options.get("init", True) is not True:
            return None
        kind = "dataclass"
    elif not names and len(bases) == 1 and bases[0] in _STRUCT | _NAMED_TUPLE:
        kind = "struct" if bases[0] in _STRUCT else "tuple"
        if kind == "tuple" and cls.keywords:
            return None
    else:
        return None
    if any(v is NOT_LITERAL for v in options.values()):
        return None
    fields, defaults = [], {}
    positional = None if options.get("kw_only") is not True else 0
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in hooks:
            return None
        if not isinstance(item, ast.AnnAssign):
            if isinstance(item, ast.Assign):
                return None  # a plain class attribute may be a default the reader cannot place
            continue
        if not isinstance(item.target, ast.Name):
            return None
        annotation = ast.unparse(item.annotation)
        if "ClassVar" in annotation:
            continue
        if "InitVar" in annotation or annotation.endswith("KW_ONLY") and kind != "dataclass":
            return None
        if annotation.endswith("KW_ONLY"):
            positional = len(fields) if positional is None else positional
            continue
        if item.value is not None:
            default = _default(item.value)
            if default is NOT_LITERAL:
                return None
            defaults[item.target.id] = default
        elif defaults and positional is None:
            return None  # (Python refuses a required field after a default one)
        fields.append(item.target.id)
    if not fields:
        return None
    return RecordClass(tuple(fields), len(fields) if positional is None else positional, defaults)


def post_init_fields(cls: ast.ClassDef) -> RecordClass | None:
    """The fields of a dataclass whose ``__post_init__`` is the only code of its own that runs at
    construction: calling the class calls ``__post_init__`` with the fields set to the arguments."""
    decorators = {ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list}
    if not decorators & _DATACLASS:
        return None
    return record_class(cls, _HOOKS - {"__post_init__"})


def _default(node: ast.expr) -> object:
    try:  # a literal, displays included (read as data, never run)
        value = ast.literal_eval(node)
        return value if not isinstance(value, (set, bytes)) else NOT_LITERAL
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("field", "dataclasses.field", "msgspec.field"):
        options = {k.arg: k.value for k in node.keywords}
        if node.args or set(options) - {"default", "default_factory", "repr", "compare", "hash", "metadata", "name"}:
            return NOT_LITERAL  # init=False, kw_only=..., a positional default: not read here
        if "default" in options:
            return _default(options["default"])
        factory = options.get("default_factory")
        if isinstance(factory, ast.Name) and factory.id in _FACTORIES:
            return type(_FACTORIES[factory.id])()
    return NOT_LITERAL


def annotated_records(annotation: ast.expr | None, module: Module, modules: dict[str, Module]) -> list:
    """The record classes an annotation names (``Config``, ``Config | None``,
    ``Optional[Config]``), each as (qualified name, RecordClass)."""
    if annotation is None:
        return []
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [*annotated_records(annotation.left, module, modules),
                *annotated_records(annotation.right, module, modules)]
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("Optional", "typing.Optional"):
        return annotated_records(annotation.slice, module, modules)
    if not isinstance(annotation, ast.Name):
        return []
    found = defining_module(annotation.id, module, modules)
    if found is None:
        return []
    owner, name = found
    cls = next((c for c in owner.tree.body if isinstance(c, ast.ClassDef) and c.name == name), None)
    record = record_class(cls) if cls is not None else None
    return [(f"{owner.name}.{name}", record)] if record is not None else []


class PlainClasses:
    """Which names a module reads are plain sglang classes, for ``isinstance`` in a path: a
    class of sglang's source with no base but other plain classes, no metaclass or class
    keywords, no decorator but dataclass. No literal, tensor or device is an instance of one."""

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.known: dict[str, bool] = {}

    def qualified(self, name: str, module: Module) -> str | None:
        """The qualified name of the plain class ``name`` reads in ``module``, else None."""
        found = self._class(name, module)
        if found is None:
            return None
        owner, cls = found
        return f"{owner.name}.{cls.name}" if self._plain(owner, cls, 0) else None

    def _class(self, name: str, module: Module):
        found = defining_module(name, module, self.modules)
        if found is None or not found[0].name.startswith("sglang"):
            return None
        owner, short = found
        cls = next((c for c in owner.tree.body if isinstance(c, ast.ClassDef) and c.name == short), None)
        if cls is None or sum(1 for n in owner.tree.body if short in _names_bound(n)) != 1:
            return None  # not a class, or the name is bound again
        return owner, cls

    def _plain(self, owner: Module, cls: ast.ClassDef, depth: int) -> bool:
        key = f"{owner.name}.{cls.name}"
        if key not in self.known:
            self.known[key] = False  # (a cycle of bases is not plain)
            decorators = {ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list}
            plain = depth < 8 and not cls.keywords and decorators <= _DATACLASS and all(
                isinstance(base, ast.Name) and (found := self._class(base.id, owner)) is not None
                and self._plain(*found, depth + 1) for base in cls.bases)
            self.known[key] = plain
        return self.known[key]


def _names_bound(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []
