"""The sites the rules look at, recorded during the one walk (see :func:`sglang_lint.analysis.walk.walk`):
calls whose callee's last name is in the rule table, attribute reads of attribute targets,
class statements (for class checks and config fields), and every plain or ``self.`` call
(for wrappers). ``partial(f, ...)`` and calls of a partial are recorded as calls of ``f``;
``from m import f as g`` makes calls of ``g`` calls of ``f``.
"""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import BindingCollector
from sglang_lint.analysis.guards import GuardCollector
from sglang_lint.analysis.site import Site
from sglang_lint.analysis.standing import bound_name, list_program, step_of
from sglang_lint.analysis.syntax import callee_name, dotted_name
from sglang_lint.text.pynames import PARTIAL


class SiteCollector:
    def __init__(self, ruleset, bindings: BindingCollector, guards: GuardCollector):
        self.ruleset = ruleset
        self.bindings = bindings
        self.guards = guards
        self.model = None  # the FileModel the sites belong to (set by the engine)
        self.call_sites: list[tuple[str, Site]] = []  # (rule-table name, site)
        self.class_sites: list[Site] = []
        self.calls_by_name: dict[str, list[Site]] = {}  # every plain or self. call, for wrappers
        # ``from m import f as g``: calls of ``g`` are calls of ``f`` (the engine adds them
        # from calls_by_name once the whole file is read); ``p = partial(f, ...)``: calls of
        # ``p`` are calls of ``f`` (read in text order).
        self.aliases: dict[str, str] = {}
        self.partials: dict[str, cst.Call] = {}
        # argv lists that start sglang's launcher, and ``self.X`` steps that may grow one
        # (analysis/standing.py): (site, program, the name it is bound to) and (site, X, the words added)
        self.launch_lists: list[tuple[Site, str, str | None]] = []
        self._bound: dict[int, str | None] = {}  # id of a list display assigned -> the name
        self.launch_steps: list[tuple[Site, str, cst.BaseExpression]] = []

    def site(self, node: cst.CSTNode, partial: cst.Call | None = None, guards: bool = True) -> Site:
        func = node.func if isinstance(node, cst.Call) else node
        receiver = func.value if isinstance(func, cst.Attribute) else None
        return Site(
            node, self.bindings.scope, self.guards.in_force() if guards else (), self.model, self.bindings.where(),
            partial, receiver,
        )

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or not self.bindings.imported_module(node):
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
                if name is not None and local != name and name in self.ruleset.calls:
                    self.aliases[local] = name

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bound[id(node.value)] = bound_name(node)
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and self._partial_of_rule(node.value):
            self.partials[target.value] = node.value

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.ruleset.classes or self.ruleset.fields:
            self.class_sites.append(self.site(node, guards=False))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bound[id(node.value)] = bound_name(node)

    def visit_List(self, node: cst.List) -> None:
        if self.ruleset.standing and not self.guards.expected_raise_depth:
            program = list_program(node)
            if program is not None:
                self.launch_lists.append((self.site(node), program, self._bound.get(id(node))))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._launch_step(node)

    def _launch_step(self, node: cst.CSTNode) -> None:
        if self.ruleset.standing and not self.guards.expected_raise_depth:
            step = step_of(node)
            if step is not None:
                self.launch_steps.append((self.site(node), *step))

    def visit_Call(self, node: cst.Call) -> None:
        if self.guards.expected_raise_depth:
            return  # a negative test: the call is meant to fail
        self._launch_step(node)
        func = node.func
        name = callee_name(node)
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

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.ruleset.attributes and not self.guards.expected_raise_depth:
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
