"""What does this name call, and what value does this expression have?

A small resolver over the bindings the walk collects (analysis/bindings.py), instead of LibCST's
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

from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import (
    OPAQUE,
    Augmented,
    Binding,
    BindingSite,
    ClassInfo,
    Defined,
    FileBindings,
    Imported,
    Param,
    Scope,
    Where,
    may_be_last_binding,
)
from sglang_lint.analysis.positions import Positions
from sglang_lint.analysis.syntax import child_nodes, dotted_name, literal_value
from sglang_lint.core.model import Span
from sglang_lint.text.pynames import IGNORED, MAX_HOPS, NOT_LITERAL, Ref, qualify_dotted

MAX_DEPTH = MAX_HOPS  # hops before a value counts as unknown (pynames: the screen stops at the same bound)


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


def _moved(start, text: str):
    """The position just after ``text`` written from ``start``."""
    lines = text.count("\n")
    if not lines:
        return cst.metadata.CodePosition(start.line, start.column + len(text))
    return cst.metadata.CodePosition(start.line + lines, len(text) - text.rfind("\n") - 1)


def _defined_in(cls: cst.ClassDef) -> set[str]:
    """The names a class body binds: its methods, and plain assignments."""
    names = set()
    for statement in _class_statements(cls):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        else:
            names |= {t.value for t in _class_level_targets(statement) if isinstance(t, cst.Name)}
    return names


def _class_level_targets(statement: cst.CSTNode) -> list[cst.BaseExpression]:
    """What a small statement of a class body assigns (``x = ...``, ``x: T = ...``, ``x: T``)."""
    if isinstance(statement, cst.Assign):
        return [t.target for t in statement.targets]
    return [statement.target] if isinstance(statement, cst.AnnAssign) else []


def _class_statements(cls: cst.ClassDef) -> list[cst.CSTNode]:
    """The statements of a class body (a one-line body's small statements too)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return list(cls.body.body)
    found = []
    for statement in cls.body.body:
        found += list(statement.body) if isinstance(statement, cst.SimpleStatementLine) else [statement]
    return found


def _parameter_annotation(function: cst.FunctionDef | cst.Lambda, name: str) -> cst.BaseExpression | None:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.annotation.annotation if param.annotation is not None else None
    return None


_UNIONS = frozenset({"typing.Optional", "typing.Union", "typing_extensions.Optional", "typing_extensions.Union"})


def _union_members(annotation: cst.BaseExpression, head: str | None) -> list[cst.BaseExpression] | None:
    """The members of ``A | B``, ``Optional[A]`` or ``Union[A, B]`` (``head``: what the
    subscripted name qualifies to); None for any other annotation."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return [annotation.left, annotation.right]
    if isinstance(annotation, cst.Subscript) and head in _UNIONS:
        members = [element.slice.value for element in annotation.slice if isinstance(element.slice, cst.Index)]
        return members if len(members) == len(annotation.slice) else []
    return None


def _self_assignments(cls: cst.ClassDef) -> dict[str, list[tuple]]:
    """Every assignment of ``self.<name>`` in a class's own methods (nested classes aside), by
    name, in one walk of the class: (annotation or None, value or None: a form whose value is
    not one expression, such as unpacking, ``+=``, a loop or ``with`` target, ``:=``)."""
    found: dict[str, list[tuple]] = {}

    def own(node: cst.CSTNode) -> str | None:
        """``<name>`` of a ``self.<name>`` node."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            return node.attr.value
        return None

    def inside(node: cst.CSTNode) -> set[str]:
        return {name for name in map(own, _target_parts(node)) if name is not None}

    def unknown(names: set[str]) -> None:
        for name in names:
            found.setdefault(name, []).append((None, None))

    pending: list[cst.CSTNode] = [cls]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.ClassDef) and node is not cls:
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                name = own(target.target)
                if name is not None:
                    found.setdefault(name, []).append((None, node.value))
                else:
                    unknown(inside(target.target))
        elif isinstance(node, cst.AnnAssign) and own(node.target) is not None:
            found.setdefault(own(node.target), []).append((node.annotation.annotation, node.value))
        elif isinstance(node, cst.AugAssign):
            unknown({own(node.target)} - {None})
        elif isinstance(node, (cst.For, cst.NamedExpr)):
            unknown(inside(node.target))
        elif isinstance(node, cst.AsName):
            unknown(inside(node.name))
        pending.extend(child_nodes(node))
    return found


def _target_parts(node: cst.CSTNode) -> list[cst.CSTNode]:
    """An assignment target and, for a tuple or list, its elements (starred ones too)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return [part for element in node.elements for part in _target_parts(element.value)]
    if isinstance(node, cst.StarredElement):
        return _target_parts(node.value)
    return [node]


def _attribute_assignments(cls: cst.ClassDef, name: str, writes: dict[str, list[tuple]]) -> list[tuple]:
    """(annotation or None, value or None) of each assignment of ``self.<name>`` in the class
    (``writes``: the class's, :func:`_self_assignments`), and of a class-level ``name``."""
    found = list(writes.get(name, ()))
    for statement in _class_statements(cls):
        if any(isinstance(t, cst.Name) and t.value == name for t in _class_level_targets(statement)):
            found.append((statement.annotation.annotation if isinstance(statement, cst.AnnAssign) else None,
                          statement.value))
    return found


def _is_none(value: Binding) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _site_qualified(site) -> object:
    return IGNORED if _is_none(site.value) else _qualified_name(site.value)


def _qualified_name(value: Binding) -> str | None:
    if isinstance(value, Imported):
        return value.qualified
    if isinstance(value, Defined):
        return value.qualified
    return None


class FileModel:
    """What a name calls and what value an expression has, in one file: reads the
    :class:`~sglang_lint.analysis.bindings.FileBindings` the walk collects (and only reads them)."""

    def __init__(self, facts: FileBindings, module: cst.Module, layout=None):
        self.facts = facts
        self.module = module
        self.layout = layout  # the statements' lines, when a reparse knows them (analysis/positions.py)
        self.module_name = facts.module_name
        self.module_scope = facts.module_scope
        self.classes = facts.classes
        self.classes_by_name = facts.classes_by_name
        self.class_scopes = facts.class_scopes
        self.function_scopes = facts.function_scopes
        self.attribute_writes = facts.attribute_writes
        self.mutated_names = facts.mutated_names
        self.bound_calls = facts.bound_calls
        self._positions = None
        self._attributes: dict[tuple, list] = {}  # (class statement, name) -> how self.<name> is assigned
        self._class_writes: dict = {}  # class statement -> name -> how its methods assign self.<name>
        self._write_scopes: dict[int, Scope] | None = None  # id(an attribute write's value) -> its scope

    # --- resolution ---------------------------------------------------------------
    def qualify(self, node: cst.CSTNode, scope: Scope) -> str | None:
        """The one qualified name a Name/Attribute chain refers to, seen from ``scope``:
        every binding of its head name must be the same import (or top-level def)."""
        text = dotted_name(node)
        found = self.lookup(text.partition(".")[0], scope) if text is not None else None
        return qualify_dotted(text, found and found[0], _site_qualified)

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
        return [b for b in sites if may_be_last_binding(b, sites, use)], owner

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
                elif isinstance(value, (Imported, Defined, Augmented)) or value is OPAQUE:
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
        if isinstance(node, cst.Call):
            return self._dict_call(node, scope)
        if isinstance(node, cst.Name) and node.value not in self.mutated_names:
            found = self.reaching(node.value, scope, use)
            if found is not None and len(found[0]) == 1 and isinstance(found[0][0].value, cst.Dict):
                return found[0][0].value
            if found is not None and len(found[0]) == 1 and isinstance(found[0][0].value, cst.Call):
                return self._dict_call(found[0][0].value, found[1])
        return None

    def _dict_call(self, call: cst.Call, scope: Scope) -> cst.Dict | None:
        """``dict(a=1, b=x)`` (the builtin, keywords only) as the display ``{"a": 1, "b": x}``."""
        if not (isinstance(call.func, cst.Name) and call.func.value == "dict" and self.lookup("dict", scope) is None):
            return None
        if not all(arg.keyword is not None and not arg.star for arg in call.args):
            return None
        return cst.Dict([cst.DictElement(cst.SimpleString(repr(arg.keyword.value)), arg.value) for arg in call.args])

    def position(self, node: cst.CSTNode):
        """Where a node is (a LibCST CodeRange); a :class:`~sglang_lint.core.model.Span`, a word inside a
        string literal, by its offsets in the literal's source. Positions are computed once, on
        first need: only files with something to report pay for them."""
        if self._positions is None:
            self._positions = Positions(self.module, self.layout)
        if isinstance(node, Span):
            literal = self._positions.of(node.within)
            source = self.module.code_for_node(node.within)
            return cst.metadata.CodeRange(_moved(literal.start, source[:node.start]),
                                          _moved(literal.start, source[:node.end]))
        return self._positions.of(node)

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

    def enclosing_class_of_self(self, scope: Scope, receiver: str = "self") -> ClassInfo | None:
        """The class whose instance ``self`` is (or ``cls``: ``receiver``), when it is the first
        parameter of a method (possibly seen from a nested function or lambda)."""
        binding = self.single_binding(receiver, scope)
        if not isinstance(binding, Param) or binding.index != 0:
            return None
        current: Scope | None = scope
        while current is not None:
            if current.node is binding.function:
                return current.class_info
            current = current.parent
        return None

    def class_is_a(self, info: ClassInfo, wanted: frozenset[str], seen: int = 0, method: str | None = None) -> bool:
        """Is the class ``info`` (defined in this file) one of ``wanted`` or a subclass? With
        ``method``: a subclass that defines that method itself (it runs its own) is not."""
        if seen > MAX_DEPTH:
            return False
        if info.qualified in wanted:
            return True
        if method is not None and method in _defined_in(info.node):
            return False
        for base in info.node.bases:
            qualified = self.qualify(base.value, info.scope)
            if qualified in wanted:
                return True
            if isinstance(base.value, cst.Name):
                for local in self.classes_by_name.get(base.value.value, ()):
                    if local is not info and self.class_is_a(local, wanted, seen + 1, method):
                        return True
        return False

    def instance_of(self, receiver: cst.BaseExpression, scope: Scope, wanted: frozenset[str],
                    method: str | None = None, depth: int = 0) -> bool:
        """Is ``receiver`` provably an instance of one of ``wanted`` (qualified names)?

        Evidence: ``self`` inside such a class (or a subclass defined in this file); a call
        that makes one (the class, or a function of this file annotated to return one); a
        parameter annotated with the class (``Optional`` and ``X | None`` too); ``self.x``
        where the class annotates ``x`` with it, or assigns ``self.x`` only from evidence; a
        name bound once to evidence. With ``method``: not of a subclass of this file that
        defines that method itself."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(receiver, cst.Call):
            return self._makes(receiver, scope, wanted, method)
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            info = self.enclosing_class_of_self(scope)
            return info is not None and self.class_is_a(info, wanted, method=method)
        if (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)
                and receiver.value.value == "self"):
            info = self.enclosing_class_of_self(scope)
            return info is not None and self._attribute_is_a(info, receiver.attr.value, wanted, method, depth)
        found = self.lookup(receiver.value, scope) if isinstance(receiver, cst.Name) else None
        if found is None or len(found[0]) != 1:
            return False
        binding, owner = found[0][0].value, found[1]
        if isinstance(binding, Param):
            annotation = _parameter_annotation(binding.function, receiver.value)
            return annotation is not None and self.annotation_is_a(
                annotation, self._defining_scope(binding.function, scope), wanted, method)
        return isinstance(binding, (cst.Call, cst.Name, cst.Attribute)) and self.instance_of(
            binding, owner, wanted, method, depth + 1)

    def _makes(self, call: cst.Call, scope: Scope, wanted: frozenset[str], method: str | None) -> bool:
        """Does ``call`` make an instance of one of ``wanted``: a call of such a class (or of a
        subclass of this file), or of a function of this file whose return annotation is one?"""
        if self.qualify(call.func, scope) in wanted:
            return True
        if isinstance(call.func, cst.Name):
            if any(self.class_is_a(info, wanted, method=method)
                   for info in self.classes_by_name.get(call.func.value, ())):
                return True
            binding = self.single_binding(call.func.value, scope)
            function = binding.node if isinstance(binding, Defined) else None
        elif (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
              and call.func.value.value == "self"):
            info = self.enclosing_class_of_self(scope)
            function = info and next((s for s in _class_statements(info.node) if isinstance(s, cst.FunctionDef)
                                      and s.name.value == call.func.attr.value), None)
        else:
            return False
        return (isinstance(function, cst.FunctionDef) and function.returns is not None
                and self.annotation_is_a(function.returns.annotation, self._defining_scope(function, scope),
                                         wanted, method))

    def annotation_is_a(self, annotation: cst.BaseExpression, scope: Scope, wanted: frozenset[str],
                        method: str | None = None, depth: int = 0) -> bool:
        """Does a type annotation name one of ``wanted`` (or a subclass of this file): the class,
        ``"Class"``, ``Optional[Class]``, ``Class | None``, a ``Union`` all of whose members
        but None are such classes?"""
        if depth > MAX_DEPTH:
            return False
        if isinstance(annotation, (cst.SimpleString, cst.ConcatenatedString)):
            text = literal_value(annotation)
            try:
                annotation = cst.parse_expression(text) if isinstance(text, str) else None
            except Exception:  # (a string that is no expression names no class)
                return False
            return annotation is not None and self.annotation_is_a(annotation, scope, wanted, method, depth + 1)
        members = _union_members(annotation, self.qualify(annotation.value, scope)
                                 if isinstance(annotation, cst.Subscript) else None)
        if members is not None:
            members = [m for m in members if not (isinstance(m, cst.Name) and m.value == "None")]
            return bool(members) and all(self.annotation_is_a(m, scope, wanted, method, depth + 1) for m in members)
        if self.qualify(annotation, scope) in wanted:
            return True
        return isinstance(annotation, cst.Name) and any(
            self.class_is_a(info, wanted, method=method) for info in self.classes_by_name.get(annotation.value, ()))

    def _attribute_is_a(self, info: ClassInfo, attribute: str, wanted: frozenset[str], method: str | None,
                        depth: int) -> bool:
        """``self.<attribute>`` in a method of the class ``info``: annotated with one of
        ``wanted`` in the class, or else assigned in the class only from evidence of one."""
        key = (info.node, attribute)
        writes = self._attributes.get(key)
        if writes is None:
            in_class = self._class_writes.get(info.node)
            if in_class is None:
                in_class = self._class_writes[info.node] = _self_assignments(info.node)
            writes = self._attributes[key] = _attribute_assignments(info.node, attribute, in_class)
        annotations = [annotation for annotation, _ in writes if annotation is not None]
        if annotations:
            return all(self.annotation_is_a(a, info.scope, wanted, method) for a in annotations)
        if self._write_scopes is None:
            self._write_scopes = {id(value): scope for scope, _, value in self.attribute_writes}
        class_scope = self.class_scopes.get(info.node, info.scope)
        return bool(writes) and all(
            value is not None and self.instance_of(value, self._write_scopes.get(id(value), class_scope), wanted,
                                                   method, depth + 1)
            for _, value in writes)

    def _defining_scope(self, function: cst.FunctionDef | cst.Lambda, scope: Scope) -> Scope:
        """The scope ``function`` is defined in (its annotations are read there), seen from a
        scope inside it or beside it; ``scope`` itself when neither."""
        current: Scope | None = scope
        while current is not None:
            if current.node is function:
                return current.parent or scope
            current = current.parent
        return scope

    def names_class(self, receiver: cst.BaseExpression, scope: Scope, wanted: frozenset[str],
                    method: str | None = None) -> bool:
        """Is ``receiver`` one of ``wanted`` (qualified names) itself, or a class of this file
        that derives from one (the receiver of a class method called on its class)?"""
        if self.qualify(receiver, scope) in wanted:
            return True
        if not isinstance(receiver, cst.Name):
            return False
        binding = self.single_binding(receiver.value, scope)  # bound once, by its class statement
        return isinstance(binding, Defined) and isinstance(binding.node, cst.ClassDef) and self.class_is_a(
            self.classes[binding.node], wanted, method=method)

    def constructor_call(self, receiver: cst.BaseExpression, scope: Scope) -> cst.Call | None:
        """The call that built ``receiver``: the call itself, or the one binding of a name."""
        if isinstance(receiver, cst.Call):
            return receiver
        if isinstance(receiver, cst.Name):
            binding = self.single_binding(receiver.value, scope)
            if isinstance(binding, cst.Call):
                return binding
        return None
