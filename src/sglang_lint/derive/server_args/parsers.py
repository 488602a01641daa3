"""The argparse parsers a module of sglang builds, read from its source: which parsers its
functions make (``argparse.ArgumentParser(...)`` or a subclass of it), the option strings
each is given, and which of them parse a command line. Read with :mod:`ast`, never imported.

A small interpreter walks each function of the module as Python would run it, knowing only
what it can compute: string, number and tuple literals, f-strings, ``.replace()``-like string
methods, module and class constants, comparisons of those; a branch whose test it cannot
compute is walked both ways (a flag either may register counts). Only the calls that take a
parser (or a function that closes over one) are followed into the function they call: a
module function, a static or class method (``PipelineConfig.add_cli_args(parser,
prefix="vae-config")``), a local wrapper (``def add_argument(*flags, **kw):
parser.add_argument(*flags, **kw)``). A method called on a value it cannot know
(``classes[0].add_pipeline_cli_args(parser)``: a class chosen at run time) stands for every
method of that name in the package: each may be the one, so each one's flags count.
``parser.add_argument(...)`` gives the parser its option strings; ``add_argument_group()``
is the parser itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from sglang_lint.derive.source.tree import Module, import_base, read_module

MAX_DEPTH = 24  # calls followed inside each other
PARSE_METHODS = {"parse_known_args": True, "parse_args": False}  # name -> takes unknown arguments
GROUP_METHODS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
HELP = ("-h", "--help")
OPAQUE_METHODS = frozenset({"add_subparsers", "_add_action", "register"})  # beyond the model
STRING_METHODS = frozenset({"strip", "lstrip", "rstrip", "replace", "lower", "upper", "removeprefix", "removesuffix"})


class _Unknown:
    """A value the reader cannot compute."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(eq=False)
class Parser:
    """One parser the code builds: its option strings, where it was made, and how it is
    parsed (None: not in the functions read; True: ``parse_known_args``, the rest handed on;
    False: ``parse_args``, a word it does not know is argparse's error)."""

    where: str
    flags: set = field(default_factory=set)
    known_args: bool | None = None
    parsed_in: str = ""  # the function that parses it
    remaining: str = ""  # the name that function binds the unknown words to
    arguments: list = field(default_factory=list)  # the option strings of each add_argument call
    includes: set = field(default_factory=set)  # the tags of the fillers it was handed to (ServerArgs')
    # every option string it may get was read: none computed out of reach, no call it was handed
    # to left unfollowed, no subparsers or parent parsers (argparse options the reader does not model)
    complete: bool = True
    abbrev: bool = True  # allow_abbrev: a unique prefix of a long flag is that flag


@dataclass(frozen=True)
class External:
    """A name outside the tree (``argparse.ArgumentParser``, ``os.path``)."""

    name: str


@dataclass(frozen=True)
class Function:
    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    closure: dict | None = None  # the enclosing function's names, for a nested def
    bound: object = None  # the class a classmethod is called on


@dataclass(frozen=True)
class Class:
    module: Module
    node: ast.ClassDef


@dataclass(frozen=True)
class ModuleRef:
    module: Module


@dataclass(frozen=True)
class BoundMethod:
    owner: object  # a Parser or a string
    name: str


class _Stop(Exception):
    """A ``return`` or ``raise`` ends the path."""

    def __init__(self, value=UNKNOWN, returned: bool = False):
        self.value, self.returned = value, returned


@dataclass
class Reading:
    parsers: list = field(default_factory=list)
    unresolved: list = field(default_factory=list)  # "path:line" of an option string it could not compute


class ModuleSet:
    """The modules a reader may read: those given (already parsed), or, from a tree, each one
    parsed when first needed (a release's own parsers touch a few dozen of its modules)."""

    def __init__(self, modules: list[Module] = (), root: Path | None = None, packages: tuple = ()):
        self.parsed = {m.name: m for m in modules}
        self.root, self.packages = root, packages
        self.missing: set = set()

    def get(self, name: str) -> Module | None:
        if name in self.parsed or self.root is None or name in self.missing:
            return self.parsed.get(name)
        base = self.root.joinpath(*name.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file() and name.startswith(self.packages):
                module = read_module(name, path, path.read_text(encoding="utf-8", errors="replace"))
                if module is not None:
                    self.parsed[name] = module
                    return module
        self.missing.add(name)
        return None

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def under(self, package: str) -> list[Module]:
        """Every module of the package (``sglang.multimodal_gen.``) that defines a class."""
        if self.root is None:
            return [m for m in self.parsed.values() if m.name.startswith(package) and "class " in m.source]
        found = []
        for path in sorted(self.root.joinpath(*package.rstrip(".").split(".")).rglob("*.py")):
            if b"class " in path.read_bytes():
                parts = list(path.relative_to(self.root).with_suffix("").parts)
                module = self.get(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
                found += [module] if module is not None else []
        return found

    def defining(self, method: str) -> list[Module]:
        """The modules whose text defines a function of this name."""
        if self.root is None:
            return [m for m in self.parsed.values() if f"def {method}(" in m.source]
        found = []
        for package in self.packages:
            for path in sorted(self.root.joinpath(*package.rstrip(".").split(".")).rglob("*.py")):
                if f"def {method}(".encode() in path.read_bytes():
                    parts = list(path.relative_to(self.root).with_suffix("").parts)
                    module = self.get(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
                    found += [module] if module is not None else []
        return found


class ParserReader:
    """Reads the parsers that functions of a tree's modules build (see the module docstring)."""

    def __init__(self, modules: ModuleSet, fillers: dict | None = None, script: bool = False):
        self.modules = modules
        self.by_method: dict[str, list[Function]] = {}
        self.reading = Reading()
        self.stack: list = []
        # (module, Class.function) -> tag: a function that fills a parser and is not followed
        # (ServerArgs.add_cli_args: its flags are the server-argument table's); the parser keeps the tag
        self.fillers = fillers or {}
        # a script's main block: a parse of sys.argv (``parse_args()``) is the command's, and a call
        # from it to a function that builds a parser is followed though it is handed none
        self.script = script

    def methods(self, name: str) -> list[Function]:
        """Every method of this name in the modules (a call on an object chosen at run time)."""
        if name not in self.by_method:
            self.by_method[name] = [
                Function(module, item) for module in self.modules.defining(name) for cls in module.classes
                for item in cls.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name
            ]
        return self.by_method[name]

    def read_module(self, name: str) -> Reading:
        """Every function of the module run once, its parameters unknown: the parsers they
        build and parse there with the words they are given (``parser.parse_known_args(argv)``;
        a parser built only to print its help, or a pre-parse of ``sys.argv`` in a function
        they call, is not the command's)."""
        self.reading = Reading()
        module = self.modules.get(name)
        for node in module.tree.body if module is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.call(Function(module, node), [], {}, entry=True)
        return self.reading

    def read_main(self, module: Module, body: list) -> Reading:
        """The parsers a script's main block (``body``, or a ``__main__`` module's whole body)
        builds and parses, run as one function of the module (see ``script``)."""
        self.reading = Reading()
        node = ast.FunctionDef(name="__main__", args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                               body=body, decorator_list=[], returns=None, type_params=[], lineno=1)
        self.call(Function(module, node), [], {}, entry=True)
        return self.reading

    # --- calls --------------------------------------------------------------------------------

    def call(self, function: Function, args: list, keywords: dict, entry: bool = False):
        node = function.node
        if len(self.stack) >= MAX_DEPTH or any(node is active for active in self.stack):
            _unfollowed(args, keywords)
            return UNKNOWN
        env = dict(function.closure or {})
        env.update(self._bind(function, args, keywords))
        if isinstance(node, ast.Lambda):
            return self.value(node.body, function.module, env)
        self.stack.append(node)
        frame = _Frame(function.module, node.name, entry)
        try:
            self.block(node.body, env, frame)
        except _Stop as stop:
            if stop.returned:
                frame.returns.append(stop.value)
        finally:
            self.stack.pop()
        parsers = [v for v in frame.returns if isinstance(v, Parser)]
        if parsers:
            return parsers[0]  # ``return parser`` (the parser handed in, filled)
        values = {id(v): v for v in frame.returns}
        return next(iter(values.values())) if len(values) == 1 else (None if not frame.returns else UNKNOWN)

    def _bind(self, function: Function, args: list, keywords: dict) -> dict:
        spec = function.node.args
        positional = [a.arg for a in spec.posonlyargs + spec.args]
        bound = {}
        if function.bound is not None and positional:
            bound[positional[0]] = function.bound
            positional = positional[1:]
        defaults = dict(zip(reversed(positional), reversed(spec.defaults)))
        defaults.update({a.arg: d for a, d in zip(spec.kwonlyargs, spec.kw_defaults) if d is not None})
        for name, value in zip(positional, args):
            bound[name] = value
        if spec.vararg is not None:
            bound[spec.vararg.arg] = tuple(args[len(positional):])
        for name in positional + [a.arg for a in spec.kwonlyargs]:
            if name in keywords:
                bound[name] = keywords[name]
            elif name not in bound:
                default = defaults.get(name)
                bound[name] = self.value(default, function.module, {}) if default is not None else UNKNOWN
        if spec.kwarg is not None:
            bound[spec.kwarg.arg] = UNKNOWN
        return bound

    def invoke(self, callee, args: list, keywords: dict, node: ast.Call, module: Module, frame: "_Frame"):
        if isinstance(callee, BoundMethod):
            return self._method(callee, args, node, module, frame)
        if isinstance(callee, External) and callee.name.rpartition(".")[2] == "ArgumentParser" or (
                isinstance(callee, Class) and self._is_parser_class(callee)):
            # argparse's own -h/--help, unless add_help=False
            made = Parser(_where(module, node), set() if keywords.get("add_help", True) is False else set(HELP))
            made.abbrev = keywords.get("allow_abbrev", True) is not False
            made.complete = isinstance(callee, External) and all(
                keywords.get(k, v) == v for k, v in (("allow_abbrev", made.abbrev), ("parents", None),
                                                     ("prefix_chars", "-"), ("fromfile_prefix_chars", None),
                                                     ("conflict_handler", "error")))
            return made
        if isinstance(callee, (External, Class)):
            _unfollowed(args, keywords)
            return UNKNOWN
        if isinstance(callee, Function):
            tag = self.fillers.get(_qualified(callee))
            if tag is not None:
                for value in [*args, *keywords.values()]:
                    if isinstance(value, Parser):
                        value.includes.add(tag)
                return UNKNOWN
            if _takes_parser(args, keywords) or _takes_parser(list((callee.closure or {}).values()), {}):
                return self.call(callee, args, keywords)
            if self.script and frame.entry and _builds_parser(callee):
                return self.call(callee, args, keywords, entry=True)
            return UNKNOWN
        if callee is UNKNOWN and isinstance(node.func, ast.Attribute) and _takes_parser(args, keywords):
            # a method of an object chosen at run time: each method of that name may be the one
            if not self.methods(node.func.attr):
                _unfollowed(args, keywords)
            for candidate in self.methods(node.func.attr):
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in candidate.node.decorator_list)
                self.call(candidate if static else Function(candidate.module, candidate.node, bound=UNKNOWN),
                          args, keywords)  # (a class or instance method: its first parameter is not known)
            return UNKNOWN
        _unfollowed(args, keywords)
        return UNKNOWN

    def _method(self, callee: BoundMethod, args: list, node: ast.Call, module: Module, frame: "_Frame"):
        owner, name = callee.owner, callee.name
        if isinstance(owner, str):
            if name in STRING_METHODS and all(isinstance(a, str) for a in args):
                return getattr(owner, name)(*args)
            if name in ("startswith", "endswith") and args and isinstance(args[0], (str, tuple)):
                return getattr(owner, name)(args[0]) if all(isinstance(a, str) for a in _flat(args[0])) else UNKNOWN
            return UNKNOWN
        if name == "add_argument":
            for argument in args:
                if isinstance(argument, str):
                    if argument.startswith("-"):
                        owner.flags.add(argument)
                else:
                    self.reading.unresolved.append(_where(module, node))
                    owner.complete = False
            strings = tuple(a for a in args if isinstance(a, str) and a.startswith("-"))
            if self.script and _negatable(node, module, self):  # --x and --no-x (BooleanOptionalAction)
                strings += tuple("--no-" + a[2:] for a in strings if a.startswith("--"))
                owner.flags.update(strings)
            owner.arguments.append(strings)
            return UNKNOWN
        if name in GROUP_METHODS:
            return owner
        if name in OPAQUE_METHODS:
            owner.complete = False
            return UNKNOWN
        if name in PARSE_METHODS and frame.entry and (node.args or (self.script and not node.keywords)):
            owner.known_args = PARSE_METHODS[name] or bool(owner.known_args)
            owner.parsed_in = f"{module.name}.{frame.function}"
            if owner not in self.reading.parsers:
                self.reading.parsers.append(owner)
            return _Parsed(owner) if PARSE_METHODS[name] else UNKNOWN
        return UNKNOWN

    def _is_parser_class(self, cls: Class, depth: int = 0) -> bool:
        for base in cls.node.bases:
            found = self.value(base, cls.module, {})
            if isinstance(found, External) and found.name.rpartition(".")[2] == "ArgumentParser":
                return True
            if isinstance(found, Class) and depth < 8 and self._is_parser_class(found, depth + 1):
                return True
        return False

    # --- statements ---------------------------------------------------------------------------

    def block(self, body: list, env: dict, frame: "_Frame") -> None:
        for statement in body:
            self.statement(statement, env, frame)

    def statement(self, node: ast.stmt, env: dict, frame: "_Frame") -> None:
        module = frame.module
        if isinstance(node, ast.Expr):
            self.value(node.value, module, env, frame)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            value = self.value(node.value, module, env, frame) if node.value is not None else UNKNOWN
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                self._assign(target, value, env, frame)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                env[node.target.id] = UNKNOWN
        elif isinstance(node, ast.If):
            test = _truth(self.value(node.test, module, env, frame))
            if test is True or test is False:
                self.block(node.body if test else node.orelse, env, frame)
            else:
                self._both(node.body, node.orelse, env, frame)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            items = self.value(node.iter, module, env, frame)
            for item in items if isinstance(items, tuple) else (UNKNOWN,):
                self._assign(node.target, item, env, frame)
                self._guarded(node.body, env, frame)
        elif isinstance(node, ast.While):
            self._guarded(node.body, env, frame)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self.block(node.body, env, frame)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._guarded(node.body + node.orelse, env, frame)
            self.block(node.finalbody, env, frame)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            env[node.name] = Function(module, node, env)
        elif isinstance(node, ast.ClassDef):
            env[node.name] = UNKNOWN
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node, module, env)
        elif isinstance(node, ast.Return):
            raise _Stop(self.value(node.value, module, env, frame) if node.value is not None else None, True)
        elif isinstance(node, ast.Raise):
            raise _Stop()

    def _guarded(self, body: list, env: dict, frame: "_Frame") -> None:
        """A block that may end early (a loop's body, a ``try``): what it does up to a
        ``return`` or ``raise`` counts, and the code after it still runs."""
        try:
            self.block(body, env, frame)
        except _Stop as stop:
            if stop.returned:
                frame.returns.append(stop.value)

    def _both(self, first: list, second: list, env: dict, frame: "_Frame") -> None:
        """An ``if`` whose test is not known: both branches, each from the names before it;
        after it, a name both leave alike keeps its value, a parser stays a parser."""
        ends = []
        for body in (first, second):
            branch = dict(env)
            try:
                self.block(body, branch, frame)
                ends.append(branch)
            except _Stop as stop:
                if stop.returned:
                    frame.returns.append(stop.value)
        if not ends:
            raise _Stop()
        for name in set().union(*ends):
            values = [end.get(name, UNKNOWN) for end in ends]
            kept = [v for v in values if isinstance(v, (Parser, _Parsed, Function))]
            env[name] = values[0] if all(v is values[0] for v in values) else (kept[0] if kept else UNKNOWN)

    def _assign(self, target: ast.expr, value, env: dict, frame: "_Frame") -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
            if isinstance(value, _Parsed):
                env[target.id] = UNKNOWN
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, _Parsed) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name):
                value.parser.remaining = target.elts[1].id  # (namespace, remaining) = parse_known_args(...)
                values = (UNKNOWN, UNKNOWN)
            elif isinstance(value, tuple) and len(value) == len(target.elts):
                values = value
            else:
                values = (UNKNOWN,) * len(target.elts)
            for element, item in zip(target.elts, values):
                self._assign(element, item, env, frame)

    def _import(self, node: ast.Import | ast.ImportFrom, module: Module, env: dict) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                env[name] = self.qualified(alias.name if alias.asname else name)
            return
        base = import_base(node, module.name, module.path.name == "__init__.py")
        for alias in node.names:
            if base is not None:
                env[alias.asname or alias.name] = self.qualified(f"{base}.{alias.name}")

    # --- names and values ---------------------------------------------------------------------

    def qualified(self, name: str, depth: int = 0):
        """What a dotted name of the tree is: a module, or a name defined in one."""
        module = self.modules.get(name)
        if module is not None:
            return ModuleRef(module)
        owner, _, short = name.rpartition(".")
        found = self.modules.get(owner) if depth < 8 else None
        return self.global_name(found, short, depth + 1) if found is not None else External(name)

    def global_name(self, module: Module, name: str, depth: int = 0):
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return Function(module, node)
            if isinstance(node, ast.ClassDef) and node.name == name:
                return Class(module, node)
        if name in module.imports and depth < 8:
            return self.qualified(module.imports[name], depth + 1)
        if name in module.constants and depth < 8:
            return self.value(module.constants[name], module, {})
        submodule = self.modules.get(f"{module.name}.{name}")
        if submodule is not None:
            return ModuleRef(submodule)
        return External(name) if name not in module.definitions else UNKNOWN

    def attribute(self, owner, name: str):
        if isinstance(owner, ModuleRef):
            return self.global_name(owner.module, name)
        if isinstance(owner, External):
            return External(f"{owner.name}.{name}")
        if isinstance(owner, Class):
            return self._class_attribute(owner, name, 0)
        if isinstance(owner, (Parser, str)):
            return BoundMethod(owner, name)
        return UNKNOWN

    def _class_attribute(self, cls: Class, name: str, depth: int):
        for item in cls.node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                decorators = {d.id for d in item.decorator_list if isinstance(d, ast.Name)}
                return Function(cls.module, item, bound=cls if "classmethod" in decorators else None)
            if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in item.targets):
                return self.value(item.value, cls.module, {})
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == name:
                return self.value(item.value, cls.module, {}) if item.value is not None else UNKNOWN
        for base in cls.node.bases:
            found = self.value(base, cls.module, {})
            if isinstance(found, Class) and depth < 8:
                value = self._class_attribute(found, name, depth + 1)
                if value is not UNKNOWN:
                    return value
        return UNKNOWN

    def value(self, node: ast.expr, module: Module, env: dict, frame: "_Frame | None" = None):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id] if node.id in env else self.global_name(module, node.id)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node, module, env, frame)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.value(element.value, module, env, frame)
                    if not isinstance(inner, tuple):
                        return UNKNOWN
                    items.extend(inner)
                else:
                    items.append(self.value(element, module, env, frame))
            return tuple(items)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.value(node.value, module, env, frame), node.attr)
        if isinstance(node, ast.Call):
            return self._call_node(node, module, env, frame)
        if isinstance(node, ast.IfExp):
            test = _truth(self.value(node.test, module, env, frame))
            if test is True or test is False:
                return self.value(node.body if test else node.orelse, module, env, frame)
            return UNKNOWN
        if isinstance(node, ast.Compare):
            return _compare(node, [self.value(n, module, env, frame) for n in [node.left, *node.comparators]])
        if isinstance(node, ast.BoolOp):
            return _bool_op(node, [self.value(v, module, env, frame) for v in node.values])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            test = _truth(self.value(node.operand, module, env, frame))
            return (not test) if isinstance(test, bool) else UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, module, env, frame), self.value(node.right, module, env, frame)
            same = type(left) is type(right) and isinstance(left, (str, tuple))
            return left + right if same else UNKNOWN
        if isinstance(node, ast.Subscript):
            owner = self.value(node.value, module, env, frame)
            index = self.value(node.slice, module, env, frame)
            if isinstance(owner, tuple) and isinstance(index, int) and -len(owner) <= index < len(owner):
                return owner[index]
            return UNKNOWN
        if isinstance(node, ast.Lambda):
            return Function(module, node, env)
        if isinstance(node, ast.NamedExpr):
            env[node.target.id] = self.value(node.value, module, env, frame)
            return env[node.target.id]
        return UNKNOWN

    def _fstring(self, node: ast.JoinedStr, module: Module, env: dict, frame):
        text = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += part.value
                continue
            value = self.value(part.value, module, env, frame)
            if part.format_spec is not None or not isinstance(value, (str, int)) or isinstance(value, bool):
                return UNKNOWN
            text += str(value)
        return text

    def _call_node(self, node: ast.Call, module: Module, env: dict, frame):
        callee = self.value(node.func, module, env, frame)
        args = []
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                inner = self.value(argument.value, module, env, frame)
                args.extend(inner if isinstance(inner, tuple) else (UNKNOWN,))
            else:
                args.append(self.value(argument, module, env, frame))
        keywords = {k.arg: self.value(k.value, module, env, frame) for k in node.keywords if k.arg}
        if isinstance(callee, External) and callee.name in ("list", "tuple") and len(args) == 1:
            return args[0] if isinstance(args[0], tuple) else UNKNOWN
        return self.invoke(callee, args, keywords, node, module, frame or _Frame(module, "", False))


@dataclass
class _Frame:
    module: Module
    function: str
    entry: bool  # a function of the module read (its parse calls count)
    returns: list = field(default_factory=list)


@dataclass(frozen=True)
class _Parsed:
    """What ``parser.parse_known_args(argv)`` returns: (the namespace, the words it left)."""

    parser: Parser


def _where(module: Module, node: ast.AST) -> str:
    return f"{module.name.replace('.', '/')}.py:{getattr(node, 'lineno', 0)}"


def _flat(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _negatable(node: ast.Call, module: Module, reader: "ParserReader") -> bool:
    action = next((k.value for k in node.keywords if k.arg == "action"), None)
    found = reader.value(action, module, {}) if action is not None else None
    return isinstance(found, External) and found.name.rpartition(".")[2] == "BooleanOptionalAction"


def _unfollowed(args: list, keywords: dict) -> None:
    """A parser handed to code the reader does not follow: it may get option strings not read."""
    for value in [*args, *keywords.values()]:
        if isinstance(value, Parser):
            value.complete = False


def _qualified(function: Function) -> tuple[str, str]:
    """(module, ``Class.function`` or ``function``) of a function of the tree."""
    for cls in function.module.classes:
        if any(item is function.node for item in cls.body):
            return function.module.name, f"{cls.name}.{function.node.name}"
    return function.module.name, getattr(function.node, "name", "")


def _builds_parser(function: Function) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "ArgumentParser" or isinstance(n, ast.Name)
               and n.id == "ArgumentParser" for n in ast.walk(function.node))


def _takes_parser(args: list, keywords: dict) -> bool:
    return any(isinstance(v, Parser) for v in [*args, *keywords.values()])


def _truth(value):
    if value is None or isinstance(value, (str, bool, int, float, tuple)):
        return bool(value)
    if isinstance(value, (Parser, Function, Class)):
        return True
    return UNKNOWN


def _compare(node: ast.Compare, values: list):
    if any(v is UNKNOWN or not (v is None or isinstance(v, (str, bool, int, float, tuple))) for v in values):
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and values[1] is None \
                and values[0] is not UNKNOWN and not isinstance(values[0], External):
            return isinstance(node.ops[0], ast.IsNot)  # a function, a parser: never None
        return UNKNOWN
    operations = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Is: lambda a, b: a is b,
                  ast.IsNot: lambda a, b: a is not b, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
    result = True
    for operator, left, right in zip(node.ops, values, values[1:]):
        compute = operations.get(type(operator))
        if compute is None:
            return UNKNOWN
        try:
            result = result and compute(left, right)
        except TypeError:
            return UNKNOWN
    return result


def _bool_op(node: ast.BoolOp, values: list):
    """``a and b`` / ``a or b`` as Python computes it: the first value that decides (false for
    ``and``, true for ``or``), else the last; unknown from the first value it cannot test."""
    deciding = not isinstance(node.op, ast.And)
    for value in values:
        truth = _truth(value)
        if truth is UNKNOWN:
            return UNKNOWN
        if truth is deciding:
            return value
    return values[-1]
