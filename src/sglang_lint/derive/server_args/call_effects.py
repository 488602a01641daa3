"""What a call may write into a server's arguments without being run: the fields an sglang
function (or ServerArgs method) writes through the arguments it is handed, with the functions
it hands them on to, read from their bodies (derive/startup/run.py runs the calls it can in place;
for the others, this tells which fields become unknown)."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from sglang_lint.derive.reading.path_run import HARMLESS_CALLS
from sglang_lint.derive.reading.symbolic import SERVER, unknown
from sglang_lint.derive.source.tree import MUTATING_METHODS, Module, defined_at, defining_module, walk_local

# Calls that give a read view of the arguments (0.5.20 on): reading through them reads the fields.
VIEW_CALLS = frozenset({"resolving_view", "resolved_view", "ResolvedView", "ResolvingConfig", "record_of",
                        "_ForeignDefaults"})


# The views that refuse writes (``ResolvingConfig.__setattr__`` raises): handed one, a call writes nothing.
READ_VIEWS = frozenset({"resolving_view", "resolved_view", "ResolvedView", "ResolvingConfig"})
VIEW_PARAMETERS = "<views>"  # a bound env's key: the parameters handed a read-only view (never a Python name)


# Calls that declare a field's resolved value (0.5.20 on): ``declare_resolution(args, source, x=v)``.
DECLARE_CALLS = frozenset({"declare_resolution", "declare"})


@dataclass(frozen=True)
class MethodRef:
    """A method of an object the run does not know, handed on as a value
    (``current_platform.apply_server_args_defaults``): called with the arguments, it may write
    what any sglang method of that name writes."""

    name: str


@dataclass(frozen=True)
class FunctionRef:
    """An sglang function handed on as a value (a pass, a hook)."""

    function: ast.FunctionDef
    module: Module


def resolve_function(node: ast.expr, module: Module, modules: dict[str, Module], imported_here: dict):
    """(function, module) of the sglang function ``node`` names in ``module``: a function of
    the module, one it imports (at the top or in the function: ``imported_here``), or
    ``Cls.method`` / ``module.function`` of one it imports; None otherwise."""
    if isinstance(node, ast.Name):
        if node.id in imported_here:
            found = defined_at(imported_here[node.id], modules)
        else:
            found = defining_module(node.id, module, modules)
        return _function_at(found, modules) if found is not None else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        base = node.value.id
        qualified = imported_here.get(base) or module.imports.get(base)
        if qualified is None and base in module.definitions:
            qualified = f"{module.name}.{base}"
        if qualified is None:
            return None
        if qualified in modules:  # module.function
            return _function_at((modules[qualified], node.attr), modules)
        found = defined_at(qualified, modules)
        if found is None:
            return None
        owner, name = found
        classes = [n for n in owner.tree.body if isinstance(n, ast.ClassDef) and n.name == name]
        if len(classes) != 1:
            return None
        methods = [n for n in classes[0].body if isinstance(n, ast.FunctionDef) and n.name == node.attr]
        return (methods[0], owner) if len(methods) == 1 else None
    return None


def _function_at(found, modules: dict[str, Module] | None = None, depth: int = 0):
    """The function ``(module, name)`` names, following a re-export (``from .base import f``
    in the module named) a few modules deep."""
    if found is None:
        return None
    owner, name = found
    matches = [n for n in owner.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and n.name == name]
    if not matches and modules is not None and depth < 4 and name in owner.imports:
        return _function_at(defined_at(owner.imports[name], modules), modules, depth + 1)
    if len(matches) != 1 or not isinstance(matches[0], ast.FunctionDef):
        return None
    return matches[0], owner


READ_ONLY_CALLS = frozenset({"getattr", "object.__getattribute__", "hasattr", "isinstance", "str", "repr", "id",
                             "type", "vars", "print", "len", "bool", "dataclasses.fields", "dataclasses.is_dataclass",
                             "dataclasses.asdict", "fields", "is_dataclass", "asdict", "copy.copy", "copy.deepcopy",
                             *VIEW_CALLS})

# Calls whose value is sglang's model overrides for the model's architecture (0.5.19 on): the
# providers registered by these decorators, each returning the fields it declares.
MODEL_OVERRIDE_COLLECTORS = frozenset({"collect_model_override_declarations"})
MODEL_OVERRIDE_REGISTRARS = frozenset({"_register_for", "register_model_override", "register_model_override_predicate"})
MODEL_OVERRIDE_CONSTANTS = "MODEL_OVERRIDES"  # {architecture: {field: value}} beside the registrars


def writes_through(function: ast.FunctionDef, module: Module, modules: dict[str, Module], fields: frozenset,
                   server: frozenset, depth: int = 0, seen: set | None = None,
                   methods: dict | None = None) -> set[str] | None:
    """The fields a function may write through ``server`` (its parameters that are the
    arguments object), with the sglang functions and ServerArgs methods it hands them on to,
    four calls deep (None: a call not followed is handed them: anything may be written)."""
    key = (id(function), server)
    if depth == 0 and key in _WRITES:
        return _WRITES[key]
    seen = set() if seen is None else seen
    if key in seen:
        return set()
    seen.add(key)
    if depth > 4:
        return None
    found = _writes_through(function, module, modules, fields, server, depth, seen, methods)
    if depth == 0:
        _WRITES[key] = found
    return found


_WRITES: dict = {}  # (function, server parameters) -> fields written; per start-up run (forget_writes)


def forget_writes() -> None:
    """A new start-up run: the fields each function writes are found again (another tree)."""
    _WRITES.clear()


def _writes_through(function, module, modules, fields, server, depth, seen, methods):
    """writes_through's reading of one function's body."""
    imported_here = {}
    for node in walk_local(function):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                imported_here[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    aliases = set(server)
    for node in walk_local(function):  # cfg = resolving_view(server_args); sa = server_args
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func) in VIEW_CALLS and value.args:
                value = value.args[0]
            if isinstance(value, ast.Name) and value.id in aliases:
                aliases.add(node.targets[0].id)
    # A call made for its effect (a statement of its own) may write what it is handed; one
    # whose value is read (``cfg = factory(server_args)``, ``return fn(view)``) is a query.
    effects = {id(n.value) for n in walk_local(function) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)}
    written: set[str] = set()
    for node in walk_local(function):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id in aliases:
            written.add(node.attr)
        elif isinstance(node, ast.Call):
            positions = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id in aliases]
            named = [k.arg for k in node.keywords if isinstance(k.value, ast.Name) and k.value.id in aliases]
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            on_server = isinstance(receiver, ast.Name) and receiver.id in aliases
            if not positions and not named and not on_server:
                continue
            text = ast.unparse(node.func)
            if text in READ_ONLY_CALLS or text.startswith(HARMLESS_CALLS):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in DECLARE_CALLS:
                if any(k.arg is None for k in node.keywords):
                    return None
                written |= {k.arg for k in node.keywords if k.arg is not None}
                continue
            if text in ("setattr", "object.__setattr__") and len(node.args) == 3 and 0 in positions:
                name = node.args[1]
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    return None
                written.add(name.value)
                continue
            if on_server:
                found = (methods or {}).get(node.func.attr)
                positions = [0] + [i + 1 for i in positions]
            else:
                found = resolve_function(node.func, module, modules, imported_here)
            if found is None and id(node) not in effects:
                continue  # a query not followed: its value is what it gives
            if found is None or None in named:
                return None
            params = [a.arg for a in (*found[0].args.posonlyargs, *found[0].args.args)]
            if any(i >= len(params) for i in positions) or any(n is None for n in named):
                return None
            inner = writes_through(found[0], found[1], modules, fields,
                                   frozenset([params[i] for i in positions] + named), depth + 1, seen, methods)
            if inner is None:
                return None
            written |= inner
    return written & fields


class CallEffects:
    """What the start-up run (derive/startup.StartupRun, which this is a part of) makes of a
    call it does not run in place: the fields it may write become unknown."""

    def _call_effects(self, node: ast.Call) -> None:
        """What a call not run in place may change: the arguments, when handed them (every
        field, unless it is an sglang function shown to write none); a field it is a method of
        (``self.x.append(...)``) or that it is handed."""
        func = node.func
        text = ast.unparse(func)
        if text.startswith(HARMLESS_CALLS) or text in ("print", "warnings.warn"):
            return
        handed = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(func, ast.Attribute):
            handed.append(func.value)
        for value in handed:
            if self.is_server(value):
                if text in READ_ONLY_CALLS or self.read_view(value):
                    continue
                if isinstance(func, ast.Attribute) and self.is_server(func.value):
                    found = self._method(func.attr)
                    written = self._writes(node, found[0], found[1]) if found is not None else None
                elif isinstance(func, ast.Name) and isinstance(self.env.get(func.id), MethodRef):
                    written = self._writes_of_methods(node, self.env[func.id].name)
                else:
                    found = self._function_named(func)
                    if found is not None:
                        written = self._writes(node, found[0], found[1])
                    elif isinstance(func, ast.Attribute):
                        written = self._writes_of_methods(node, func.attr)
                    else:
                        written = None
                if written is None:
                    self._forget_all(f"calls {text} with the arguments")
                else:
                    for name in written:
                        self._write(name, unknown(f"written by {text}"))
                continue
            root = value
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Starred)):
                if isinstance(root, ast.Attribute) and self.is_server(root.value):
                    mutating = not isinstance(func, ast.Attribute) or func.value is not value \
                        or func.attr in MUTATING_METHODS or func.attr.endswith("_")
                    if mutating and root.attr not in self.immutable:
                        self._write(root.attr, unknown(f"{root.attr} handed to {text}"))
                    break
                root = root.value

    def _writes_of_methods(self, call: ast.Call, name: str) -> set[str] | None:
        """``x.m(server_args)`` on an object the run does not know: what every method ``m`` of
        sglang's classes in the caller's package may write (the platform a launch runs on, the
        algorithm it picked...). Where nothing of that name is defined in the package (no
        method, no function), only a plugin's code can be called (a registered speculative
        algorithm's ``validate_server_args``, a platform plugin's hook): it writes nothing here,
        as the checks are of sglang as it ships."""
        if self.methods_by_name is None:
            self.methods_by_name, self.defined_names = {}, set()
            for module in self.modules.values():
                package = tuple(module.name.split(".")[:2])
                for node in ast.walk(module.tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.defined_names.add((package, node.name))
                for cls in module.classes:
                    for item in cls.body:
                        if isinstance(item, ast.FunctionDef):
                            self.methods_by_name.setdefault(item.name, []).append((item, module))
        package = tuple(self.module.name.split(".")[:2])  # (sglang.srt's arguments are not sglang.multimodal_gen's)
        found = [(f, m) for f, m in self.methods_by_name.get(name, ()) if tuple(m.name.split(".")[:2]) == package]
        if not found:
            return set() if (package, name) not in self.defined_names else None
        if len(found) > 40:
            return None
        written: set[str] = set()
        for function, module in found:
            inner = self._writes(call, function, module, bound=True)
            if inner is None:
                return None
            written |= inner
        return written

    methods_by_name: dict | None = None
    defined_names: set = set()

    def _writes(self, call: ast.Call, function: ast.FunctionDef, module: Module,
                bound: bool = False) -> set[str] | None:
        """The fields a call not run in place may write through the arguments it is handed
        (``bound``: a method called on an object, its first parameter that object)."""
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        on_server = isinstance(call.func, ast.Attribute) and self.is_server(call.func.value)
        offset = 1 if on_server or bound else 0
        server = [params[0]] if on_server and params else []  # (bound: the receiver is not the arguments)
        for i, arg in enumerate(call.args):
            if self.is_server(arg):
                if i + offset >= len(params):
                    return None
                server.append(params[i + offset])
        server += [k.arg for k in call.keywords if self.is_server(k.value) and k.arg is not None]
        return writes_through(function, module, self.modules, self.field_names, frozenset(server),
                              methods=self.server_methods)

    def _forget_all(self, why: str) -> None:
        marker = unknown(why)
        self.fields = {name: marker for name in self.fields}

    # --- the calls the run follows -------------------------------------------------------
    def _callee(self, node: ast.Call):
        """(function, module, parameter bindings) of an sglang function or ServerArgs method the
        call runs with the arguments; None for any other call."""
        func = node.func
        if isinstance(func, ast.Attribute) and self.is_server(func.value):
            found = self._method(func.attr)
            if found is None:
                return None
            method, module = found
            return method, module, self._bound(method, [func.value, *node.args], node.keywords, module)
        if not (any(self.is_server(a) for a in node.args) or any(self.is_server(k.value) for k in node.keywords)):
            return None
        found = self._function_named(func)
        if found is None:
            return None
        function, module = found
        return function, module, self._bound(function, node.args, node.keywords, module)

    def _bound(self, function: ast.FunctionDef, args, keywords, module: Module) -> dict:
        params = [*function.args.posonlyargs, *function.args.args]
        env: dict = {}
        views = set()
        for param, arg in zip(params, args):
            env[param.arg] = self._argument(arg)
            if self.read_view(arg):
                views.add(param.arg)
        for keyword in keywords:
            if keyword.arg is not None:
                env[keyword.arg] = self._argument(keyword.value)
                if self.read_view(keyword.value):
                    views.add(keyword.arg)
        defaults = dict(zip([p.arg for p in params][len(params) - len(function.args.defaults):],
                            function.args.defaults))
        defaults.update((a.arg, d) for a, d in zip(function.args.kwonlyargs, function.args.kw_defaults)
                        if d is not None)
        for param in [*params, *function.args.kwonlyargs]:
            if param.arg not in env:
                default = defaults.get(param.arg)
                env[param.arg] = copy.deepcopy(default) if isinstance(default, ast.Constant) \
                    else unknown(f"the parameter {param.arg}")
        if function.args.vararg is not None:
            env[function.args.vararg.arg] = unknown(f"the parameter {function.args.vararg.arg}")
        if function.args.kwarg is not None:
            named = {p.arg for p in [*params, *function.args.kwonlyargs]}
            env[function.args.kwarg.arg] = self._extra_keywords(keywords, named) \
                or unknown(f"the parameter {function.args.kwarg.arg}")
        env[VIEW_PARAMETERS] = views
        return env

    def _extra_keywords(self, keywords, named: set) -> ast.Dict | None:
        """``**fields`` of a callee: the display of the keywords no parameter takes (a ``**d``
        passed on where ``d`` is itself such a display); None where one is not known."""
        keys, values = [], []
        for keyword in keywords:
            if keyword.arg is None:
                spread = self.expr(keyword.value)
                if not (isinstance(spread, ast.Dict) and all(isinstance(k, ast.Constant) for k in spread.keys)):
                    return None
                keys += spread.keys
                values += spread.values
            elif keyword.arg not in named:
                keys.append(ast.Constant(keyword.arg))
                values.append(self.expr(keyword.value))
        return ast.Dict(keys, values)

    def _method(self, name: str):
        """A method of the arguments' class (ServerArgs, or a base of it in sglang)."""
        return self.server_methods.get(name)

    server_methods: dict = {}

    def _argument(self, node: ast.expr):
        """What a parameter is bound to: the arguments object, an sglang function handed on
        (``run_pass(server_args, resolve_x)``: called in place where the callee calls it), or
        the argument's expression."""
        if self.is_server(node):
            return SERVER
        if isinstance(node, (ast.Name, ast.Attribute)):
            found = self._function_named(node)
            if found is not None:
                return FunctionRef(*found)
            if isinstance(node, ast.Attribute) and not self.is_server(node.value):
                return MethodRef(node.attr)
        return self.expr(node)

    def _function_named(self, node: ast.expr):
        """(function, module) of the sglang function a name or dotted name stands for here."""
        if isinstance(node, ast.Name) and isinstance(self.env.get(node.id), FunctionRef):
            return self.env[node.id].function, self.env[node.id].module
        if isinstance(node, ast.Name) and node.id in self.env:
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.env:
            return None
        return resolve_function(node, self.module, self.modules, self.imported_here)
