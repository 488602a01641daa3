"""Which functions a launch runs on its server arguments before a model loads, in order, in
each of sglang's layouts (``__post_init__`` up to 0.5.19, ``resolve_once`` from 0.5.20, then
``check_server_args``), run by the start-up run (derive/startup/run.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.derive.server_args.call_effects import forget_writes
from sglang_lint.derive.startup.declarations import Terminated
from sglang_lint.derive.startup.run import SERVER, StartupRun
from sglang_lint.derive.startup.inputs import environment_kinds
from sglang_lint.derive.reading.symbolic import forget_values, unknown
from sglang_lint.derive.source.tree import Module, defining_module

SERVER_ARGS_MODULE = "sglang.srt.server_args"


ENVIRON_MODULE = "sglang.srt.environ"


@dataclass
class Startup:
    """What one release's start-up validation gives: every site met, in order."""

    sites: list
    entry: tuple  # the methods run, in order


def _server_class(modules: dict[str, Module]):
    module = modules.get(SERVER_ARGS_MODULE)
    if module is None:
        return None
    found = [n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs"]
    return (module, found[0]) if len(found) == 1 else None


def _methods(module: Module, cls: ast.ClassDef, modules: dict[str, Module]) -> dict:
    """name -> (method, module) of the class and its sglang bases (the class's own first)."""
    methods: dict = {}
    for base in cls.bases:
        found = defining_module(ast.unparse(base), module, modules) if isinstance(base, ast.Name) else None
        if found is None:
            continue
        owner, name = found
        classes = [n for n in owner.tree.body if isinstance(n, ast.ClassDef) and n.name == name]
        if len(classes) == 1:
            methods.update(_methods(owner, classes[0], modules))
    for item in cls.body:
        if isinstance(item, ast.FunctionDef):
            methods[item.name] = (item, module)
    return methods


def run_startup(modules: dict[str, Module], fields: list[str], classes=None,
                immutable: frozenset = frozenset()) -> Startup | None:
    """Run a release's start-up validation (None: no ServerArgs class in the tree)."""
    found = _server_class(modules)
    if found is None:
        return None
    module, cls = found
    methods = _methods(module, cls, modules)
    entry = ("resolve_once" if "resolve_once" in methods else "__post_init__", "check_server_args")
    return _run(modules, module, cls, entry, fields, environment_kinds(modules), classes, immutable)


def run_validation(modules: dict[str, Module], module_name: str, class_name: str, entry: tuple, fields: list[str],
                   bind_constructor: bool = False) -> Startup | None:
    """Run the methods ``entry`` names (those the class has, in that order) of another class
    whose fields a user sets (SamplingParams: its constructor, ``normalize``, ``verify``), as
    the start-up run runs ServerArgs'. ``bind_constructor``: an ``__init__``'s parameters are
    the fields of their names (``self.x = x``); any other method's parameters are unknown."""
    module = modules.get(module_name)
    found = [n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name] if module else []
    if len(found) != 1:
        return None
    return _run(modules, module, found[0], entry, fields, {}, None, frozenset(), bind_constructor)


def _run(modules, module, cls, entry, fields, envs, classes, immutable, bind_constructor=False) -> Startup:
    methods = _methods(module, cls, modules)
    forget_writes()
    forget_values()
    run = StartupRun(modules, fields, envs, classes, immutable)
    run.server_methods = {name: (function, owner) for name, (function, owner) in methods.items()}
    entry = tuple(name for name in entry if name in methods)
    for name in entry:
        function, owner = methods[name]
        env = {}
        params = [*function.args.posonlyargs, *function.args.args]
        if params:
            env[params[0].arg] = SERVER
        for param in [*params[1:], *function.args.kwonlyargs] if bind_constructor else ():
            env[param.arg] = run.fields[param.arg] if name == "__init__" and param.arg in run.fields else \
                unknown(f"the {param.arg} argument")
        try:
            run.run_function(owner, function, env)
        except Terminated:
            break  # every way through it raises: nothing after it runs
    return Startup(run.sites, entry)
