"""sglang's start-up validation of a server's arguments, as conditions over the arguments.

A launch builds ``ServerArgs`` and, before any model loads, runs its validation: from
``__post_init__`` (up to 0.5.19) or ``resolve_once`` (0.5.20 on: the hooks of
``arg_groups/``), then ``check_server_args``. These read and rewrite the fields in order, so a
later check sees the rewritten value. This module runs that sequence symbolically, once per
release:

* every field stands for its value as the launch gives it (its name in the condition); an
  assignment to a field (``self.x = ...``, ``declare_resolution(server_args, ..., x=...)``)
  makes it the expression it was computed from; after an ``if``, a field changed in one branch
  is ``a if test else b``;
* the methods of ``ServerArgs`` and the sglang functions handed the arguments (``self._handle_x()``,
  ``handle_x(server_args)``, ``run_hook(handle_x, server_args)``) are run in place, their
  parameter standing for the same arguments (also through ``resolving_view``);
* what the linter cannot know (the model's config, the GPU, the platform, a file, a call not
  followed) is the name ``unknown``: the check evaluates it as unknown, so a condition that
  needs it is never certain, while ``x if unknown else x`` is still ``x``; an unknown call
  handed the arguments makes every field unknown from there on;
* environment variables read through ``envs.X``, ``get_bool_env_var`` or ``os.environ`` are
  the names of the variables, parsed as sglang parses them (``env_bool(SGLANG_X)``);
* every ``raise`` and ``assert`` met is a site, with the conjunction of the tests that lead to
  it. An earlier raise adds nothing to a later site's path (the launch fails either way), an
  earlier ``return`` adds its negation.

The result per site: a ``fails-when`` condition (checks/fails_when/language.py) over the fields and
environment variables, or the reason it cannot be one.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from sglang_lint.checks.fails_when.conditions import is_query, query_root
from sglang_lint.checks.fails_when.grammar import BUILTINS
from sglang_lint.checks.messages import SHOWN_WRAPPERS
from sglang_lint.checks.fails_when.language import MORE_VALUE_METHODS
from sglang_lint.derive.reading.expressions import negate
from sglang_lint.derive.reading.path_run import HARMLESS_CALLS, PathRun, Unwritable, function_body
from sglang_lint.derive.server_args.call_effects import (
    DECLARE_CALLS, MODEL_OVERRIDE_COLLECTORS, READ_VIEWS, VIEW_CALLS, VIEW_PARAMETERS, CallEffects, FunctionRef,
    MethodRef,
)
from sglang_lint.derive.startup.declarations import (
    Declarations, Terminated, bound_declaration, declarable, decorator_name, with_key,
)
from sglang_lint.derive.source.exceptions import caught, exception_of, message_fields
from sglang_lint.derive.reading.symbolic import (
    MAX_CONDITION, SERVER, bounded, collapse, conjunction, if_else, is_unknown, merge_displays, one_of,
    query, size, unknown, with_launch_text,
)
from sglang_lint.derive.startup.none_compared import NoneCompared
from sglang_lint.derive.startup.platform_probes import (
    PROBE_MODULES,
    assigned_function,
    is_platform_call,
    platform_facts,
)
from sglang_lint.derive.startup.flow import Flow
from sglang_lint.derive.startup.inputs import (
    ALL_VARIABLES, dummy_model_test, variable_read, variable_write,
)
from sglang_lint.derive.source.tree import Module, walk_local

MAX_DEPTH = 12  # calls run in place inside one another
MODEL_CONFIG = "hf_config"  # the model's config, one for a launch however sglang reached it
HOOK_RUNNERS = frozenset({"run_hook"})  # run_hook(step, server_args) runs step(server_args)
# The calls a placeholder of a message may make for its value to be written (builtins whose
# result the evaluator knows; anything else may run sglang's code or read the machine).
SHOWN_CALLS = frozenset({"len", "str", "int", "float", "bool", "abs", "round", "min", "max", "sorted", "list", "tuple"})


@dataclass
class Site:
    """One raise or assert met on the way, with the condition that reaches it."""

    module: str
    function: str
    line: int
    exception: str
    message: str
    condition: ast.expr | None  # None: see skip
    skip: str = ""
    node: ast.stmt | None = field(default=None, repr=False)
    shown: tuple = ()  # the value of each ``{...}`` of the message there (None: not known)


@dataclass
class _Frame:
    module: Module
    function: ast.FunctionDef
    env: dict
    helpers: dict
    imported_here: dict
    path_start: int
    returns: list = field(default_factory=list)  # (condition, fields, environ) at each return
    # ``not c`` of each return met (at ``c``, the path then): what runs after it runs only there
    guards: list = field(default_factory=list)
    views: set = field(default_factory=set)  # names bound to a read-only view of the arguments
    # what an enclosing ``if x in ("a", "b")`` says of a value the run does not know: the text
    # of ``x`` -> (its possible literals, the names it reads: a write to one, or a call handed
    # one, ends it). Only names and attributes of names: reading them runs nothing.
    narrowed: dict = field(default_factory=dict)


class StartupRun(Flow, NoneCompared, Declarations, CallEffects, PathRun):
    """The symbolic run of one release's start-up validation."""

    builtins = BUILTINS  # (its own getattr of the arguments: _getattr_of_server)

    def __init__(self, modules: dict[str, Module], fields: list[str], envs: dict[str, str], classes=None,
                 immutable: frozenset = frozenset()):
        self.modules = modules
        self.immutable = immutable  # fields of a type no call can change in place (str, int, bool...)
        self.fields: dict[str, ast.expr] = {name: ast.Name(name, ast.Load()) for name in fields}
        self.field_names = frozenset(fields)
        self.environ: dict[str, ast.expr] = {}  # variables the run itself sets
        self.envs = envs  # sglang.srt.environ: variable -> parse function (env_bool, ...)
        self.sites: list[Site] = []
        self.frames: list[_Frame] = []
        self.running: set[int] = set()  # functions on the call stack (no recursion)
        self.view_methods: dict[int, str | None] = {}  # id(method) -> the view it only returns
        self.catching: tuple = ()
        self.in_loop = 0
        self.checking: list = []  # the loops that only test their items: (path length before, variable, items)
        self.queries: dict[str, str] = {}  # a query's name -> the function it calls (symbolic.query)
        self.platform_facts = platform_facts(modules)  # get_platform()'s fact -> the probe it reads
        self.classes = classes
        self.depth = 0
        self.path = []
        # PathRun's per-function state, swapped with each frame
        self.module = None
        self.function = None
        self.env = {}
        self.helpers = {}
        self.imported_here = {}
        self.parameters = set()
        self.self_name = None

    # --- frames -------------------------------------------------------------------------
    def _enter(self, module: Module, function: ast.FunctionDef, env: dict) -> _Frame:
        views = env.pop(VIEW_PARAMETERS, set())
        frame = _Frame(module, function, env, {n.name: n for n in module.tree.body
                                               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))},
                       {}, len(self.path), views=views)
        self.frames.append(frame)
        self._load(frame)
        return frame

    def _load(self, frame: _Frame) -> None:
        self.module, self.function, self.env = frame.module, frame.function, frame.env
        self.helpers, self.imported_here = frame.helpers, frame.imported_here

    def _leave(self) -> None:
        self.frames.pop()
        if self.frames:
            self._load(self.frames[-1])

    # --- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr) -> ast.expr:
        try:
            value = collapse(self._expr(node))
        except Unwritable as reason:
            value = unknown(str(reason))
        except RecursionError:
            return unknown("too deep")
        if is_unknown(value):
            asked = self._query(node)
            if asked is not None:
                return asked
        elif isinstance(value, ast.Attribute) and value.attr in self.platform_facts and is_query(value.value) \
                and is_platform_call(getattr(value.value, "reason", "")):  # get_platform().is_sm100: a probe's
            return self._named_query(PROBE_MODULES[-1], self.platform_facts[value.attr])
        if is_unknown(value) and self.frames and self.frames[-1].narrowed:
            found = self.frames[-1].narrowed.get(ast.dump(node))
            if found:
                return one_of(found[0], value)
        return value

    def _expr(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Attribute) and self.is_server(node.value):
            return self._field(node.attr)
        if isinstance(node, ast.Call):
            read = self._env_read(node)
            if read is not None:
                return read
            if self._getattr_of_server(node):
                name = self._constant_name(node.args[1])
                if name in self.fields:
                    return self.fields[name]
                return self.expr(node.args[2]) if len(node.args) == 3 else unknown(f"reads {name}")
            if isinstance(node.func, ast.Attribute) and self.is_server(node.func.value) \
                    and self._method(node.func.attr) is None:
                raise Unwritable(f"calls the arguments' method {node.func.attr}")
        if isinstance(node, ast.Name) and self.env.get(node.id) is SERVER:
            raise Unwritable("the arguments object as a value")
        if isinstance(node, ast.IfExp):  # a constant test picks its branch; one the launch cannot decide: either
            return if_else(self.expr(node.test), self.expr(node.body), self.expr(node.orelse), "the value")
        return super().expr(node)

    def _query(self, node: ast.expr) -> ast.expr | None:
        """The query ``node`` reads where its value is not followed (symbolic.query): a call of
        an sglang function with no arguments (``is_hip()``, ``get_platform()``), a method of a
        query called so (``get_platform().is_out_of_tree()``), a name its module binds once to
        such a call (``_is_hip = is_hip()``), the model's Hugging Face config (``x.hf_config``
        of whatever the model config came from). None for anything else: a local's method, the
        standard library's (``time.time()`` is not one value), a call given arguments."""
        if isinstance(node, ast.Attribute) and node.attr == MODEL_CONFIG:
            return query(MODEL_CONFIG, "queries the model's config (hf_config)")
        if isinstance(node, ast.Name):
            if node.id in self.env or node.id in self.parameters or node.id in self.imported_here \
                    or node.id in self.module.mutated:
                return None
            bound = [n.value for n in self.module.tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.id]
            if len(bound) != 1 or not isinstance(bound[0], ast.Call) or bound[0].args or bound[0].keywords:
                return None
            value = self.expr(bound[0])  # what the call reads where it is called (the same query)
            return None if is_unknown(value) else value
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return None
        if isinstance(node.func, ast.Attribute):
            receiver = self.expr(node.func.value)
            if is_query(query_root(receiver)):
                return ast.Call(ast.Attribute(receiver, node.func.attr, ast.Load()), [], [])
        found = self._function_named(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
        if found is None:  # a name bound to a made function (``is_sm100_supported = lru_cache(...)(...)``)
            made = assigned_function(node.func, self.module, self.modules, self.imported_here)
            return self._named_query(*made) if made is not None and made[0].startswith("sglang.") else None
        return self._named_query(found[1].name, found[0].name) if found[1].name.startswith("sglang.") else None

    def _named_query(self, module: str, function: str) -> ast.expr:
        name = function.lstrip("_")
        qualified = f"{module}.{function}"
        if self.queries.setdefault(name, qualified) != qualified:  # (two functions of one name)
            name = f"{module.rsplit('.', 1)[-1]}_{name}"
        return query(name, f"queries {qualified}()")

    def _call(self, node: ast.Call) -> ast.expr:
        """A call of an sglang function (or of a ServerArgs method on the arguments) for its
        value: run in place, its value what it returns; any other call as path_run.py reads it."""
        func = node.func
        if decorator_name(func) in MODEL_OVERRIDE_COLLECTORS:
            self._apply_model_overrides()
            return unknown("the model's overrides")
        if not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords) \
                and len(self.frames) < MAX_DEPTH:
            if isinstance(func, ast.Attribute) and self.is_server(func.value):
                found = self._method(func.attr)
                if found is not None:
                    return self.run_function(found[1], found[0],
                                             self._bound(found[0], [func.value, *node.args], node.keywords, found[1]))
            elif isinstance(func, (ast.Name, ast.Attribute)) and not (
                    isinstance(func, ast.Name) and func.id in BUILTINS and func.id not in self.helpers):
                found = self._function_named(func)
                handed_on = isinstance(func, ast.Name) and isinstance(self.env.get(func.id), FunctionRef)
                # (a decorated function is run as it is only where it was handed on: the
                # registry's own, a pass or a provider; elsewhere the decorator may wrap it)
                if found is not None and found[1].name.startswith("sglang.") \
                        and (handed_on or not found[0].decorator_list):
                    returned = self.run_function(found[1], found[0],
                                                 self._bound(found[0], node.args, node.keywords, found[1]))
                    keys = declarable(found[0]) if handed_on else None
                    return returned if keys is None else bound_declaration(returned, keys)
        if isinstance(func, ast.Attribute) and func.attr in MORE_VALUE_METHODS and all(k.arg for k in node.keywords):
            receiver = self.expr(func.value)  # ``device.split(":")[0]``: a string method the evaluator knows
            return ast.Call(ast.Attribute(receiver, func.attr, ast.Load()), [self.expr(a) for a in node.args], [])
        return super()._call(node)

    def _name(self, name: str) -> ast.expr:
        if self.env.get(name) is SERVER:
            raise Unwritable("the arguments object as a value")
        if isinstance(self.env.get(name), (FunctionRef, MethodRef)):
            raise Unwritable("a function as a value")
        return super()._name(name)

    def _field(self, name: str) -> ast.expr:
        if name in self.fields:
            return self.fields[name]
        raise Unwritable(f"reads {name}, not a field")

    def is_server(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return self.env.get(node.id) is SERVER
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in VIEW_CALLS \
                and len(node.args) >= 1:
            return self.is_server(node.args[0])
        return self._view_method(node) is not None

    def _view_method(self, node: ast.expr) -> str | None:
        """``self._resolved()``: a method of the arguments that only returns a view of them
        (``return resolved_view(self)``); the view call's name, else None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args
                and not node.keywords and self.is_server(node.func.value)):
            return None
        found = self._method(node.func.attr)
        if found is None:
            return None
        if id(found[0]) not in self.view_methods:
            self.view_methods[id(found[0])] = _returned_view(found[0])
        return self.view_methods[id(found[0])]

    def read_view(self, node: ast.expr) -> bool:
        """A read-only view of the arguments (``cfg = resolving_view(server_args)``, 0.5.20 on):
        it refuses writes, so a call handed it writes no field."""
        if isinstance(node, ast.Name):
            return node.id in self.frames[-1].views and self.is_server(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READ_VIEWS:
            return len(node.args) >= 1 and self.is_server(node.args[0])
        return self._view_method(node) in READ_VIEWS

    def _getattr_of_server(self, node: ast.Call) -> bool:
        return isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) in (2, 3) \
            and self.is_server(node.args[0]) and isinstance(self._constant_name(node.args[1]), str)

    def _constant_name(self, node: ast.expr) -> str | None:
        """The text a name argument of getattr/setattr certainly is (a literal, or a local
        bound to one)."""
        value = node if isinstance(node, ast.Constant) else self.expr(node)
        return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None

    def _env_read(self, node: ast.Call) -> ast.expr | None:
        """``envs.X.get()``, ``get_bool_env_var("X")``, ``os.environ.get("X")``, ``os.getenv("X")``."""
        found = variable_read(node, self.envs)
        return None if found is None else self._variable(*found)

    def _variable(self, name: str, parse: str | None) -> ast.expr:
        if parse is None:
            raise Unwritable(f"reads the environment variable {name} of an unknown kind")
        raw = self.environ.get(name, ast.Name(name, ast.Load()))
        return ast.Call(ast.Name(parse, ast.Load()), [raw], [])

    # --- statements ---------------------------------------------------------------------
    def run_function(self, module: Module, function: ast.FunctionDef, env: dict) -> ast.expr:
        """Run ``function``'s body in place, ``env`` binding its parameters; after it, the fields
        are what every way out of it leaves them. Returns the value it returns."""
        if id(function) in self.running or len(self.frames) >= MAX_DEPTH:
            if any(value is SERVER for value in env.values()):  # (a recursion on other values writes nothing)
                self._forget_all(f"calls {function.name} again or too deep")
            return unknown(f"calls {function.name} again or too deep")
        self.running.add(id(function))
        frame = self._enter(module, function, env)
        try:
            try:
                self.block(function_body(function))
                ended = True
            except Terminated:
                ended = False
            fell_off = (None, dict(self.fields), dict(self.environ), ast.Constant(None))
            exits = frame.returns + ([fell_off] if ended else [])
            if not exits:
                raise Terminated()
            return self._join(exits)
        finally:
            self.running.discard(id(function))
            self._leave()

    def _join(self, exits: list) -> ast.expr:
        """The fields after a function with several ways out, and the value it returns: the last
        way's, each earlier return's where its condition holds."""
        _, fields, environ, value = exits[-1]
        fields, environ = dict(fields), dict(environ)
        for condition, returned, returned_env, returned_value in reversed(exits[:-1]):
            for name in set(fields) | set(returned):
                a, b = returned.get(name), fields.get(name)
                if a is not b:
                    fields[name] = if_else(condition, a, b, name)
            returned_env, environ = with_launch_text(returned_env, environ)
            for name in set(environ) | set(returned_env):
                a, b = returned_env.get(name), environ.get(name)
                if a is not b:
                    environ[name] = if_else(condition, a, b, name)
            value = merge_displays(condition, returned_value, value) \
                or if_else(condition, returned_value, value, "the returned value")
        self.fields, self.environ = fields, environ
        return value

    def block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, statement: ast.stmt) -> None:
        self.none_compared(statement)
        if isinstance(statement, (ast.Raise, ast.Assert)):
            self._site(statement)
            always = isinstance(statement, ast.Raise) or (
                isinstance(statement.test, ast.Constant) and not statement.test.value)  # (``assert False``)
            if always:
                raise Terminated()
            return
        if isinstance(statement, ast.Return):
            frame = self.frames[-1]
            condition = conjunction(self.path[frame.path_start:] + frame.guards)
            if condition is not None and dummy_model_test(condition):
                raise Terminated()  # taken as not taken: see _dummy_model_test
            value = self.expr(statement.value) if statement.value is not None else ast.Constant(None)
            if value is SERVER:
                value = unknown("returns the arguments object")
            frame.returns.append((condition, dict(self.fields), dict(self.environ), value))
            if condition is not None:
                frame.guards.append(negate(condition))
            raise Terminated()
        if isinstance(statement, ast.If):
            self._if(statement)
            return
        if isinstance(statement, ast.Expr):
            if isinstance(statement.value, ast.Call):
                self.call(statement.value)
            return
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assignment(statement)
            return
        if isinstance(statement, (ast.Pass, ast.Global, ast.Nonlocal)):
            return
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            self._import(statement)
            return
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.env[statement.name] = unknown(f"the local function {statement.name}")
            return
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                self._calls_in(item.context_expr)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, unknown("a with statement's value"))
            self.block(statement.body)
            return
        if isinstance(statement, ast.Try):
            self._try(statement)
            return
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            self._loop(statement)
            return
        if isinstance(statement, ast.Delete):
            for target in statement.targets:
                self._havoc_target(target)
            return
        self._havoc(statement, f"a {type(statement).__name__.lower()} statement")

    def _import(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            for alias in statement.names:
                self.env.pop(alias.asname or alias.name, None)
                self.imported_here[alias.asname or alias.name] = f"{statement.module}.{alias.name}"

    def _site(self, statement: ast.Raise | ast.Assert) -> None:
        frame = self.frames[-1]
        exception, message = exception_of(statement)
        guards = [g for f in self.frames for g in f.guards]
        test = [negate(self.expr(statement.test))] if isinstance(statement, ast.Assert) else []
        if self.checking and not self.in_loop:  # some item of a loop that only tests them
            start, name, items = self.checking[-1]
            inner = conjunction(self.path[start:] + test)
            generator = ast.GeneratorExp(inner if inner is not None else ast.Constant(True),
                                         [ast.comprehension(ast.Name(name, ast.Store()), items, [], 0)])
            path = self.path[:start] + guards + [ast.Call(ast.Name("any", ast.Load()), [generator], [])]
        else:
            path = list(self.path) + guards + test
        skip = ""
        if self.in_loop:
            skip = "inside a loop"
        elif caught(exception, self.catching):
            skip = "caught by the try around it"
        if isinstance(statement, ast.Raise) and statement.exc is None:
            skip = "re-raises what it caught"
        condition = conjunction(path) if path else ast.Constant(True)
        if not skip and size(condition) > MAX_CONDITION:
            skip = "the path to it is too long to write out"
        shown = () if skip else self._shown(statement)
        self.sites.append(Site(frame.module.name, _qualified(frame), statement.lineno, exception, message,
                               None if skip else condition, skip, statement, shown))

    def add_site(self, statement: ast.stmt, line: int, exception: str, message: str, condition: ast.expr) -> None:
        """A failure that is no raise statement (derive/startup/none_compared.py)."""
        self.sites.append(Site(self.frames[-1].module.name, _qualified(self.frames[-1]), line, exception, message,
                               condition, "", statement, ()))

    def _shown(self, statement: ast.Raise | ast.Assert) -> tuple:
        """The value each ``{...}`` placeholder of the message shows, over the fields (None
        where it reads anything the run does not know, or calls anything but a builtin)."""
        if isinstance(statement, ast.Assert):
            node = statement.msg
        else:
            exc = statement.exc
            node = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
        shown = []
        for expression in message_fields(node):
            value = None
            wrapper = None
            if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name) \
                    and expression.func.id in SHOWN_WRAPPERS and getattr(expression, "shown", False):
                wrapper, expression = expression, expression.args[0]  # (message_fields' own: !r, a spec)
            if expression is not None and all(
                    not isinstance(n, ast.Call) or isinstance(n.func, ast.Name) and n.func.id in SHOWN_CALLS
                    for n in ast.walk(expression)) and not any(
                    isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield)) for n in ast.walk(expression)):
                value = self.expr(expression)
                # A value unknown on some paths only is kept: the finding shows it where the
                # launch takes a known path, and <?> where it takes another.
                if is_unknown(value) or size(value) > MAX_CONDITION:
                    value = None
                elif wrapper is not None:
                    value = ast.Call(wrapper.func, [value, *wrapper.args[1:]], [])
            shown.append(value)
        return tuple(shown)

    # --- assignments --------------------------------------------------------------------
    def _assignment(self, statement: ast.stmt) -> None:
        value_node = statement.value
        if value_node is None:
            return
        self._calls_in(value_node)
        if isinstance(statement, ast.AugAssign):
            value = self.expr(ast.BinOp(_load(statement.target), statement.op, value_node))
            self._bind(statement.target, value)
            return
        view = self.read_view(value_node)
        for target in ([statement.target] if isinstance(statement, ast.AnnAssign) else statement.targets):
            if isinstance(target, ast.Name):
                (self.frames[-1].views.add if view else self.frames[-1].views.discard)(target.id)
        if self.is_server(value_node):
            value = SERVER
        elif self._recorded(value_node):
            value = ast.Dict([], [])
        elif self._prefixed_keys(value_node) is not None:
            value = self._prefixed_keys(value_node)
        else:
            value = self.expr(value_node)
        targets = [statement.target] if isinstance(statement, ast.AnnAssign) else statement.targets
        for target in targets:
            self._bind(target, value)

    def _bind(self, target: ast.expr, value) -> None:
        self._forget_narrowed(target)
        if isinstance(target, ast.Name):
            self.env[target.id] = bounded(value)
        elif isinstance(target, ast.Attribute) and self.is_server(target.value):
            self._write(target.attr, value if value is not SERVER else unknown("the arguments object"))
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            for index, element in enumerate(target.elts):
                if starred or value is SERVER or is_unknown(value):
                    item = unknown("unpacked")
                elif isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                    item = value.elts[index]
                else:
                    item = ast.Subscript(value, ast.Constant(index), ast.Load())
                self._bind(element.value if isinstance(element, ast.Starred) else element, item)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and isinstance(self._key(target.slice), ast.Constant) \
                and with_key(self.env.get(target.value.id), self._key(target.slice), value) is not None:
            # ``out["x"] = v`` (or ``out[name] = v`` in a loop over names) on a dict display
            # built in steps (one of two by a test): the display with that key
            self.env[target.value.id] = with_key(self.env[target.value.id], self._key(target.slice), value)
        else:
            self._havoc_target(target)

    def _key(self, node: ast.expr) -> ast.expr:
        """A subscript's key as the run knows it (a literal, or a name bound to one)."""
        return node if isinstance(node, ast.Constant) else self.expr(node)

    def _write(self, name: str, value: ast.expr) -> None:
        if name in self.fields:
            self.fields[name] = bounded(value)

    def _havoc_target(self, target: ast.expr) -> None:
        """``x[k] = v``, ``self.x[k] = v``, ``del x``: the object written is unknown now."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Starred)):
            if isinstance(root, (ast.Attribute,)) and self.is_server(root.value):
                self._write(root.attr, unknown(f"{root.attr} changed in place"))
                return
            root = root.value
        if isinstance(root, ast.Name):
            self.env[root.id] = unknown(f"{root.id} changed in place")

    def _havoc(self, statement: ast.stmt, why: str) -> None:
        """Everything a statement may write is unknown: its assignments, and what its calls may
        change."""
        self._forget_narrowed(statement)
        for node in walk_local(statement):
            if isinstance(node, (ast.Name,)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.env[node.id] = unknown(why)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and self.is_server(node.value):
                self._write(node.attr, unknown(why))
            elif isinstance(node, ast.Call):
                self._call_effects(node)

    # --- calls ------------------------------------------------------------------------
    def _calls_in(self, node: ast.expr) -> None:
        """What the calls inside an expression may change (a call run for its value is not
        run in place: its effects on the arguments make the fields it may write unknown)."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                self._forget_narrowed(inner)
                self._call_effects(inner)

    def call(self, node: ast.Call) -> None:
        """A call made for its effect: run in place where it is sglang's and reaches the
        arguments; otherwise only what it may change."""
        func = node.func
        text = ast.unparse(func)
        if text.startswith(HARMLESS_CALLS) or text in ("print", "warnings.warn"):
            return
        self._forget_narrowed(node)
        if isinstance(func, ast.Name) and func.id in DECLARE_CALLS and node.args and self.is_server(node.args[0]):
            declared: dict = {}
            for keyword in node.keywords:
                spread = {keyword.arg: self.expr(keyword.value)} if keyword.arg is not None \
                    else self._declared(self.expr(keyword.value))
                if spread is None:
                    self._forget_all("declares ** values")
                    return
                declared.update(spread)
            for name, value in declared.items():
                self._write(name, value)
            return
        if text in ("setattr", "object.__setattr__") and len(node.args) == 3 and self.is_server(node.args[0]):
            name = self._constant_name(node.args[1])
            if name is not None:
                self._write(name, self.expr(node.args[2]))
            else:
                self._forget_all("setattr of a computed name")
            return
        if self._set_env(node):
            return
        if self._update_display(node):
            return
        if isinstance(func, ast.Name) and func.id in HOOK_RUNNERS and len(node.args) == 2 \
                and self.is_server(node.args[1]):
            step = self._function_named(node.args[0])
            if step is not None:
                self.run_function(step[1], step[0], self._bound(step[0], [node.args[1]], [], step[1]))
                return
        target = self._callee(node) or self._checker(node)
        if target is not None:
            function, module, bound = target
            self.run_function(module, function, bound)
            return
        self._call_effects(node)

    def _checker(self, node: ast.Call):
        """A plain sglang function called for its effect with values read from the arguments
        (``validate_buckets_rule("--x", cfg.buckets)``): it checks them, so it is run in place
        like a call handed the arguments (None for any other call)."""
        given = [*node.args, *(k.value for k in node.keywords)]
        if any(isinstance(a, ast.Starred) for a in node.args) or not all(k.arg for k in node.keywords) \
                or not isinstance(node.func, (ast.Name, ast.Attribute)) \
                or not any(isinstance(n, ast.Attribute) and self.is_server(n.value)
                           for a in given for n in ast.walk(a)):
            return None
        found = self._function_named(node.func)
        if found is None or not found[1].name.startswith("sglang.") or found[0].decorator_list:
            return None
        return found[0], found[1], self._bound(found[0], node.args, node.keywords, found[1])

    def _set_env(self, node: ast.Call) -> bool:
        """``envs.X.set(v)``; ``os.environ.update(...)`` and the like: what they set is unknown."""
        found = variable_write(node)
        if found is None:
            return False
        if found is ALL_VARIABLES:
            self.environ = {}
        else:
            name, value = found
            self.environ[name] = ast.Call(ast.Name("str", ast.Load()), [self.expr(value)], [])
        return True


def _returned_view(method: ast.FunctionDef) -> str | None:
    """The view call a method only returns (``return resolved_view(self)``, its function
    imported in the method or not), else None."""
    body = [s for s in function_body(method) if not isinstance(s, (ast.Import, ast.ImportFrom))]
    params = method.args.args
    if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call) and params:
        call = body[0].value
        if isinstance(call.func, ast.Name) and call.func.id in VIEW_CALLS and call.args \
                and isinstance(call.args[0], ast.Name) and call.args[0].id == params[0].arg:
            return call.func.id
    return None


def _load(node: ast.expr) -> ast.expr:
    node = copy.deepcopy(node)
    for child in ast.walk(node):
        if hasattr(child, "ctx"):
            child.ctx = ast.Load()
    return node


def _qualified(frame: _Frame) -> str:
    return frame.function.name
