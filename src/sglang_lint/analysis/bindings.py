"""The bindings of one file, and the collector that records them during the walk.

Every binding of every name, per scope (module, function, lambda, class body), with where its
statement sits (:class:`Where`); imports; classes; writes through a name (``kw[...] = ``,
``kw.update()``). The resolver (analysis/resolve.py) reads these facts; nothing else writes them.

Where a statement sits is a path: the (block id, index) of each enclosing statement from the
module down. :func:`may_be_last_binding` reads those paths: a binding reaches a use unless
it comes later, or another plain binding *dominates* the use after it (see
:meth:`Where.dominated_by`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.syntax import dotted_name, target_names
from sglang_lint.text.pynames import module_name_for, resolve_relative


class _Opaque:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OPAQUE"

    def __reduce__(self) -> str:  # (kept rules, ruletable.load_rules: unpickled as the one instance)
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


@dataclass(frozen=True)
class Augmented:
    """``name += value`` (or ``|=``): a new binding, made from the name's value before it.
    Unknown to :meth:`~sglang_lint.analysis.resolve.FileModel.evaluate`; analysis/built.py follows it for lists
    and dicts (which it changes in place)."""

    node: cst.AugAssign


@dataclass(frozen=True)
class Write:
    """A statement that changes or hands on the object a name holds, without rebinding it:
    ``kw["k"] = v``, ``del kw["k"]``, ``kw.update(...)``, ``cmd.append(...)`` (``node``: the
    Assign, Del or Call), the name passed to a call (``passed``), or bound to another name or
    attribute (``aliased``). analysis/built.py reads them to follow lists and dicts built in steps."""

    kind: str  # "setitem", "delitem", "method", "passed", "aliased"
    node: cst.CSTNode
    where: "Where"
    direct: bool  # a plain statement of its block, outside any loop
    scope: "Scope"


# What a name may be bound to: a LibCST expression, Param, Imported, Defined, _Opaque or
# Augmented (named in annotations only: the module is imported before LibCST is).
Binding = object

INFINITY = 1 << 60


@dataclass(frozen=True)
class Where:
    """Where a statement sits: the (block id, index) of each enclosing statement from the
    module down, its order in the text, and whether a loop of its own scope encloses it."""

    path: tuple[tuple[int, int], ...]
    seq: int
    in_loop: bool = False

    def dominates(self, use: "Where") -> bool:
        """Is this statement in a block on ``use``'s way in, before the statement that holds
        ``use``? Then, if it is a plain statement of its block, it runs on every path to ``use``."""
        depth = len(self.path) - 1
        if len(use.path) <= depth or self.path[:depth] != use.path[:depth]:
            return False
        block, index = self.path[depth]
        use_block, use_index = use.path[depth]
        return block == use_block and index < use_index

    def within(self, start: "Where", use: "Where") -> bool:
        """Does this statement sit in ``start``'s block, from ``start`` to the statement that
        holds ``use`` (``start`` dominates ``use``)?"""
        depth = len(start.path) - 1
        path = self.path
        block, first = start.path[depth]
        return (
            len(path) > depth
            and path[:depth] == use.path[:depth]
            and path[depth][0] == block
            and first <= path[depth][1] <= use.path[depth][1]
        )


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


def may_be_last_binding(binding: BindingSite, sites: list[BindingSite], use: Where) -> bool:
    """Can ``binding`` be the last one of its name made before ``use`` (``sites``: every
    binding of that name in the scope)?

    Not when it comes later in the text, outside a loop around both; and not when another
    plain binding *dominates* the use (runs on every path to it) while ``binding`` is outside
    the stretch from that binding to the use."""
    if binding.fixed:
        return True
    if binding.where.seq > use.seq and not (binding.where.in_loop and use.in_loop):
        return False
    return not any(
        other is not binding and other.direct and not other.fixed
        and other.where.dominates(use) and not binding.where.within(other.where, use)
        for other in sites
    )


@dataclass(eq=False)
class FileBindings:
    """What the collector learned about one file (the resolver reads it)."""

    module_name: str | None
    is_package: bool
    module_scope: Scope
    classes: dict = field(default_factory=dict)  # cst.ClassDef -> ClassInfo
    classes_by_name: dict = field(default_factory=dict)  # name -> [ClassInfo]
    class_scopes: dict = field(default_factory=dict)  # cst.ClassDef -> its body's Scope
    function_scopes: dict = field(default_factory=dict)  # cst.FunctionDef -> its body's Scope
    # (scope, dotted target text, value) for ``cfg.encoder_only = True`` style writes
    attribute_writes: list = field(default_factory=list)
    mutated_names: set = field(default_factory=set)  # names written through: kw[...] = ..., kw.update()
    # ``name = call(...)``: the bindings made from a call's result, under the call
    bound_calls: dict = field(default_factory=dict)  # cst.Call -> [(name, BindingSite)]
    writes: dict = field(default_factory=dict)  # name -> [Write], in text order

    @classmethod
    def for_path(cls, path: str | None) -> "FileBindings":
        module_name, is_package = module_name_for(path)
        return cls(module_name, is_package, Scope("module", cst.Module(body=()), None))


class BindingCollector:
    """Records, during the one walk, every binding with the position of its statement, the
    scopes, imports and classes (see :func:`sglang_lint.analysis.walk.walk`). The current scope and
    statement position (:meth:`where`) are what the other collectors file their sites under."""

    def __init__(self, facts: FileBindings):
        self.facts = facts
        self.scope: Scope = facts.module_scope
        # statement positions: [block id, index of the current statement in it]
        self.blocks: list[list[int]] = []
        self.seq = 0
        self.simple = 0  # >0 inside a plain statement (its bindings run whenever its block does)
        self.elifs: set[int] = set()

    # --- positions --------------------------------------------------------------------
    def where(self) -> Where:
        return Where(tuple((block, index) for block, index in self.blocks), self.seq, self.scope.loop_depth > 0)

    def statement(self) -> None:
        self.blocks[-1][1] += 1
        self.seq += 1

    def visit_Module(self, node: cst.Module) -> None:
        self.scope.node = node
        self.scope.body_key = id(node)
        self.blocks.append([id(node), -1])

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append([id(node), -1])

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.blocks.append([id(node), 0])
        self.simple += 1
        self.seq += 1

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.blocks.pop()
        self.simple -= 1

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement()
        self.simple += 1

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.simple -= 1

    def visit_For(self, node: cst.For) -> None:
        self.statement()
        self.bind_targets(node.target)

    def visit_While(self, node: cst.While) -> None:
        self.statement()

    def visit_Try(self, node: cst.Try) -> None:
        self.statement()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self.statement()

    def visit_With(self, node: cst.With) -> None:
        self.statement()

    def visit_Match(self, node: cst.Match) -> None:
        self.statement()

    def visit_If(self, node: cst.If) -> None:
        if id(node) not in self.elifs:
            self.statement()
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    # --- bindings -------------------------------------------------------------------
    def bind(self, name: str, value, direct: bool | None = None) -> BindingSite:
        scope, fixed = self.scope, False
        module_scope = self.facts.module_scope
        if name in scope.global_names and scope is not module_scope:
            # Rebound through ``global``: may happen at any time, so the name is unknown.
            scope, fixed, value = module_scope, True, OPAQUE
        if self.scope.loop_depth and not isinstance(value, (Imported, Defined)):
            value = OPAQUE  # rebound in a loop: unknown, never guessed
        direct = self.simple > 0 if direct is None else direct
        site = BindingSite(value, self.where(), direct, fixed)
        scope.bind(name, site)
        return site

    def bind_value(self, name: str, value: cst.BaseExpression) -> None:
        """``name = value``; a call's result is remembered under the call."""
        site = self.bind(name, value)
        if isinstance(value, cst.Call):
            self.facts.bound_calls.setdefault(value, []).append((name, site))

    def bind_targets(self, node: cst.CSTNode) -> None:
        for name in target_names(node):
            self.bind(name.value, OPAQUE, direct=False)

    def written_through(self, node: cst.CSTNode, statement: cst.CSTNode | None = None, kind: str = "") -> None:
        """``kw[...] = ...``, ``del kw[...]``: the object named ``kw`` is changed."""
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            self.facts.mutated_names.add(node.value.value)
            if statement is not None:
                self.write(node.value.value, kind, statement)
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute):
            self.facts.mutated_names.add(dotted_name(node.value) or "")  # self.kw[...] = ...

    def write(self, name: str, kind: str, node: cst.CSTNode) -> None:
        site = Write(kind, node, self.where(), self.simple > 0 and not self.scope.loop_depth, self.scope)
        self.facts.writes.setdefault(name, []).append(site)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local, qualified = alias.asname.name.value, full
            else:
                local = qualified = full.split(".", 1)[0]
            self.bind(local, Imported(qualified))

    def imported_module(self, node: cst.ImportFrom) -> str | None:
        """The absolute module a ``from ... import`` names (None: relative, outside a known package)."""
        module = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        if not level:
            return module
        return resolve_relative(self.facts.module_name, self.facts.is_package, level, module)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = self.imported_module(node)
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.bind(local, Imported(f"{base}.{name}") if base else OPAQUE)

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            target = assign_target.target
            if isinstance(target, cst.Name):
                self.bind_value(target.value, node.value)
            elif isinstance(target, cst.Attribute):
                text = dotted_name(target)
                if text is not None:
                    self.facts.attribute_writes.append((self.scope, text, node.value))
            elif _unpacks_a_display(target, node.value):
                # ``B, H = 2, 4``: each name is bound to its own element
                for element, value in zip(target.elements, node.value.elements):
                    self.bind_value(element.value.value, value.value)
            else:
                self.written_through(target, node, "setitem")
                self.bind_targets(target)
        self._aliased(node.value)

    def _aliased(self, value: cst.BaseExpression | None) -> None:
        """``other = cmd`` / ``self.cmd = cmd``: the object may change through the other name."""
        if isinstance(value, cst.Name):
            self.write(value.value, "aliased", value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if isinstance(node.target, cst.Name):
            self.bind_value(node.target.value, node.value)
        elif isinstance(node.target, cst.Attribute):
            text = dotted_name(node.target)
            if text is not None:
                self.facts.attribute_writes.append((self.scope, text, node.value))
        else:
            self.written_through(node.target, node, "setitem")
        self._aliased(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.written_through(node.target, node, "setitem")
        if isinstance(node.target, cst.Name) and isinstance(node.operator, (cst.AddAssign, cst.BitOrAssign)):
            self.bind(node.target.value, Augmented(node))  # cmd += [...]: analysis/built.py follows it
        else:
            self.bind_targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.bind_targets(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_targets(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_targets(node.name.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self.written_through(node.target, node, "delitem")
        self.bind_targets(node.target)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.bind(node.name.value, OPAQUE, direct=False)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.bind(node.name.value, OPAQUE, direct=False)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.bind(node.rest.value, OPAQUE, direct=False)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.scope.global_names.add(item.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        # Not followed: the name becomes unknown here and in the scope that owns it.
        where = self.where()
        for item in node.names:
            name = item.name.value
            self.scope.bind(name, BindingSite(OPAQUE, where, False, fixed=True))
            outer = self.scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.bindings):
                outer = outer.parent
            if outer is not None:
                outer.bind(name, BindingSite(OPAQUE, where, False, fixed=True))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            self.facts.mutated_names.add(func.value.value)  # kw.update(...) and the like
            self.write(func.value.value, "method", node)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute):
            self.facts.mutated_names.add(dotted_name(func.value) or "")  # self.cmd.append(...)
        for arg in node.args:
            if isinstance(arg.value, cst.Name):
                self.write(arg.value.value, "passed", node)

    # --- scopes ---------------------------------------------------------------------
    def _qualified(self, name: str) -> str | None:
        if self.scope.kind == "module" and self.facts.module_name:
            return f"{self.facts.module_name}.{name}"
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.statement()
        self.bind(node.name.value, Defined(node, self._qualified(node.name.value)), direct=True)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        class_info = self.facts.classes.get(self.scope.node) if self.scope.kind == "class" else None
        where = self.where()
        self.scope = Scope("function", node, self.scope, where.path, id(node.body), class_info=class_info)
        self.facts.function_scopes[node] = self.scope
        self._bind_parameters(node, node.params, where)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.scope = self.scope.parent

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        where = self.where()
        self.scope = Scope("lambda", node, self.scope, where.path, id(node))
        self._bind_parameters(node, node.params, where)

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.scope = self.scope.parent

    def _bind_parameters(self, function, params: cst.Parameters, where: Where) -> None:
        entry = Where(where.path + ((self.scope.body_key, -1),), where.seq)
        for index, param in enumerate((*params.posonly_params, *params.params)):
            self.scope.bind(param.name.value, BindingSite(Param(function, index, param.default), entry, True))
        for param in params.kwonly_params:
            self.scope.bind(param.name.value, BindingSite(Param(function, -1, param.default), entry, True))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.scope.bind(star.name.value, BindingSite(OPAQUE, entry, True))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.statement()
        name = node.name.value
        info = ClassInfo(node, name, self.scope, self._qualified(name))
        self.facts.classes[node] = info
        self.facts.classes_by_name.setdefault(name, []).append(info)
        self.bind(name, Defined(node, info.qualified), direct=True)

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = Scope("class", node, self.scope, self.where().path, id(node.body))
        self.facts.class_scopes[node] = self.scope

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = self.scope.parent

    def visit_For_body(self, node: cst.For) -> None:
        self.scope.loop_depth += 1

    def leave_For_body(self, node: cst.For) -> None:
        self.scope.loop_depth -= 1

    def visit_While_body(self, node: cst.While) -> None:
        self.scope.loop_depth += 1

    def leave_While_body(self, node: cst.While) -> None:
        self.scope.loop_depth -= 1


def _unpacks_a_display(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``a, b = 1, 2`` / ``(a, b) = [x, y]``: plain names, as many as the display's plain elements."""
    return (
        isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and all(isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement)
                and isinstance(e.value, cst.Name) for e in target.elements)
        and all(isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in value.elements)
    )
