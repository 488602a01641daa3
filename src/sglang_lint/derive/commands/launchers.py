"""sglang's own launch entry points: the functions whose parameter takes server launch flags
(``["--tp-size", "2"]``) and hands them to the server launcher, read from sglang's source and
never imported; the table (``launchers.toml``) lets a check judge the literal list a user
passes there as launch flags.

A parameter takes flags when its value, unchanged, lands in a command list that also holds the
launcher (``-m sglang.launch_server`` or ``sglang serve``: the program the flags go to) and that command goes to
``subprocess`` or to a function that runs commands; or when it is parsed by a parser that
``ServerArgs.add_cli_args`` filled. Then, to a fixpoint, a parameter passed unchanged as the
flags of an entry point found so far takes flags too. "Unchanged" allows what keeps the user's
list whole: ``P or []``, ``list(P)``, ``P.copy()``, ``[str(x) for x in P]``, ``[..., *P]``,
``L + P``, ``cmd.extend(P)``, ``cmd += P``, ``P += [...]``; a filtered or rebuilt list is not
the user's any more. A rebinding inside one branch leaves the value it had on the others
(``if "--config" in argv: argv = merge(argv)`` keeps ``argv`` for the parse after it)."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sglang_lint.derive.commands.class_launchers import attribute_launchers, call_argument
from sglang_lint.derive.source.exports import package_exports
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.source.tree import Module, no_gc, source_path, walk_local

if TYPE_CHECKING:  # (a launchers table names the subcommands the deriver read; the linter reads none)
    from sglang_lint.derive.commands.subcommands import Commands

LAUNCHERS_TABLE = "launchers.toml"
# the flags of `sglang serve`'s backends and of `sglang generate` (derive/commands/serve.py)
COMMANDS_TABLE = "serve.toml"
SCRIPTS_TABLE = "scripts.toml"  # the modules run with `python -m` and their parsers (derive/commands/scripts.py)
DIFFUSION_PACKAGE = "sglang.multimodal_gen."
# The calls that run a command list: (qualified name, its argument, its position).
RUNNERS = {f"subprocess.{name}": ("args", 0) for name in ("Popen", "run", "call", "check_call", "check_output")}
RUNNER_NAMES = {"popen_with_error_check": ("command", 0)}  # sglang.test.test_utils's, matched by name
LAUNCH_MODULES = frozenset({"sglang.launch_server"})  # python -m <this>
MAX_TEXTS = 16  # the strings a name may be, past which it is any
PARSE_METHODS = frozenset({"parse_args", "parse_known_args"})
ARG_CLASSES = frozenset({"ServerArgs"})  # <this>.add_cli_args(parser) makes a launch-flags parser
COPIES = frozenset({"list", "tuple", "copy.copy", "copy.deepcopy"})
GROWING = frozenset({"extend"})  # cmd.extend(P): cmd holds P (P.append(x) leaves P holding the user's list)
SHRINKING = frozenset({"remove", "pop", "clear", "sort", "reverse"})  # P.remove(x): not the user's list
STRING_KEEPING = frozenset({"replace", "strip", "rstrip", "lstrip"})  # a command string's words stay its own


@dataclass(frozen=True)
class EntryPoint:
    kind: str  # "function" | "method"
    name: str  # module.function, or the bare method name
    argument: str
    position: int | None  # 0-based, after self/cls; None for keyword-only
    takes: str  # "flags" | "command"
    evidence: str  # path/to/module.py:LINE of the launch it reaches
    receivers: tuple[str, ...] = ()  # a method: the class it is of (a call needs evidence of it)
    # flags: "" the server launcher's, "serve" those of `sglang serve` (catalog.Target.program; a
    # project's helpers only: launchers_text leaves it out)
    program: str = ""
    # kind "class": the class's method that launches with the attribute (``argument``) a subclass sets
    launched_in: str = ""

    @property
    def sort_key(self) -> tuple:
        return self.kind, self.name, self.argument, self.takes


@dataclass(frozen=True)
class Value:
    """What an expression of a function holds: the parameters whose (unchanged) list is part of
    it, those its list starts with, the launchers whose words it holds (the program each runs, as
    EntryPoint.program), the strings it may be (if literals), and whether it is an argument parser
    that ServerArgs filled."""

    params: frozenset = frozenset()
    heads: frozenset = frozenset()
    launcher: frozenset = frozenset()
    texts: frozenset = frozenset()  # the strings it may be
    parser: bool = False
    # a command string: the parameters whose text it starts with (``f"{command} --port {port}"``)
    line: frozenset = frozenset()
    # a list split from such a string (``command.split()``): the parameters whose words it starts with
    split: frozenset = frozenset()

    def join(self, other: Value) -> Value:
        """Either one (a value after an ``if`` that may or may not have rebound it)."""
        return Value(self.params | other.params, self.heads | other.heads, self.launcher | other.launcher,
                     self.texts | other.texts, self.parser or other.parser, self.line | other.line,
                     self.split | other.split)

    def plus(self, other: Value) -> Value:
        """This list with the other appended (``a + b``, ``a.extend(b)``)."""
        return Value(self.params | other.params, self.heads, self.launcher | other.launcher)


EMPTY = Value()


@dataclass
class Function:
    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef
    key: tuple[str, str]  # ("function", module.name) or ("method", name)
    params: dict[str, int | None]  # name -> position (None: keyword-only)
    owner: str | None = None  # module.Class of a method
    _calls: set[str] | None = None

    @property
    def calls(self) -> set[str]:
        """The last names of everything it calls (read once, when first asked)."""
        if self._calls is None:
            self._calls = set()
            for child in walk_local(self.node):
                if isinstance(child, ast.Call):
                    func = child.func
                    self._calls.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        return self._calls


@dataclass
class Found:
    takes: str
    evidence: str
    program: str = ""


class Tree:
    """The functions and methods of sglang, and how a call in one module names them."""

    def __init__(self, modules: list[Module]):
        self.seed_positions: dict[tuple, dict[str, int | None]] = {}  # entry points outside the tree
        self.modules = {m.name: m for m in modules}
        self.roots = {name.split(".")[0] for name in self.modules} | {"sglang", "subprocess"}  # dotted calls followed
        self.exports = package_exports(modules)
        owners: Counter = Counter()
        for module in modules:
            for node in module.classes:
                owners.update({item.name for item in node.body
                               if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))})
        self.unique_methods = {name for name, count in owners.items() if count == 1 and not name.startswith("__")}
        self.functions: list[Function] = []
        for module in modules:
            for node in module.tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._add(module, node, ("function", f"{module.name}.{node.name}"), False)
            for cls in module.classes:
                for item in cls.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in self.unique_methods:
                        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
                        self._add(module, item, ("method", item.name), not static, f"{module.name}.{cls.name}")

    def _add(self, module: Module, node, key: tuple[str, str], bound: bool, owner: str | None = None) -> None:
        positional = [a.arg for a in node.args.posonlyargs + node.args.args][1 if bound else 0:]
        params: dict[str, int | None] = {name: i for i, name in enumerate(positional)}
        params.update({a.arg: None for a in node.args.kwonlyargs})
        self.functions.append(Function(module, node, key, params, owner))

    def canonical(self, name: str) -> str:
        seen = set()
        while name in self.exports and name not in seen:
            seen.add(name)
            name = self.exports[name]
        return name

    def dotted(self, node: ast.expr, module: Module, local: set[str]) -> str | None:
        """The qualified name a dotted expression of ``module`` names (not a local variable)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in local:
            return None
        if node.id in module.imports:
            base = module.imports[node.id]
        elif node.id in module.definitions:
            base = f"{module.name}.{node.id}"
        else:
            base = node.id
        return self.canonical(".".join([base, *reversed(parts)]))

    def callee(self, call: ast.Call, module: Module, local: set[str]) -> tuple[str, str] | None:
        """("function", qualified name) or ("method", name) of a call, or None."""
        func = call.func
        name = self.dotted(func, module, local)
        if name is not None and (isinstance(func, ast.Name) or name.split(".")[0] in self.roots):
            return "function", name
        if isinstance(func, ast.Attribute) and func.attr in self.unique_methods:
            return "method", func.attr
        return None

    def constant(self, name: str, module: Module, depth: int = 0) -> ast.expr | None:
        """The module-level literal a name of ``module`` is bound to (through imports)."""
        if name in module.constants:
            return module.constants[name]
        where = module.imports.get(name)
        if where and depth < 5:
            owner, _, attribute = where.rpartition(".")
            if owner in self.modules:
                return self.constant(attribute, self.modules[owner], depth + 1)
        return None


def launch_entry_points(modules: list[Module], seeds: list[EntryPoint] = (),
                        hierarchy: Hierarchy | None = None) -> list[EntryPoint]:
    """Every function and method of the tree (a method only if no other class of it has one of
    its name) that takes launch flags, or a whole launch command, in a parameter. ``seeds``:
    entry points outside the tree its functions may hand their parameter on to (sglang's own,
    for a user's project: sglang-lint's project pass). ``hierarchy``: the tree's classes, where
    the caller has read them (else read where a class launches with one of its attributes)."""
    with no_gc():  # (a whole tree's nodes are alive: the collector would rescan them again and again)
        return _entry_points(modules, seeds, hierarchy)


def _entry_points(modules: list[Module], seeds, hierarchy: Hierarchy | None) -> list[EntryPoint]:
    tree = Tree(modules)
    found: dict[tuple, dict[str, Found]] = {}  # callee key -> parameter -> what it takes
    for seed in seeds:
        if seed.kind == "function":
            found.setdefault((seed.kind, seed.name), {})[seed.argument] = Found(seed.takes, seed.evidence, seed.program)
            tree.seed_positions.setdefault((seed.kind, seed.name), {})[seed.argument] = seed.position
    launching: set[tuple] = set()  # command runners that sglang hands a launch command to
    forwards: dict[tuple, set[tuple]] = {}  # runner -> runners it hands its command on to
    by_key = {}
    for function in tree.functions:
        by_key.setdefault(function.key, function)
    # First every function that calls a runner or a parser; then, until nothing changes, those
    # that call an entry point the pass before found something new of. A module whose text has
    # none of the words is not read further.
    seeded = {key[1].rpartition(".")[2] for key in tree.seed_positions}
    wanted = (PARSE_METHODS | {"add_cli_args"} | {name.rpartition(".")[2] for name in RUNNERS} | set(RUNNER_NAMES)
              | seeded)
    screen = {"subprocess", "add_cli_args", *RUNNER_NAMES, *seeded}
    while wanted:
        changed = set()
        screened = {m.name for m in modules if any(word in m.source for word in screen)}
        for function in tree.functions:
            if function.module.name not in screened or not function.calls & wanted:
                continue
            flow = Flow(tree, function, found, by_key)
            flow.run()
            launching |= flow.launching
            for runner, targets in flow.forwards.items():
                forwards.setdefault(runner, set()).update(targets)
            mine = found.setdefault(function.key, {})
            for param, (takes, evidence, program) in flow.found.items():
                if param not in mine or (mine[param].takes == "command" and takes == "flags"):
                    mine[param] = Found(takes, evidence, program)
                    changed.add(function.key[1].rpartition(".")[2])
        wanted = screen = changed
    reached = set(launching)
    stack = list(launching)
    while stack:
        for target in forwards.get(stack.pop(), ()):
            if target not in reached:
                reached.add(target)
                stack.append(target)
    entries = []
    for key, params in found.items():
        function = by_key.get(key)
        if function is None:
            continue
        for param, what in params.items():
            if (what.takes == "command" and key not in reached) or param not in function.params:
                continue
            if key[1].rpartition(".")[2].startswith("test"):
                continue  # a test the test runner calls (its arguments from a parametrize table), not a launcher
            if function.module.name.startswith(DIFFUSION_PACKAGE):
                continue  # the diffusion server's own flags: another parser than ServerArgs's
            receivers = (function.owner,) if key[0] == "method" and function.owner else ()
            entries.append(EntryPoint(key[0], key[1], param, function.params[param], what.takes, what.evidence,
                                      receivers, what.program))
    flags: dict[tuple, dict] = {}  # the functions that take launch flags (the tree's, the seeds) -> parameters
    for entry in (*entries, *seeds):
        if entry.takes == "flags" and entry.kind == "function":
            flags.setdefault((entry.kind, entry.name), {})[entry.argument] = entry.position
    entries += [EntryPoint("class", owner, attribute, None, "flags", evidence, launched_in=method)
                for owner, attribute, evidence, method in attribute_launchers(tree, modules, flags, hierarchy)
                if not owner.startswith(DIFFUSION_PACKAGE)]
    return sorted(entries, key=lambda e: e.sort_key)


class Flow:
    """One function's body in order, tracking what each local name holds; at each call, what
    reaches a launcher, a runner or an entry point found so far."""

    def __init__(self, tree: Tree, function: Function, known: dict, by_key: dict):
        self.tree = tree
        self.function = function
        self.module = function.module
        self.known = known
        self.by_key = by_key
        self.found: dict[str, tuple[str, str, str]] = {}  # param -> (takes, evidence, program)
        self.launching: set[tuple] = set()
        self.forwards: dict[tuple, set[tuple]] = {}
        self.local = {n.id for n in walk_local(function.node) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Store)} | {a.arg for a in _all_args(function.node.args)}

    def run(self) -> None:
        env = {name: Value(frozenset({name}), frozenset({name}), line=frozenset({name}))
               for name in self.function.params}
        self.block(self.function.node.body, env)

    # --- statements ---------------------------------------------------------------------------

    def block(self, body: list[ast.stmt], env: dict[str, Value]) -> dict[str, Value]:
        for statement in body:
            env = self.statement(statement, env)
        return env

    def statement(self, node: ast.stmt, env: dict[str, Value]) -> dict[str, Value]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {**env, node.name: EMPTY}
        if isinstance(node, ast.If):
            self.calls(node.test, env)
            return _join(self.block(node.body, dict(env)), self.block(node.orelse, dict(env)))
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            header = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test
            self.calls(header, env)
            inner = dict(env)
            if isinstance(node, (ast.For, ast.AsyncFor)):
                self.bind(node.target, EMPTY, inner)
            after = _join(env, self.block(node.body, inner))
            return _join(after, self.block(node.orelse, dict(after)))
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            body = self.block(node.body, dict(env))
            handlers = [self.block(h.body, _join(env, body)) for h in node.handlers]
            after = self.block(node.orelse, body)
            for handled in handlers:
                after = _join(after, handled)
            return self.block(node.finalbody, after)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            env = dict(env)
            for item in node.items:
                self.calls(item.context_expr, env)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, EMPTY, env)
            return self.block(node.body, env)
        if type(node).__name__ == "Match":
            self.calls(node.subject, env)
            after = dict(env)
            for case in node.cases:
                after = _join(after, self.block(case.body, dict(env)))
            return after
        self.calls(node, env)
        env = dict(env)
        if isinstance(node, ast.Assign):
            value = self.value(node.value, env)
            for target in node.targets:
                self.bind(target, value, env)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.bind(node.target, self.value(node.value, env), env)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            old = env.get(node.target.id, EMPTY)
            env[node.target.id] = old.plus(self.value(node.value, env)) if isinstance(node.op, ast.Add) else EMPTY
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    env[target.value.id] = EMPTY
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.effect(node.value, env)
        return env

    def bind(self, target: ast.expr, value: Value, env: dict[str, Value]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element.value if isinstance(element, ast.Starred) else element, EMPTY, env)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            env[target.value.id] = EMPTY  # cmd[i] = x: rebuilt

    def effect(self, call: ast.Call, env: dict[str, Value]) -> None:
        """A statement call's change of a local list: cmd.extend(P), P.append(x), P.remove(x),
        ServerArgs.add_cli_args(parser)."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        if func.attr == "add_cli_args" and call.args and isinstance(call.args[0], ast.Name):
            owner = self.tree.dotted(func.value, self.module, self.local)
            if owner is not None and owner.rpartition(".")[2] in ARG_CLASSES:
                name = call.args[0].id
                env[name] = replace(env.get(name, EMPTY), parser=True)
            return
        if not isinstance(func.value, ast.Name) or func.value.id not in env:
            return
        name = func.value.id
        if func.attr in GROWING and call.args:
            env[name] = env[name].plus(self.value(call.args[0], env))
        elif func.attr in SHRINKING:
            env[name] = EMPTY

    # --- expressions --------------------------------------------------------------------------

    def value(self, node: ast.expr, env: dict[str, Value], depth: int = 0) -> Value:
        if depth > 20:
            return EMPTY
        depth += 1
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.local:
                return EMPTY
            constant = self.tree.constant(node.id, self.module)
            return self.value(constant, {}, depth) if constant is not None and constant is not node else EMPTY
        if isinstance(node, ast.Constant):
            return Value(texts=frozenset({node.value})) if isinstance(node.value, str) else EMPTY
        if isinstance(node, (ast.List, ast.Tuple)):
            return self.sequence(node.elts, env, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, env, depth), self.value(node.right, env, depth)
            if left.texts and right.texts and len(left.texts) * len(right.texts) <= MAX_TEXTS:
                return Value(texts=frozenset(a + b for a in left.texts for b in right.texts))
            return left.plus(right)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            values = [self.value(v, env, depth) for v in node.values]
            joined = values[0]
            for other in values[1:]:
                joined = joined.join(other)
            return joined
        if isinstance(node, ast.IfExp):
            return self.value(node.body, env, depth).join(self.value(node.orelse, env, depth))
        if isinstance(node, ast.NamedExpr):
            value = self.value(node.value, env, depth)
            env[node.target.id] = value
            return value
        if isinstance(node, ast.Starred):
            return self.value(node.value, env, depth)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, env, depth)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            whole = node.slice.lower is None and node.slice.upper is None and node.slice.step is None
            value = self.value(node.value, env, depth)
            if not whole and value.split and node.slice.upper is None and node.slice.step is None:
                return Value(split=value.split)  # (the words after a leading VAR=1 the helper reads itself)
            return value if whole else EMPTY
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.FormattedValue) \
                and node.values[0].conversion == -1 and node.values[0].format_spec is None:
            return Value(line=self.value(node.values[0].value, env, depth).line)  # f"{command} --port {port}"
        if isinstance(node, ast.Call):
            return self.copy(node, env, depth)
        return EMPTY

    def sequence(self, elements: list[ast.expr], env: dict[str, Value], depth: int) -> Value:
        """A list or tuple literal: the parameters splatted into it, and the launcher words."""
        params, heads, launcher, words = set(), frozenset(), frozenset(), []
        for index, element in enumerate(elements):
            if isinstance(element, ast.Starred):
                inner = self.value(element.value, env, depth)
                params |= inner.params
                heads = inner.heads if index == 0 else heads
                launcher |= inner.launcher
                words.append(frozenset())
            else:
                words.append(self.value(element, env, depth).texts)
        for first, second in zip(words, words[1:]):
            if "-m" in first and second & LAUNCH_MODULES:
                launcher |= {""}
            if "sglang" in first and "serve" in second:
                launcher |= {"serve"}
        return Value(frozenset(params), heads, launcher)

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, env: dict[str, Value], depth: int) -> Value:
        """``[x for x in P]``, ``[str(x) for x in P]``: P, each element kept; a filter or any
        other element makes a new list."""
        if len(node.generators) != 1:
            return EMPTY
        loop = node.generators[0]
        if loop.ifs or not isinstance(loop.target, ast.Name):
            return EMPTY
        element = node.elt
        if (isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id == "str"
                and len(element.args) == 1 and not element.keywords):
            element = element.args[0]
        if isinstance(element, ast.Name) and element.id == loop.target.id:
            return self.value(loop.iter, env, depth)
        return EMPTY

    def copy(self, call: ast.Call, env: dict[str, Value], depth: int) -> Value:
        """``list(P)``, ``tuple(P)``, ``copy.copy(P)``, ``P.copy()``, ``list(map(str, P))``: P.
        A command string: ``S.replace(...)``/``S.strip()`` is S, ``S.split()``/``shlex.split(S)``
        the list of its words."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in STRING_KEEPING:
            return Value(line=self.value(func.value, env, depth).line)
        if isinstance(func, ast.Attribute) and func.attr == "split" and not call.args and not call.keywords:
            return Value(split=self.value(func.value, env, depth).line)
        if self.tree.dotted(func, self.module, self.local) == "shlex.split" and len(call.args) == 1:
            return Value(split=self.value(call.args[0], env, depth).line)
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not call.args:
            return self.value(func.value, env, depth)
        name = self.tree.dotted(func, self.module, self.local)
        if name not in COPIES or len(call.args) != 1 or call.keywords:
            return EMPTY
        argument = call.args[0]
        if (isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) and argument.func.id == "map"
                and len(argument.args) == 2 and isinstance(argument.args[0], ast.Name)
                and argument.args[0].id == "str"):
            argument = argument.args[1]
        return self.value(argument, env, depth)

    # --- calls --------------------------------------------------------------------------------

    def calls(self, node: ast.AST, env: dict[str, Value]) -> None:
        """Every call in a statement (not in its nested blocks): what reaches a launch."""
        for call in sorted((n for n in walk_local(node) if isinstance(n, ast.Call)),
                           key=lambda n: (n.lineno, n.col_offset)):
            self.call(call, env)

    def call(self, call: ast.Call, env: dict[str, Value]) -> None:
        func = call.func
        line = f"{source_path(self.module)}:{call.lineno}"
        if (isinstance(func, ast.Attribute) and func.attr in PARSE_METHODS and isinstance(func.value, ast.Name)
                and env.get(func.value.id, EMPTY).parser):
            self.take(self.value(call_argument(call, "args", 0) or ast.Constant(None), env).params, "flags", line, "")
            return
        callee = self.tree.callee(call, self.module, self.local)
        if callee is None:
            return
        kind, name = callee
        targets = []
        if kind == "function" and name in RUNNERS:
            targets.append((RUNNERS[name], "command", line, ""))
        elif name.rpartition(".")[2] in RUNNER_NAMES:
            targets.append((RUNNER_NAMES[name.rpartition(".")[2]], "command", line, ""))
        callee_function = self.by_key.get(callee)
        outside = self.tree.seed_positions.get(callee, {}) if callee_function is None else {}
        for param, what in self.known.get(callee, {}).items():
            if callee_function is not None and param in callee_function.params:
                targets.append(((param, callee_function.params[param]), what.takes, what.evidence, what.program))
            elif param in outside:
                targets.append(((param, outside[param]), what.takes, what.evidence or line, what.program))
        for (param, position), takes, evidence, program in targets:
            argument = call_argument(call, param, position)
            if argument is None:
                continue
            value = self.value(argument, env)
            if takes == "shell" or value.split:  # a command string, split into the argv run, or handed on
                self.take(value.split if takes != "shell" else value.line, "shell", evidence)
                continue
            if takes == "flags":
                self.take(value.params, "flags", evidence, program)
            elif value.launcher:
                # a command that may run either: `sglang serve`'s verdicts (its LLM server's where the
                # diffusion server lacks the flag) are the launcher's too
                self.take(value.params, "flags", line, "serve" if "serve" in value.launcher else "")
                self.launching.add(callee)
            else:
                self.take(value.heads, "command", evidence)
                if value.heads:
                    self.forwards.setdefault(self.function.key, set()).add(callee)

    def take(self, params, takes: str, evidence: str, program: str = "") -> None:
        for param in sorted(params):
            if param not in self.found or (self.found[param][0] == "command" and takes == "flags"):
                self.found[param] = (takes, evidence, program)


def _all_args(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _join(first: dict[str, Value], second: dict[str, Value]) -> dict[str, Value]:
    joined = dict(first)
    for name, value in second.items():
        joined[name] = joined[name].join(value) if name in joined else value
    return joined


def launchers_text(entries: list[EntryPoint], version: str, commands: Commands | None = None,
                   keywords: list = (), scripts: bool = False) -> str:
    """launchers.toml; with the tree's launch subcommands (``commands``, when it has any), the
    ``[serve]`` table naming the table of their flags (derive/commands/serve.py writes it); ``keywords``:
    the classes and functions whose ``**`` keywords build ServerArgs (keyword_launchers.py).
    An entry's program is not written: the table stands for every release, and what sglang's own
    helpers run changed (``popen_launch_server`` runs ``sglang serve`` from 0.5.10, the launcher
    before), so their flags are judged as the launcher's in all of them; a project's own helpers
    keep theirs (frontends/project.py)."""
    lines = [
        GENERATED_MARK,
        f"# The functions of sglang {version} that take launch flags in a parameter and hand them to the",
        "# server launcher (takes = \"flags\": a list like [\"--tp-size\", \"2\"]; \"command\": a whole command",
        "# line, launcher included). A method is named alone (no other sglang class has one of its name)",
        "# and is matched on a receiver of its class (receivers). The diffusion server's own entry",
        "# points (sglang.multimodal_gen) are left out: its flags are another parser's.",
        "# position counts from the first parameter after self/cls; none for a keyword-only one.",
    ]
    for entry in sorted(entries, key=lambda e: e.sort_key):
        lines += ["", "[[entry_point]]", f"{entry.kind} = {toml_string(entry.name)}",
                  f"argument = {toml_string(entry.argument)}"]
        if entry.position is not None:
            lines.append(f"position = {entry.position}")
        if entry.receivers:
            lines.append("receivers = [" + ", ".join(toml_string(r) for r in entry.receivers) + "]")
        if entry.launched_in:
            lines += ["fields = true", f"launched_in = {toml_string(entry.launched_in)}"]
        lines += [f"takes = {toml_string(entry.takes)}", f"evidence = {toml_string(entry.evidence)}"]
    if keywords:
        lines += ["", "# The classes and functions whose ** keywords build ServerArgs (takes = \"keywords\"): their",
                  "# keywords are server arguments, but for those they keep for themselves (exclude); a call",
                  "# with one of `unless` may not hand them on. server = \"diffusion\": the diffusion server's",
                  "# ServerArgs (sglang.multimodal_gen), whose keywords serve.toml lists release by release;",
                  "# lends = true: it hands the keywords to another call first, which may take some out."]
    for launcher in keywords:
        lines += ["", "[[entry_point]]", f"{launcher.kind} = {toml_string(launcher.name)}", 'takes = "keywords"']
        if launcher.exclude:
            lines.append("exclude = [" + ", ".join(toml_string(name) for name in launcher.exclude) + "]")
        if launcher.unless:
            lines.append("unless = [" + ", ".join(toml_string(name) for name in launcher.unless) + "]")
        if launcher.server:
            lines.append(f"server = {toml_string(launcher.server)}")
        if launcher.lends:
            lines.append("lends = true")
        lines.append(f"evidence = {toml_string(launcher.evidence)}")
    if commands:
        lines += ["", "# `sglang serve` runs the LLM server or the diffusion server (from the model, or --model-type);",
                  "# the flags each takes, and `sglang generate`'s, release by release:",
                  "[serve]", f"table = {toml_string(COMMANDS_TABLE)}"]
    if scripts:
        lines += ["", "# `python -m sglang.<module>`: the modules each release has, and what each one's parser takes:",
                  "[scripts]", f"table = {toml_string(SCRIPTS_TABLE)}"]
    return "\n".join(lines) + "\n"
