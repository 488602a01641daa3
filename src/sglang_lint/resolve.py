"""What does this name call, and what value does this expression have?

A small resolver, built by the engine's single visitor pass, instead of LibCST's
``QualifiedNameProvider`` (about 4x slower on sglang's tree). It knows:

* imports (``import a.b as c``, ``from a.b import f as g``, relative imports inside the
  ``sglang`` package, imports inside functions) and module-level ``def``/``class``;
* every binding of every name, per scope (module, function, lambda, class body), so a
  name is *known* only when the resolver sees all of its bindings and each is a literal.

Anything it does not follow (a parameter, a loop variable, ``global`` rebinding, a
tuple unpacking, a call result) is :data:`OPAQUE`: unknown, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Iterator, Union

import libcst as cst

MAX_DEPTH = 8  # how many name-to-name hops a value may take before it counts as unknown


class _Opaque:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _Opaque()


@dataclass(frozen=True)
class Param:
    """A binding made by a function parameter (``index`` counts ``self``)."""

    function: cst.FunctionDef | cst.Lambda
    index: int
    default: cst.BaseExpression | None


@dataclass(frozen=True)
class Imported:
    """A binding that names something by its qualified name: an import, or a top-level
    ``def``/``class`` of a module whose name is known."""

    qualified: str


Binding = Union[cst.BaseExpression, Param, Imported, _Opaque]


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "function", "lambda", "class"
    node: cst.CSTNode
    parent: "Scope | None"
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)
    class_info: "ClassInfo | None" = None  # for a function defined directly in a class body

    def bind(self, name: str, value: Binding) -> None:
        self.bindings.setdefault(name, []).append(value)


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    name: str
    scope: Scope  # the scope the class statement is in
    qualified: str | None  # module.Class for a top-level class of a known module


@dataclass(frozen=True)
class Ref:
    """A dotted name that resolved through imports, e.g. an enum member
    ``sglang.srt.model_executor.forward_batch_info.ForwardMode.EXTEND``."""

    qualified: str

    def __repr__(self) -> str:
        return ".".join(self.qualified.split(".")[-2:])


@dataclass(frozen=True)
class Known:
    """One value an expression is known to take.

    ``node`` is the literal itself (where a finding about it is reported, if it sits in
    the call) and ``via`` the names the value flowed through (``MODE`` for ``f(mode=MODE)``).
    """

    value: object
    node: cst.CSTNode
    via: tuple[str, ...] = ()


def module_name_for(path: str | None) -> tuple[str | None, bool]:
    """``.../sglang/srt/models/x.py`` -> (``sglang.srt.models.x``, is_package=False).

    Only files inside a folder named ``sglang`` get a module name: that is all relative
    imports need (user code importing sglang uses absolute imports)."""
    if not path:
        return None, False
    parts = PurePath(path).parts
    if not parts or not parts[-1].endswith(".py"):
        return None, False
    dirs = parts[:-1]
    if "sglang" not in dirs:
        return None, False
    start = len(dirs) - 1 - dirs[::-1].index("sglang")
    stem = parts[-1][:-3]
    is_package = stem == "__init__"
    names = list(dirs[start:]) + ([] if is_package else [stem])
    if not all(n.isidentifier() for n in names):
        return None, False
    return ".".join(names), is_package


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` as text for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def target_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The plain names an assignment target binds (through tuples, lists, starred)."""
    if isinstance(node, cst.Name):
        yield node
    elif isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from target_names(element.value)
    elif isinstance(node, cst.StarredElement):
        yield from target_names(node.value)


class FileModel:
    """Everything the single visitor pass learned about one file."""

    def __init__(self, path: str | None):
        self.path = path
        self.module_name, self.is_package = module_name_for(path)
        self.classes: dict[cst.ClassDef, ClassInfo] = {}
        self.classes_by_name: dict[str, list[ClassInfo]] = {}
        # (scope, dotted target text, value) for ``cfg.encoder_only = True`` style writes
        self.attribute_writes: list[tuple[Scope, str, cst.BaseExpression]] = []
        self.module_scope: Scope | None = None

    def resolve_relative(self, level: int, module: str | None) -> str | None:
        if not self.module_name:
            return None
        package = self.module_name.split(".")
        if not self.is_package:
            package = package[:-1]
        if level - 1 > len(package) - 1:
            return None
        base = package[: len(package) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    # --- resolution ---------------------------------------------------------------
    def qualify(self, node: cst.CSTNode, scope: Scope) -> str | None:
        """The one qualified name a Name/Attribute chain refers to, seen from ``scope``:
        every binding of its head name must be the same import (or top-level def)."""
        text = dotted_name(node)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        bindings = self.lookup(head, scope)
        if not bindings or not isinstance(bindings[0], Imported):
            return None
        qualified = bindings[0].qualified
        if any(b != bindings[0] for b in bindings[1:]):
            return None
        return f"{qualified}.{rest}" if rest else qualified

    def lookup(self, name: str, scope: Scope) -> list[Binding] | None:
        """All bindings of ``name`` visible from ``scope`` (Python's LEGB rule)."""
        current: Scope | None = scope
        while current is not None:
            if name in current.global_names:
                current = self.module_scope
                if current is None:
                    return None
                return current.bindings.get(name)
            if current.kind == "class" and current is not scope:
                current = current.parent  # class bodies are not enclosing scopes
                continue
            if name in current.bindings:
                return current.bindings[name]
            current = current.parent
        return None

    def binding_scope(self, name: str, scope: Scope) -> Scope | None:
        current: Scope | None = scope
        while current is not None:
            if name in current.global_names:
                return self.module_scope
            if current.kind == "class" and current is not scope:
                current = current.parent
                continue
            if name in current.bindings:
                return current
            current = current.parent
        return None

    def single_binding(self, name: str, scope: Scope) -> Binding | None:
        bindings = self.lookup(name, scope)
        if bindings is None or len(bindings) != 1:
            return None
        return bindings[0]

    def evaluate(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> list[Known]:
        """The values ``node`` is known to take: one for a literal, one per literal branch
        of a conditional expression, the literal behind a name bound once. Unknown: []."""
        if depth > MAX_DEPTH:
            return []
        literal = literal_value(node)
        if literal is not NOT_LITERAL:
            return [Known(literal, node)]
        if isinstance(node, cst.IfExp):
            return self.evaluate(node.body, scope, depth + 1) + self.evaluate(
                node.orelse, scope, depth + 1
            )
        if isinstance(node, cst.Name):
            binding = self.single_binding(node.value, scope)
            if binding is None or isinstance(binding, (Param, Imported, _Opaque)):
                return []
            owner = self.binding_scope(node.value, scope) or scope
            values = self.evaluate(binding, owner, depth + 1)
            # The finding is reported at the name in the call, not at the distant literal.
            return [Known(k.value, node, (node.value,) + k.via) for k in values]
        if isinstance(node, cst.Attribute):
            qualified = self.qualify(node, scope)
            if qualified is not None:
                return [Known(Ref(qualified), node)]
        return []

    def enclosing_class_of_self(self, scope: Scope) -> ClassInfo | None:
        """The class whose instance ``self`` is, when ``self`` is the first parameter of
        a method (possibly seen from a nested function or lambda)."""
        binding = self.single_binding("self", scope)
        if not isinstance(binding, Param) or binding.index != 0:
            return None
        current: Scope | None = scope
        while current is not None:
            if current.node is binding.function:
                return current.class_info
            current = current.parent
        return None

    def class_is_a(self, info: ClassInfo, wanted: frozenset[str], seen: int = 0) -> bool:
        """Is the class ``info`` (defined in this file) one of ``wanted`` or a subclass?"""
        if seen > MAX_DEPTH:
            return False
        if info.qualified in wanted:
            return True
        for base in info.node.bases:
            qualified = self.qualify(base.value, info.scope)
            if qualified in wanted:
                return True
            if isinstance(base.value, cst.Name):
                for local in self.classes_by_name.get(base.value.value, ()):
                    if local is not info and self.class_is_a(local, wanted, seen + 1):
                        return True
        return False

    def instance_of(self, receiver: cst.BaseExpression, scope: Scope, wanted: frozenset[str]) -> bool:
        """Is ``receiver`` provably an instance of one of ``wanted`` (qualified names)?

        Evidence: ``self`` inside such a class (or a subclass defined in this file), a
        name bound once to a constructor call of such a class, or the call itself."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            info = self.enclosing_class_of_self(scope)
            return info is not None and self.class_is_a(info, wanted)
        call = self.constructor_call(receiver, scope)
        if call is None:
            return False
        qualified = self.qualify(call.func, scope)
        if qualified in wanted:
            return True
        if isinstance(call.func, cst.Name):
            return any(
                self.class_is_a(info, wanted) for info in self.classes_by_name.get(call.func.value, ())
            )
        return False

    def constructor_call(self, receiver: cst.BaseExpression, scope: Scope) -> cst.Call | None:
        """The call that built ``receiver``: the call itself, or the one binding of a name."""
        if isinstance(receiver, cst.Call):
            return receiver
        if isinstance(receiver, cst.Name):
            binding = self.single_binding(receiver.value, scope)
            if isinstance(binding, cst.Call):
                return binding
        return None


class _NotLiteral:
    __slots__ = ()


NOT_LITERAL = _NotLiteral()


def literal_value(node: cst.CSTNode) -> object:
    """The Python value of a literal node, or NOT_LITERAL."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # an unusual prefix or escape LibCST cannot evaluate
            return NOT_LITERAL
        return NOT_LITERAL if value is None else value
    if isinstance(node, (cst.Integer, cst.Float)):
        try:
            return node.evaluated_value
        except Exception:
            return NOT_LITERAL
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_value(node.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    return NOT_LITERAL
