"""The one visitor: a single pass over a parsed file, whatever the number of rules.

It builds the :class:`~sglang_lint.resolve.FileModel` (imports, every binding with the
position of its statement, classes) and records the sites the rules care about: calls
whose callee name is in the rule table, attribute reads, class statements, every call
(for wrappers), with the guards in force at each.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from sglang_lint.checks import Guard, Site
from sglang_lint.resolve import (
    OPAQUE,
    BindingSite,
    ClassInfo,
    Defined,
    FileModel,
    Imported,
    Param,
    Scope,
    Where,
    dotted_name,
    target_names,
)

# Calls inside these are deliberate (``with pytest.raises(...)``, ``self.assertRaises``).
EXPECTED_RAISE_NAMES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
EXIT_STATEMENTS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
PARTIAL = "partial"


class DispatchVisitor(cst.CSTVisitor):
    def __init__(self, ruleset, model: FileModel):
        super().__init__()
        self.ruleset = ruleset
        self.model = model
        self.scope: Scope = Scope("module", cst.Module(body=()), None)
        model.module_scope = self.scope
        # statement positions: [block id, index of the current statement in it]
        self.blocks: list[list[int]] = []
        self.seq = 0
        self.simple = 0  # >0 inside a plain statement (its bindings run whenever its block does)
        self.elifs: set[int] = set()
        # guards
        self.branches: list[Guard] = []  # conditions of the enclosing if/while/and/or
        self.suites: list[list[Guard]] = [[]]  # early exits and asserts seen so far, per block
        self.expected_raise_depth = 0
        self.expected_raise_calls: list[cst.Call] = []
        self.raise_withs: list[cst.With] = []
        # A bad value in a negative test: ``args = ServerArgs(...)`` whose ``args`` is used in
        # an expected-raise block (the engine drops such findings, see engine._deliberate).
        self.raise_blocks: list[tuple[cst.CSTNode, Scope, Where]] = []  # outermost ones
        self.bound_calls: dict[cst.Call, list[tuple[str, BindingSite]]] = {}  # ``name = call(...)``
        # what the rules look at
        self.call_sites: list[tuple[str, Site]] = []  # (rule-table name, site)
        self.class_sites: list[Site] = []
        self.calls_by_name: dict[str, list[Site]] = {}  # every plain or self. call, for wrappers
        # ``from m import f as g``: calls of ``g`` are calls of ``f`` (the engine adds them
        # from calls_by_name once the whole file is read); ``p = partial(f, ...)``: calls of
        # ``p`` are calls of ``f`` (read in text order).
        self.aliases: dict[str, str] = {}
        self.partials: dict[str, cst.Call] = {}

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
        self.suites.append([])

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.pop()
        self.suites.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.blocks.append([id(node), 0])
        self.suites.append([])
        self.simple += 1
        self.seq += 1

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.blocks.pop()
        self.suites.pop()
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
        if name in scope.global_names and scope is not self.model.module_scope:
            # Rebound through ``global``: may happen at any time, so the name is unknown.
            scope, fixed, value = self.model.module_scope, True, OPAQUE
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
            self.bound_calls.setdefault(value, []).append((name, site))

    def bind_targets(self, node: cst.CSTNode) -> None:
        for name in target_names(node):
            self.bind(name.value, OPAQUE, direct=False)

    def written_through(self, node: cst.CSTNode) -> None:
        """``kw[...] = ...``, ``del kw[...]``: the object named ``kw`` is changed."""
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            self.model.mutated_names.add(node.value.value)

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

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        base = self.model.resolve_relative(level, module) if level else module
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            if base:
                self.bind(local, Imported(f"{base}.{name}"))
                if local != name and name in self.ruleset.calls:
                    self.aliases[local] = name
            else:
                self.bind(local, OPAQUE)  # a relative import outside a known package

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            target = assign_target.target
            if isinstance(target, cst.Name):
                self.bind_value(target.value, node.value)
                if self._partial_of_rule(node.value) and len(node.targets) == 1:
                    self.partials[target.value] = node.value
            elif isinstance(target, cst.Attribute):
                text = dotted_name(target)
                if text is not None:
                    self.model.attribute_writes.append((self.scope, text, node.value))
            else:
                self.written_through(target)
                self.bind_targets(target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if isinstance(node.target, cst.Name):
            self.bind_value(node.target.value, node.value)
        elif isinstance(node.target, cst.Attribute):
            text = dotted_name(node.target)
            if text is not None:
                self.model.attribute_writes.append((self.scope, text, node.value))
        else:
            self.written_through(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.written_through(node.target)
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
        self.written_through(node.target)
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

    # --- scopes ---------------------------------------------------------------------
    def _qualified(self, name: str) -> str | None:
        if self.scope.kind == "module" and self.model.module_name:
            return f"{self.model.module_name}.{name}"
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.statement()
        self.bind(node.name.value, Defined(node, self._qualified(node.name.value)), direct=True)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        class_info = self.model.classes.get(self.scope.node) if self.scope.kind == "class" else None
        where = self.where()
        self.scope = Scope("function", node, self.scope, where.path, id(node.body), class_info=class_info)
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
        self.model.classes[node] = info
        self.model.classes_by_name.setdefault(name, []).append(info)
        self.bind(name, Defined(node, info.qualified), direct=True)
        if self.ruleset.classes or self.ruleset.fields:
            self.class_sites.append(Site(node, self.scope, (), self.model, self.where()))

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = Scope("class", node, self.scope, self.where().path, id(node.body))
        self.model.class_scopes[node] = self.scope

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = self.scope.parent

    def visit_For_body(self, node: cst.For) -> None:
        self.scope.loop_depth += 1

    def leave_For_body(self, node: cst.For) -> None:
        self.scope.loop_depth -= 1

    def visit_While_body(self, node: cst.While) -> None:
        self.scope.loop_depth += 1
        self.branches.append(Guard(node.test, True))

    def leave_While_body(self, node: cst.While) -> None:
        self.scope.loop_depth -= 1
        self.branches.pop()

    # --- guards -----------------------------------------------------------------------
    def visit_If_body(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_If_body(self, node: cst.If) -> None:
        self.branches.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_If_orelse(self, node: cst.If) -> None:
        self.branches.pop()

    def leave_If(self, node: cst.If) -> None:
        # ``if x is None: return`` guards the rest of the block, and so does
        # ``if x is None: x = default()`` (the tested name is set again).
        if node.orelse is None and (_ends_in_exit(node.body) or _rebinds_tested_name(node)):
            self.suites[-1].append(Guard(node.test, False))

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.append(Guard(node.left, isinstance(node.operator, cst.And)))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.pop()

    def visit_Assert(self, node: cst.Assert) -> None:
        self.suites[-1].append(Guard(node.test, True))

    def _guards(self) -> tuple[Guard, ...]:
        return tuple(self.branches) + tuple(g for suite in self.suites for g in suite)

    # --- sites ------------------------------------------------------------------------
    def visit_With_body(self, node: cst.With) -> None:
        if any(callee_name(item.item) in EXPECTED_RAISE_NAMES for item in node.items):
            if not self.expected_raise_depth:
                self.raise_blocks.append((node, self.scope, self.where()))
            self.expected_raise_depth += 1
            self.raise_withs.append(node)

    def leave_With_body(self, node: cst.With) -> None:
        if self.raise_withs and self.raise_withs[-1] is node:
            self.raise_withs.pop()
            self.expected_raise_depth -= 1

    def site(self, node: cst.CSTNode, partial: cst.Call | None = None) -> Site:
        return Site(node, self.scope, self._guards(), self.model, self.where(), partial)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = callee_name(node)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            self.model.mutated_names.add(func.value.value)  # kw.update(...) and the like
        if name in EXPECTED_RAISE_NAMES:
            if not self.expected_raise_depth:
                self.raise_blocks.append((node, self.scope, self.where()))
            self.expected_raise_depth += 1
            self.expected_raise_calls.append(node)
            return
        if self.expected_raise_depth:
            return
        if name in self.ruleset.calls:
            self.call_sites.append((name, self.site(node)))
        elif name == PARTIAL and self._partial_of_rule(node):
            # partial(f, mode="pre") binds f's arguments now: check them as a call of f.
            call = cst.Call(func=node.args[0].value, args=node.args[1:])
            self.call_sites.append((self._rule_name(node.args[0].value), self.site(call, node)))
        elif isinstance(func, cst.Name) and name in self.partials:
            bound = self.partials[name]
            call = _merged_call(bound, node)
            self.call_sites.append((self._rule_name(bound.args[0].value), self.site(call, bound)))
        if name is not None and (
            isinstance(func, cst.Name)
            or (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self")
        ):
            self.calls_by_name.setdefault(name, []).append(self.site(node))

    def leave_Call(self, node: cst.Call) -> None:
        if self.expected_raise_calls and self.expected_raise_calls[-1] is node:
            self.expected_raise_calls.pop()
            self.expected_raise_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.ruleset.attributes and not self.expected_raise_depth:
            self.call_sites.append((node.attr.value, self.site(node)))

    def _rule_name(self, func: cst.BaseExpression) -> str | None:
        if isinstance(func, cst.Name):
            return self.aliases.get(func.value, func.value)
        if isinstance(func, cst.Attribute):
            return func.attr.value
        return None

    def _partial_of_rule(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and callee_name(node) == PARTIAL
            and bool(node.args)
            and node.args[0].keyword is None
            and not node.args[0].star
            and self._rule_name(node.args[0].value) in self.ruleset.calls
        )


def _merged_call(bound: cst.Call, call: cst.Call) -> cst.Call:
    """``p(*a, **k)`` for ``p = partial(f, *pa, **pk)``: ``f(*pa, *a, **k, **pk)``; the
    call's keywords come first, so they win as they do at run time."""
    positional = [a for a in bound.args[1:] if a.keyword is None and a.star != "**"]
    positional += [a for a in call.args if a.keyword is None and a.star != "**"]
    keywords = [a for a in call.args if a.keyword is not None or a.star == "**"]
    keywords += [a for a in bound.args[1:] if a.keyword is not None or a.star == "**"]
    return cst.Call(func=bound.args[0].value, args=[*positional, *keywords])


def callee_name(node: cst.CSTNode) -> str | None:
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _ends_in_exit(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.IndentedBlock):
        if not body.body:
            return False
        last = body.body[-1]
        if isinstance(last, cst.SimpleStatementLine):
            return any(isinstance(s, EXIT_STATEMENTS) for s in last.body)
        return False
    if isinstance(body, cst.SimpleStatementSuite):
        return any(isinstance(s, EXIT_STATEMENTS) for s in body.body)
    return False


def _rebinds_tested_name(node: cst.If) -> bool:
    tested: set[str] = set()
    stack: list[cst.CSTNode] = [node.test]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            tested.add(current.value)
        stack.extend(current.children)
    statements = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    for statement in statements:
        smalls = statement.body if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
        for small in smalls:
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(isinstance(t, cst.Name) and t.value in tested for t in targets):
                    return True
    return False


# --- the walk -------------------------------------------------------------------------
# ``module.visit(visitor)`` rebuilds every node it passes (LibCST's visitors double as
# transformers), which costs as much as parsing. ``walk`` calls the same ``visit_X``,
# ``visit_X_field``, ``leave_X_field`` and ``leave_X`` methods in the same order, reading
# the fields directly and never descending into whitespace or punctuation.

_PUNCTUATION = frozenset({
    "lpar", "rpar", "lbracket", "rbracket", "lbrace", "rbrace", "leading_lines", "lines_after_decorators",
    "header", "footer", "semicolon", "comma", "equal", "colon", "newline", "asynchronous", "operator",
    "star", "dot", "arrow", "first_line", "trailing_whitespace", "empty_lines", "indent",
})
# Fields LibCST visits in source order where the dataclass lists them otherwise.
_FIELD_ORDER = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
}


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        names = [
            f.name for f in dataclasses.fields(node_type)
            if f.name not in _PUNCTUATION and "whitespace" not in f.name
        ]
        order = _FIELD_ORDER.get(node_type)
        if order is not None:
            names = [n for n in order if n in names] + [n for n in names if n not in order]
        fields = _CHILD_FIELDS[node_type] = tuple(names)
    return fields


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NO_METHOD = object()


def walk(visitor: cst.CSTVisitor, node: cst.CSTNode) -> None:
    """Visit ``node`` and everything under it, as ``node.visit(visitor)`` would, without
    rebuilding anything."""
    methods = _methods(type(visitor))
    _walk(visitor, methods, node)


def _walk(visitor, methods: dict, node: cst.CSTNode) -> None:
    node_type = type(node)
    entry = methods.get(node_type)
    if entry is None:
        entry = methods[node_type] = _node_methods(type(visitor), node_type)
    visit, leave, field_visits = entry
    if visit is not None and visit(visitor, node) is False:
        if leave is not None:
            leave(visitor, node)
        return
    for name in _child_fields(node_type):
        value = getattr(node, name)
        hooks = field_visits.get(name)
        if hooks is not None and hooks[0] is not None:
            hooks[0](visitor, node)
        if isinstance(value, cst.CSTNode):
            _walk(visitor, methods, value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    _walk(visitor, methods, item)
        if hooks is not None and hooks[1] is not None:
            hooks[1](visitor, node)
    if leave is not None:
        leave(visitor, node)


_METHODS: dict[type, dict] = {}


def _methods(visitor_type: type) -> dict:
    found = _METHODS.get(visitor_type)
    if found is None:
        found = _METHODS[visitor_type] = {}
    return found


def _node_methods(visitor_type: type, node_type: type):
    name = node_type.__name__
    visit = getattr(visitor_type, f"visit_{name}", None)
    leave = getattr(visitor_type, f"leave_{name}", None)
    base_visit = getattr(cst.CSTVisitor, f"visit_{name}", None)
    base_leave = getattr(cst.CSTVisitor, f"leave_{name}", None)
    field_visits = {}
    for field_name in _child_fields(node_type):
        before = getattr(visitor_type, f"visit_{name}_{field_name}", None)
        after = getattr(visitor_type, f"leave_{name}_{field_name}", None)
        if before is getattr(cst.CSTVisitor, f"visit_{name}_{field_name}", None):
            before = None
        if after is getattr(cst.CSTVisitor, f"leave_{name}_{field_name}", None):
            after = None
        if before is not None or after is not None:
            field_visits[field_name] = (before, after)
    return (
        None if visit is base_visit else visit,
        None if leave is base_leave else leave,
        field_visits,
    )
