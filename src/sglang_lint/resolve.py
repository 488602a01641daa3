"""What does this name call, and what value does this expression have?

A small resolver, built by the engine's single visitor pass, instead of LibCST's
``QualifiedNameProvider`` (about 4x slower on sglang's tree). It knows:

* imports (``import a.b as c``, ``from a.b import f as g``, relative imports inside the
  ``sglang`` package, imports inside functions) and module-level ``def``/``class``;
* every binding of every name, per scope (module, function, lambda, class body), with
  where its statement sits, so that a use sees only the bindings that can reach it (a
  plain assignment earlier in an enclosing block hides every binding before it);
* a name is *known* only when every binding that reaches a use is a literal (or another
  known name, or a parameter's literal default).

Anything it does not follow (a parameter without default, a loop variable, a name rebound
inside a loop, ``global``/``nonlocal`` rebinding, tuple unpacking, a call result) is
:data:`OPAQUE`: unknown, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Iterator, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

MAX_DEPTH = 8  # how many name-to-name hops a value may take before it counts as unknown


class _Opaque:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _Opaque()


@dataclass(frozen=True)
class Param:
    """A binding made by a function parameter (``index`` counts ``self``; -1: keyword-only)."""

    function: cst.FunctionDef | cst.Lambda
    index: int
    default: cst.BaseExpression | None


@dataclass(frozen=True)
class Imported:
    """A binding that names something by its qualified name (an import)."""

    qualified: str


@dataclass(frozen=True)
class Defined:
    """A ``def`` or ``class`` statement; ``qualified`` when it is top-level in a known module."""

    node: cst.FunctionDef | cst.ClassDef
    qualified: str | None


Binding = Union[cst.BaseExpression, Param, Imported, Defined, _Opaque]

INFINITY = 1 << 60


@dataclass(frozen=True)
class Where:
    """Where a statement sits: the (block id, index) of each enclosing statement from the
    module down, its order in the text, and whether a loop of its own scope encloses it."""

    path: tuple[tuple[int, int], ...]
    seq: int
    in_loop: bool = False


@dataclass(frozen=True, eq=False)
class BindingSite:
    value: Binding
    where: Where
    direct: bool  # a plain statement of its block (or a parameter): runs whenever the block runs
    fixed: bool = False  # made from another scope (``global``/``nonlocal``): may happen any time


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "function", "lambda", "class"
    node: cst.CSTNode
    parent: "Scope | None"
    body: tuple[tuple[int, int], ...] = ()  # path prefix of the statements of this scope
    body_key: int = 0  # id of the block holding them
    bindings: dict[str, list[BindingSite]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)
    class_info: "ClassInfo | None" = None  # for a function defined directly in a class body
    loop_depth: int = 0

    def bind(self, name: str, site: BindingSite) -> None:
        self.bindings.setdefault(name, []).append(site)

    def end(self) -> Where:
        """A use "after this scope has run": how nested scopes see its names."""
        return Where(self.body + ((self.body_key, INFINITY),), INFINITY)


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

    ``node`` is where it shows at the use (the literal itself, or the name that carried it),
    ``via`` the names it flowed through (``MODE`` for ``f(mode=MODE)``), ``origin`` the
    literal where it was written, and ``default`` whether it is a parameter's default."""

    value: object
    node: cst.CSTNode
    via: tuple[str, ...] = ()
    origin: cst.CSTNode | None = None
    default: bool = False

    @property
    def written(self) -> cst.CSTNode:
        return self.origin if self.origin is not None else self.node


def _qualified_name(value: Binding) -> str | None:
    if isinstance(value, Imported):
        return value.qualified
    if isinstance(value, Defined):
        return value.qualified
    return None


def _reaches(binding: BindingSite, sites: list[BindingSite], use: Where) -> bool:
    """Can ``binding`` be the last one made before ``use``?

    Not when it comes later in the text, outside a loop around both; and not when another
    plain binding sits earlier in a block on the use's way in (so it runs on every path to
    the use) while ``binding`` is outside the stretch from that binding to the use."""
    if binding.fixed:
        return True
    if binding.where.seq > use.seq and not (binding.where.in_loop and use.in_loop):
        return False
    for other in sites:
        if other is binding or not other.direct or other.fixed:
            continue
        depth = len(other.where.path) - 1
        if len(use.path) <= depth or other.where.path[:depth] != use.path[:depth]:
            continue
        block, start = other.where.path[depth]
        use_block, stop = use.path[depth]
        if block != use_block or start >= stop:
            continue
        path = binding.where.path
        inside = (
            len(path) > depth
            and path[:depth] == use.path[:depth]
            and path[depth][0] == block
            and start <= path[depth][1] <= stop
        )
        if not inside:
            return False
    return True


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


# Fields holding a name that is not a read of a variable: ``x.attr``, ``f(keyword=...)``,
# what a statement binds (``x = ``, ``for x in``, ``as x``, ``del x``, a parameter).
_NOT_READS = {
    cst.Attribute: ("attr",), cst.Arg: ("keyword",), cst.AssignTarget: ("target",),
    cst.AnnAssign: ("target",), cst.For: ("target",), cst.CompFor: ("target",), cst.NamedExpr: ("target",),
    cst.AsName: ("name",), cst.Del: ("target",), cst.Param: ("name",),
}
_OWN_NAMES = (cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)


def reads(node: cst.CSTNode, name: str) -> bool:
    """Does the code ``node`` read the variable ``name`` (of the scope ``node`` is in)?
    Not inside a nested ``def``/``class``, nor a lambda with a parameter of that name."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value == name:
                return True
            continue
        if isinstance(current, _OWN_NAMES):
            continue
        if isinstance(current, cst.Lambda) and any(
            isinstance(p, cst.Param) and p.name.value == name
            for p in (*current.params.posonly_params, *current.params.params, *current.params.kwonly_params,
                      current.params.star_arg, current.params.star_kwarg)
        ):
            continue
        skipped = [getattr(current, f) for f in _NOT_READS.get(type(current), ())]
        stack.extend(c for c in current.children if not any(c is s for s in skipped))
    return False


class FileModel:
    """Everything the single visitor pass learned about one file."""

    def __init__(self, path: str | None):
        self.path = path
        self.module_name, self.is_package = module_name_for(path)
        self.classes: dict[cst.ClassDef, ClassInfo] = {}
        self.classes_by_name: dict[str, list[ClassInfo]] = {}
        self.class_scopes: dict[cst.ClassDef, Scope] = {}
        # (scope, dotted target text, value) for ``cfg.encoder_only = True`` style writes
        self.attribute_writes: list[tuple[Scope, str, cst.BaseExpression]] = []
        self.module_scope: Scope | None = None
        self.mutated_names: set[str] = set()  # names written through: kw[...] = ..., kw.update()
        self.module: cst.Module | None = None
        self._positions = None

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
        found = self.lookup(head, scope)
        if found is None:
            return None
        names = {_qualified_name(site.value) for site in found[0]}
        if len(names) != 1 or None in names:
            return None
        (qualified,) = names
        return f"{qualified}.{rest}" if rest else qualified

    def lookup(self, name: str, scope: Scope) -> tuple[list[BindingSite], Scope] | None:
        """Every binding of ``name`` visible from ``scope`` (Python's LEGB rule), and the
        scope that owns them."""
        current: Scope | None = scope
        while current is not None:
            if name in current.global_names:
                module = self.module_scope
                return (module.bindings[name], module) if module and name in module.bindings else None
            if current.kind == "class" and current is not scope:
                current = current.parent  # class bodies are not enclosing scopes
                continue
            if name in current.bindings:
                return current.bindings[name], current
            current = current.parent
        return None

    def binding_scope(self, name: str, scope: Scope) -> Scope | None:
        found = self.lookup(name, scope)
        return found[1] if found is not None else None

    def single_binding(self, name: str, scope: Scope) -> Binding | None:
        """The value of the one binding ``name`` has in all of its scope, or None."""
        found = self.lookup(name, scope)
        if found is None or len(found[0]) != 1:
            return None
        return found[0][0].value

    def reaching(self, name: str, scope: Scope, use: Where | None) -> tuple[list[BindingSite], Scope] | None:
        """The bindings of ``name`` that can reach a use at ``use`` in ``scope`` (None: the
        use is after the scope has run). A name of an enclosing scope is seen as it is once
        that scope has run."""
        found = self.lookup(name, scope)
        if found is None:
            return None
        sites, owner = found
        if owner is not scope or use is None or owner.kind == "lambda":
            use = owner.end()
        return [b for b in sites if _reaches(b, sites, use)], owner

    def evaluate(
        self, node: cst.BaseExpression, scope: Scope, use: Where | None, depth: int = 0, may: bool = False
    ) -> list[Known]:
        """The values ``node`` is known to take at ``use``: one for a literal, one per literal
        branch of a conditional expression, those of every binding of a name that reaches
        the use. All of those bindings must be known, unless ``may`` asks for the values it
        *may* take (then the unknown ones are skipped). Unknown: []."""
        if depth > MAX_DEPTH:
            return []
        literal = literal_value(node)
        if literal is not NOT_LITERAL:
            return [Known(literal, node, origin=node)]
        if isinstance(node, cst.IfExp):
            return self.evaluate(node.body, scope, use, depth + 1, may) + self.evaluate(
                node.orelse, scope, use, depth + 1, may
            )
        if isinstance(node, cst.Name):
            found = self.reaching(node.value, scope, use)
            if found is None or not found[0]:
                return []
            sites, owner = found
            values: list[Known] = []
            for site in sites:
                value = site.value
                if isinstance(value, Param):
                    default = literal_value(value.default) if value.default is not None else NOT_LITERAL
                    if default is not NOT_LITERAL:
                        values.append(Known(default, node, (node.value,), value.default, default=True))
                        continue
                    inner = []
                elif isinstance(value, (Imported, Defined, _Opaque)):
                    inner = []
                else:
                    inner = self.evaluate(value, owner, site.where, depth + 1, may)
                if not inner:
                    if may:
                        continue
                    return []
                values += [Known(k.value, node, (node.value,) + k.via, k.origin, k.default) for k in inner]
            return values
        if isinstance(node, cst.Attribute):
            qualified = self.qualify(node, scope)
            if qualified is not None:
                return [Known(Ref(qualified), node, origin=node)]
        return []

    def dict_literal(self, node: cst.BaseExpression, scope: Scope, use: Where | None) -> cst.Dict | None:
        """``**{...}`` itself, or a name whose one reaching binding is a dict literal and
        which the file never changes (no ``kw[...] =``, no ``kw.update(...)``)."""
        if isinstance(node, cst.Dict):
            return node
        if isinstance(node, cst.Name) and node.value not in self.mutated_names:
            found = self.reaching(node.value, scope, use)
            if found is not None and len(found[0]) == 1 and isinstance(found[0][0].value, cst.Dict):
                return found[0][0].value
        return None

    def position(self, node: cst.CSTNode):
        """Where a node is (a LibCST CodeRange). Positions are computed once, on first need:
        only files with something to report pay for them."""
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions[node]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def is_local_subclass(self, info: ClassInfo, base: ClassInfo, seen: int = 0) -> bool:
        """Is ``info`` the class ``base`` or a subclass of it, through classes of this file?"""
        if info is base:
            return True
        if seen > MAX_DEPTH:
            return False
        for parent in info.node.bases:
            if isinstance(parent.value, cst.Name):
                for local in self.classes_by_name.get(parent.value.value, ()):
                    if local is not info and self.is_local_subclass(local, base, seen + 1):
                        return True
        return False

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
