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

from sglang_lint.checks.fails_when.check import EnumClass, RecordClass
from sglang_lint.derive.source.tree import Module, defining_module
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal

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
        self.enums: dict[str, EnumClass | None] = {}  # the enums asked for (paths read their members)

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

    def enum(self, name: str, module: Module) -> EnumClass | None:
        """The sglang enum ``name`` reads in ``module`` (an :class:`EnumClass`), else None."""
        found = self._class(name, module)
        if found is None:
            return None
        owner, cls = found
        key = f"{owner.name}.{cls.name}"
        if key not in self.enums:
            self.enums[key] = enum_class(cls, owner)
        return self.enums[key]

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


_ENUM_BASES = {("enum.Enum",): None, ("enum.IntEnum",): int, ("enum.StrEnum",): str,
               ("str", "enum.Enum"): str, ("int", "enum.Enum"): int}
# methods that change how members compare, hash or test, or how they are made
_ENUM_HOOKS = frozenset({"__eq__", "__ne__", "__hash__", "__bool__", "__len__", "__new__", "__init__", "_missing_",
                         "_generate_next_value_", "__init_subclass__", "__lt__", "__gt__", "__le__", "__ge__"})


def enum_class(cls: ast.ClassDef, owner: Module) -> EnumClass | None:
    """The class as an :class:`EnumClass`, or None when it is not one (its bases, a hook of
    its own, a member that is no literal, two members of one value)."""
    bases = tuple(owner.imports.get(b.id, b.id) if isinstance(b, ast.Name) else ast.unparse(b) for b in cls.bases)
    decorators = {ast.unparse(d) for d in cls.decorator_list}
    if bases not in _ENUM_BASES or cls.keywords or not decorators <= {"unique", "enum.unique"}:
        return None
    mixin = _ENUM_BASES[bases]
    members: dict[str, object] = {}
    automatic = False
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name in _ENUM_HOOKS:
                return None
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)) or statement.targets[0].id.startswith("_"):
            return None
        value = statement.value
        if isinstance(value, ast.Call) and ast.unparse(value.func) in ("auto", "enum.auto") and not value.args:
            automatic = True
            members[statement.targets[0].id] = statement.targets[0].id.lower() if mixin is str else len(members) + 1
            continue
        literal = ast_literal(value)
        if literal is NOT_LITERAL or isinstance(literal, (list, dict, set)):
            return None
        members[statement.targets[0].id] = literal
    values = list(members.values())
    distinct = len({(v if not isinstance(v, float) else repr(v)) for v in values}) == len(values)
    if not members or not distinct or (automatic and len({type(v) for v in values}) > 1) or (
            mixin is not None and not all(isinstance(v, mixin) and not isinstance(v, bool) for v in values)):
        return None  # (auto() mixed with literals may repeat a value)
    falsy = tuple(name for name, value in members.items() if mixin is not None and not value)
    return EnumClass(f"{owner.name}.{cls.name}", tuple(members), falsy, mixin is None)


def _names_bound(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []
