"""How a value reaches a checked call, beyond the call's own arguments.

* **Wrappers**: a function of the linted file that hands one of its parameters, unchanged and
  unchecked, to a checked argument; its calls are checked as calls of the target, with the
  wrapper's own position for the argument (:func:`wrapper_at`, :func:`calls_of`).
* **Config fields**: a field default of a dataclass-like config class (or of a subclass in the
  file) is a keyword of every call of that class (:func:`field_sites`).
* **Subclasses**: calls of a subclass (defined in the file) of a config class are calls of the
  config class, by keyword (:func:`subclass_calls`).

(``functools.partial`` and import aliases are followed while the sites are collected: analysis/sites.py.)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import ClassInfo, Defined, Param
from sglang_lint.analysis.site import Site
from sglang_lint.analysis.sites import SiteCollector
from sglang_lint.analysis.syntax import callee_name, dotted_name
from sglang_lint.catalog.rules import Target
from sglang_lint.checks.base import argument_of, guarded_on


@dataclass(frozen=True)
class Wrapper:
    """A function of the linted file that hands one of its parameters, unchanged and
    unchecked, to a checked argument: calls of it are checked as calls of the target."""

    function: cst.FunctionDef
    owner: ClassInfo | None  # the class, for a method called as ``self.name(...)``
    target: Target


def wrapper_at(target: Target, site: Site) -> Wrapper | None:
    if not isinstance(site.node, cst.Call):
        return None
    arg = argument_of(site.node, target.argument, target.position, site)
    if arg is None or not isinstance(arg.value, cst.Name):
        return None
    return parameter_wrapper(target, site, arg.value.value)


def parameter_wrapper(target: Target, site: Site, name: str, takes: str | None = None,
                      program: str = "") -> Wrapper | None:
    """The function the site is in, when ``name`` is one of its parameters, unchanged and
    unchecked at the site: its calls hand the value on to ``target``. ``takes``: how the
    value is read there (see :class:`~sglang_lint.catalog.rules.Target`); ``"keywords"`` for its
    ``**kwargs``; ``program``: the one flags are handed to (``Target.program``)."""
    if guarded_on(site, name):
        return None
    if takes == "keywords":
        owner, function = site.scope, site.scope.node
        if owner.kind != "function" or not isinstance(function, cst.FunctionDef):
            return None
        star = function.params.star_kwarg
        if not isinstance(star, cst.Param) or star.name.value != name:
            return None
        named = (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)
        argument, index, exclude = None, -1, tuple(p.name.value for p in named)
    else:
        found = site.model.reaching(name, site.scope, site.where)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0].value, Param):
            return None
        param, owner = found[0][0].value, found[1]
        function = param.function
        if not isinstance(function, cst.FunctionDef) or owner.node is not function:
            return None
        argument, index, exclude = name, param.index, ()
    decorators = {dotted_name(d.decorator) for d in function.decorators}
    method = owner.class_info is not None and "staticmethod" not in decorators
    if index == 0 and method:
        return None  # ``self`` itself
    position = None if index < 0 else index - (1 if method else 0)
    wrapped = Target(
        kind="method" if method else "function",
        name=function.name.value,
        argument=argument,
        position=position,
        via=f"{function.name.value}() passes {name} on to {target.display}()",
        takes=takes,
        exclude=exclude,
        program=program,
        server=target.server if takes in ("keywords", "mapping") else "",  # (whose ServerArgs they reach)
        unless=target.unless if takes in ("keywords", "mapping") else (),
        lends=target.lends and takes in ("keywords", "mapping"),
    )
    return Wrapper(function, owner.class_info if method else None, wrapped)


def calls_bound_to(sites: SiteCollector, node: cst.FunctionDef | cst.ClassDef) -> list[Site]:
    """The plain calls ``name(...)`` of the file where every binding of ``name`` in reach is
    the ``def``/``class`` statement ``node``."""
    model = sites.model
    found = []
    for site in sites.calls_by_name.get(node.name.value, ()):
        func = site.node.func
        if isinstance(func, cst.Name):
            hit = model.lookup(func.value, site.scope)
            if hit and all(isinstance(b.value, Defined) and b.value.node is node for b in hit[0]):
                found.append(site)
    return found


def calls_of(wrapper: Wrapper, sites: SiteCollector) -> list[Site]:
    """The calls in the file that reach ``wrapper.function``: by its name where that name is
    bound to it, or as ``self.name(...)`` inside its class (or a subclass in the file)."""
    if wrapper.owner is None:
        return calls_bound_to(sites, wrapper.function)
    found = []
    for site in sites.calls_by_name.get(wrapper.function.name.value, ()):
        if isinstance(site.node.func, cst.Attribute):
            info = sites.model.enclosing_class_of_self(site.scope)
            if info is not None and sites.model.is_local_subclass(info, wrapper.owner):
                found.append(site)
    return found


def subclass_calls(target: Target, site: Site, sites: SiteCollector) -> list[tuple[Target, Site]]:
    """Calls of a subclass (defined in this file) of a config class: its keywords are the
    config's fields (by keyword only: a subclass may add fields before them)."""
    model = site.model
    info = model.classes[site.node]
    if info.qualified == target.name or not model.class_is_a(info, frozenset({target.name})):
        return []
    derived = dataclasses.replace(target, name=info.name, position=None)
    return [(derived, call) for call in calls_bound_to(sites, site.node)]


def field_sites(target: Target, site: Site) -> list[tuple[Target, Site]]:
    """A config class's own field default, or a subclass's, as a keyword of the class call:
    ``class MyArch(SanaWMArchConfig): gdn_backend: str = "cuda"`` is ``gdn_backend="cuda"``
    for every ``MyArch()``; a test class's ``other_args = [...]`` the flags its base class
    launches with (``launched_in``)."""
    model = site.model
    info = model.classes[site.node]
    # (a class that defines the method that launches again launches its own way)
    if not model.class_is_a(info, frozenset({target.name}), method=target.launched_in or None):
        return []
    scope = model.class_scopes.get(site.node)
    body = site.node.body
    if scope is None or not isinstance(body, cst.IndentedBlock):
        return []
    sites = []
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = None
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                if small.target.value == target.argument:
                    value = small.value
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                name = small.targets[0].target
                if isinstance(name, cst.Name) and name.value == target.argument:
                    value = small.value
            value = _field_default(value)
            if value is None:
                continue
            call = cst.Call(func=cst.Name(info.name), args=[cst.Arg(value=value, keyword=cst.Name(target.argument))])
            sites.append(
                (dataclasses.replace(target, name=info.name, position=None), Site(call, scope, (), model, None))
            )
    return sites


def _field_default(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``x: str = "a"`` -> ``"a"``; ``x: str = field(default="a")`` -> ``"a"``."""
    if isinstance(value, cst.Call) and callee_name(value) == "field":
        default = argument_of(value, "default", None)
        return default.value if default is not None else None
    return value
