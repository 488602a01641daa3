"""The symbolic run of one function down to one raise (:class:`PathRun`), which
:mod:`.paths` writes as the path's ``fails-when`` expression and the start-up run
(derive/startup/run.py) and :mod:`.state` build on. It runs the function's statements from
the top down to the raise, symbolically:

* a local name stands for the expression it was computed from (``h`` is ``x.shape[3]``);
  a name assigned in both branches of an ``if`` stands for ``a if test else b``;
* the path collects the tests that lead to the raise (``if``/``elif``/``else`` branches,
  an ``assert``'s negation), and the negation of every earlier test whose branch returns;
* an earlier ``raise`` (or failing ``assert``) is left out, as is the test of an ``if`` a branch of which
  only raises (the path goes on through the other): the call fails there instead, so "this call fails" stays true;
* a call of a small function of the same module that only returns (``if ...: return
  False`` ... ``return expr``) is read as that expression, with its arguments put in.

Anything else (a loop or ``try`` around the raise, a value computed by a call the evaluator
does not know, a global name that is not a literal constant) stops the run with
:class:`Unwritable` and its reason.
"""

from __future__ import annotations

import ast
import copy

from sglang_lint.checks.value_tests import KNOWN_TYPES
from sglang_lint.checks.fails_when.language import AGGREGATES, BUILTINS, PATH_BUILTINS, TENSOR_METHODS, VALUE_METHODS
from sglang_lint.derive.reading.constants import folded_constant, imported_constant, is_literal
from sglang_lint.derive.reading.expressions import held_by_self, immutable, negate, rooted_at_torch
from sglang_lint.derive.source.tree import MUTATING_METHODS, Module, defined_at, defining_module, walk_all, walk_local

# Methods whose call the evaluator knows (checks/fails_when/language.py): a receiver's method outside this set
# is a value the derivation does not follow.
KNOWN_METHODS = TENSOR_METHODS | VALUE_METHODS
# Calls a statement makes that change nothing a guard reads.
HARMLESS_CALLS = ("logger.", "logging.", "warnings.warn", "print", "log.", "_logger.")
MAX_INLINE = 3  # helper calls inlined inside one another


class Unwritable(Exception):
    """The path cannot be written as an expression; the message says why."""


_GONE = None  # env value of a name whose value the derivation does not follow


class PathRun:
    """The symbolic run of one function down to one raise."""

    builtins = PATH_BUILTINS  # the builtins a call of which is kept in the path

    def __init__(self, module: Module, function: ast.FunctionDef, parameters: list[str], self_name: str | None):
        self.module = module
        self.function = function
        self.parameters = set(parameters)
        self.self_name = self_name
        self.env: dict[str, ast.expr | None] = {}
        self.path: list[ast.expr] = []
        self.helpers = {n.name: n for n in module.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.classes = None  # records.PlainClasses: sglang classes a path may test isinstance against
        self.depth = 0
        self.imported_here: dict[str, str] = {}  # names the function imports itself: their qualified names

    # --- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr) -> ast.expr:
        """``node`` with every local name replaced by what it stands for; Unwritable when a part
        is not followed."""
        if isinstance(node, ast.Constant):
            return node
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.self_name:
                key = f"self.{node.attr}"
                if self.env.get(key) is None:
                    raise Unwritable(f"reads self.{node.attr}")
                return self.env[key]
            return ast.Attribute(self.expr(node.value), node.attr, ast.Load())
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.expr(v) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.expr(node.operand))
        if isinstance(node, ast.BinOp):
            return ast.BinOp(self.expr(node.left), node.op, self.expr(node.right))
        if isinstance(node, ast.Compare):
            return ast.Compare(self.expr(node.left), node.ops, [self.expr(c) for c in node.comparators])
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                index = ast.Slice(*(self.expr(p) if p is not None else None
                                    for p in (index.lower, index.upper, index.step)))
            else:
                index = self.expr(index)
            return ast.Subscript(self.expr(node.value), index, ast.Load())
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            if isinstance(node, ast.Set) and any(isinstance(e, ast.Starred) for e in node.elts):
                raise Unwritable("a starred display")
            items = [ast.Starred(self.expr(e.value), ast.Load()) if isinstance(e, ast.Starred) else self.expr(e)
                     for e in node.elts]  # ``(*prefix, last)``: checks/fails_when/language.py spreads a known sequence
            return type(node)(items, ast.Load()) if not isinstance(node, ast.Set) else ast.Set(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unwritable("a ** display")
            return ast.Dict([self.expr(k) for k in node.keys], [self.expr(v) for v in node.values])
        if isinstance(node, (ast.ListComp, ast.SetComp)):
            # ``[float(x) for x in rule[1:]]``: ``list(float(x) for x in rule[1:])``, which the
            # evaluator makes where every item is known
            return self._unrolled("list" if isinstance(node, ast.ListComp) else "set", node)
        raise Unwritable(f"a {type(node).__name__} expression")

    def _name(self, name: str) -> ast.expr:
        if name in self.env:
            value = self.env[name]
            if value is None:
                raise Unwritable(f"{name} is computed by something not followed")
            return value
        if name in self.parameters:
            return ast.Name(name, ast.Load())
        if name in ("None", "True", "False"):
            return ast.Constant({"None": None, "True": True, "False": False}[name])
        if name in self.imported_here:
            constant = imported_constant(self.imported_here[name], self._modules())
            if constant is None:
                raise Unwritable(f"reads the global name {name}")
            return constant
        constant = folded_constant(ast.Name(name, ast.Load()), self.module, self._modules())
        if constant is not None:
            return constant
        if name in self.builtins and name not in self.module.definitions and name not in self.module.imports:
            return ast.Name(name, ast.Load())
        qualified = self.module.imports.get(name) or (name if name in _plain_imports(self.module) else None)
        if qualified in ("torch", "math"):
            return ast.Name(qualified, ast.Load())
        if qualified in KNOWN_TYPES and "." in qualified:  # ``Sequence`` from collections.abc, for isinstance
            return ast.parse(qualified, mode="eval").body
        plain = self.classes.qualified(name, self.module) if self.classes is not None else None
        # an sglang class, for isinstance (checks/fails_when/language.py: no literal is an instance of one)
        if plain is not None:
            return ast.parse(plain, mode="eval").body
        enum = self.classes.enum(name, self.module) if self.classes is not None else None
        if enum is not None:  # an sglang enum, for its members (records.EnumClass)
            return ast.parse(enum.qualified, mode="eval").body
        raise Unwritable(f"reads the global name {name}")

    def _modules(self) -> dict[str, Module]:
        return self.classes.modules if self.classes is not None else {}

    def _call(self, node: ast.Call) -> ast.expr:
        func = node.func
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Unwritable("a call with * or ** arguments")
        if isinstance(func, ast.Name) and func.id in self.helpers and func.id not in self.parameters \
                and func.id not in self.env and func.id not in self.imported_here:
            return self._inline(self.helpers[func.id], node)
        imported = self._imported_helper(func)
        if imported is not None:
            return self._inline(imported[0], node, imported[1])
        if isinstance(func, ast.Name) and func.id in ("any", "all", *AGGREGATES) and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp)) \
                and not {func.id} & (set(self.env) | self.parameters | self.module.definitions):
            return self._unrolled(func.id, node.args[0])
        args = [self.expr(a) for a in node.args]
        keywords = [ast.keyword(k.arg, self.expr(k.value)) for k in node.keywords]
        if isinstance(func, ast.Name):
            callee = self._name(func.id)
            if isinstance(callee, ast.Name) and callee.id in self.builtins:
                return ast.Call(callee, args, keywords)
            raise Unwritable(f"calls {func.id}")
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value)
            if isinstance(receiver, ast.Name) and receiver.id == "math" and func.attr == "prod":
                return ast.Call(ast.Attribute(receiver, "prod", ast.Load()), args, keywords)
            if func.attr in KNOWN_METHODS and not (isinstance(receiver, ast.Name) and receiver.id in ("torch", "math")):
                return ast.Call(ast.Attribute(receiver, func.attr, ast.Load()), args, keywords)
            if not args and not keywords and rooted_at_torch(receiver):
                # a query of torch's state (``torch.is_grad_enabled()``): unknown to the evaluator, and
                # given nothing it could change; the path is certain only where the rest decides it
                return ast.Call(ast.Attribute(receiver, func.attr, ast.Load()), [], [])
        raise Unwritable(f"calls {ast.unparse(func)}")

    def _unrolled(self, how: str, comprehension: ast.GeneratorExp | ast.ListComp) -> ast.expr:
        """``any(t.ndim != 2 for t in (a, b))`` over a display: ``a.ndim != 2 or b.ndim != 2``."""
        if len(comprehension.generators) != 1:
            raise Unwritable("a comprehension of several loops")
        loop = comprehension.generators[0]
        items = self.expr(loop.iter)
        if not isinstance(loop.target, ast.Name) or loop.is_async:
            raise Unwritable("a comprehension whose loop variable is not a plain name")
        if not isinstance(items, (ast.Tuple, ast.List)) or how in AGGREGATES:
            return self._generator(how, comprehension, items)
        name = loop.target.id
        saved = self.env.get(name, ...)
        terms = []
        try:
            for item in items.elts:
                self.env[name] = item
                term = self.expr(comprehension.elt)
                if loop.ifs:  # any: some item passes the filter and the test; all: each that passes
                    tests = [self.expr(test) for test in loop.ifs]
                    term = ast.BoolOp(ast.And(), [*tests, term]) if how == "any" else ast.BoolOp(
                        ast.Or(), [negate(tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)), term])
                terms.append(term)
        finally:
            if saved is ...:
                self.env.pop(name, None)
            else:
                self.env[name] = saved
        if not terms:
            return ast.Constant(how == "all")
        # ``bool()`` keeps any/all's True/False where a term's own value is not a bool.
        joined = terms[0] if len(terms) == 1 else ast.BoolOp(ast.Or() if how == "any" else ast.And(), terms)
        return ast.Call(ast.Name("bool", ast.Load()), [joined], [])

    def _imported_helper(self, func: ast.expr):
        """(function, its module) of a function of another sglang module that the module
        imports by name (``from sglang.x import is_y``), defined once there."""
        if not isinstance(func, ast.Name) or self.classes is None or func.id in self.parameters \
                or func.id in self.env:
            return None
        if func.id in self.imported_here:
            defined = defined_at(self.imported_here[func.id], self.classes.modules)
        elif func.id in self.module.definitions:
            return None
        else:
            defined = defining_module(func.id, self.module, self.classes.modules)
        if defined is None:
            return None
        owner, name = defined
        found = [n for n in owner.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and n.name == name]
        if len(found) != 1 or not isinstance(found[0], ast.FunctionDef) or name in owner.constants:
            return None
        return found[0], owner

    def _generator(self, how: str, comprehension: ast.GeneratorExp | ast.ListComp, items: ast.expr) -> ast.expr:
        """``any(n % page != 0 for n in sizes)`` over a parameter (or what it was computed from):
        kept as a generator, which checks/fails_when/language.py evaluates over the list the call passes."""
        loop = comprehension.generators[0]
        name = loop.target.id
        if name in self.parameters or name in BUILTINS:
            raise Unwritable("a comprehension whose variable hides a parameter")
        saved = self.env.get(name, ...)
        self.env[name] = ast.Name(name, ast.Load())
        try:
            element = self.expr(comprehension.elt)
            tests = [self.expr(test) for test in loop.ifs]
        finally:
            if saved is ...:
                self.env.pop(name, None)
            else:
                self.env[name] = saved
        generator = ast.GeneratorExp(element, [ast.comprehension(ast.Name(name, ast.Store()), items, tests, 0)])
        return ast.Call(ast.Name(how, ast.Load()), [generator], [])

    def _inline(self, helper: ast.FunctionDef, call: ast.Call, module: Module | None = None) -> ast.expr:
        """A helper that only returns (``if t: return a`` ... ``return b``): ``a if t else ...``."""
        if self.depth >= MAX_INLINE or helper.decorator_list or isinstance(helper, ast.AsyncFunctionDef):
            raise Unwritable(f"calls {helper.name}")
        args = helper.args
        if args.vararg or args.kwarg or args.posonlyargs:
            raise Unwritable(f"calls {helper.name} (its * parameters)")
        names = [a.arg for a in args.args]
        bound: dict[str, ast.expr] = {}
        for name, value in zip(names, call.args):
            bound[name] = self.expr(value)
        if len(call.args) > len(names):
            raise Unwritable(f"calls {helper.name} with too many arguments")
        kwonly = [a.arg for a in args.kwonlyargs]
        for keyword in call.keywords:
            if keyword.arg not in names + kwonly or keyword.arg in bound:
                raise Unwritable(f"calls {helper.name} with an unknown keyword")
            bound[keyword.arg] = self.expr(keyword.value)
        defaults = dict(zip(names[len(names) - len(args.defaults):], args.defaults))
        defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
        for name in names + kwonly:
            if name not in bound:
                if name not in defaults or not is_literal(defaults[name]):
                    raise Unwritable(f"calls {helper.name} leaving out {name}")
                bound[name] = copy.deepcopy(defaults[name])
        inner = PathRun(module or self.module, helper, [], None)
        inner.classes = self.classes
        inner.env = dict(bound)
        inner.depth = self.depth + 1
        return inner._returned(function_body(helper))

    def _returned(self, statements: list[ast.stmt]) -> ast.expr:
        """The value a body that only assigns, tests and returns gives back. Its own checks
        (``if t: raise``, ``assert``) are passed over: a call they stop fails all the same."""
        cases: list[tuple[ast.expr, ast.expr]] = []
        for statement in statements:
            if isinstance(statement, ast.Assert) or isinstance(statement, ast.If) and not statement.orelse \
                    and _raises_only(statement.body):
                continue
            if isinstance(statement, ast.Return):
                value = self.expr(statement.value) if statement.value is not None else ast.Constant(None)
                for test, returned in reversed(cases):
                    value = ast.IfExp(test, returned, value)
                return value
            if isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1 \
                    and isinstance(statement.body[0], ast.Return) and statement.body[0].value is not None:
                cases.append((self.expr(statement.test), self.expr(statement.body[0].value)))
                continue
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                self._assign(statement)
                continue
            raise Unwritable(f"{self.function.name} does more than test and return")
        raise Unwritable(f"{self.function.name} may return nothing")

    # --- statements ---------------------------------------------------------------------
    def _assign(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.AnnAssign):
            if statement.value is None:
                return
            targets, value = [statement.target], statement.value
        else:
            targets, value = statement.targets, statement.value
        try:
            computed: ast.expr | None = self.expr(value)
        except Unwritable:
            computed = _GONE
        for target in targets:
            self._bind(target, computed)

    def _bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == self.self_name:
            self.env[f"self.{target.attr}"] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            for index, element in enumerate(target.elts):
                if starred or value is None:
                    item = None
                elif isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                    item = value.elts[index]  # ``_, h, v = (b, H, V)``: each name its own element
                else:
                    item = ast.Subscript(value, ast.Constant(index), ast.Load())
                self._bind(element.value if isinstance(element, ast.Starred) else element, item)
        else:
            for name in _base_names(target):
                self.env[name] = _GONE  # x[k] = v, x.a = v: x is changed

    def _forget_changed(self, statement: ast.stmt) -> None:
        """Names a statement may change: assigned anywhere in it, or handed to a call."""
        for node in walk_local(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.env[node.id] = _GONE
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(
                    node.value, ast.Name) and node.value.id == self.self_name:
                self.env[f"self.{node.attr}"] = _GONE
            elif isinstance(node, ast.Call) and not _harmless(node):
                self._forget_call(node)

    def _forget_call(self, call: ast.Call) -> None:
        """A call may change what it is handed, and its receiver; ``self.f()`` may change self."""
        func = call.func
        receivers = []
        if isinstance(func, ast.Attribute):
            if func.attr in KNOWN_METHODS and func.attr not in MUTATING_METHODS:
                receivers = []
            elif isinstance(func.value, ast.Call) and ast.unparse(func.value.func) == "super":
                receivers = [self.self_name]  # super().__init__(...) may set any attribute of self
            elif (held := held_by_self(func, self.self_name)) in self.env:
                self.env[held] = _GONE  # self.block(x), self.cache.append(x): that object alone
            else:
                receivers = _base_names(func.value)
        for name in receivers + [n for a in [*call.args, *(k.value for k in call.keywords)] for n in _base_names(a)]:
            if name == self.self_name:
                for key in [k for k in self.env if k.startswith("self.")]:
                    self.env[key] = _GONE
            elif name in self.env and immutable(self.env[name]):
                continue  # a number or a size (``batch = x.size(0)``): no call can change it
            elif name in self.parameters or name in self.env:
                self.env[name] = _GONE

    def run(self, statements: list[ast.stmt], target: ast.stmt) -> None:
        """Run ``statements`` down to ``target`` (inside one of them), collecting the path."""
        for statement in statements:
            if statement is target:
                if isinstance(statement, ast.Assert):
                    self.path.append(negate(self.expr(statement.test)))
                return
            if _holds(statement, target):
                self._into(statement, target)
                return
            self._before(statement)
        raise Unwritable("the raise was not found on the path")  # pragma: no cover - callers pass a descendant

    def _into(self, statement: ast.stmt, target: ast.stmt) -> None:
        if isinstance(statement, ast.If):
            if any(_holds(s, target) or s is target for s in statement.body):
                self.path.append(self.expr(statement.test))  # (an else that raises comes later)
                self.run(statement.body, target)
            else:
                if not _raises_only(statement.body):
                    self.path.append(negate(self.expr(statement.test)))
                self.run(statement.orelse, target)
            return
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, _GONE)
            self.run(statement.body, target)
            return
        raise Unwritable(f"the raise is inside a {type(statement).__name__.lower()} statement")

    def _before(self, statement: ast.stmt) -> None:
        """A statement before the raise's: what it does to the names, and the tests that keep
        it from returning."""
        if isinstance(statement, (ast.Expr, ast.Pass)):
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                if not _harmless(statement.value) and not self._pure_helper(statement.value):
                    self._forget_call(statement.value)
            return
        if isinstance(statement, (ast.Raise, ast.Assert)):
            return  # the call fails here instead: still a failing call
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            self._forget_calls_in(statement.value)
            self._assign(statement)
            return
        if isinstance(statement, ast.AugAssign):
            try:
                value = self.expr(ast.BinOp(_as_load(statement.target), statement.op, statement.value))
            except Unwritable:
                value = _GONE
            self._bind(statement.target, value)
            return
        if isinstance(statement, (ast.Return,)):
            raise Unwritable("returns before the raise")
        if isinstance(statement, ast.If):
            self._if(statement)
            return
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, _GONE)
            for inner in statement.body:
                self._before(inner)
            return
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.env[statement.name] = _GONE  # defined, not run
            return
        if isinstance(statement, (ast.Global, ast.Nonlocal)):
            raise Unwritable("global or nonlocal names")
        if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            # a function-level import: its helpers and constants are read as the module's own
            for alias in statement.names:
                self.env.pop(alias.asname or alias.name, None)
                self.imported_here[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
            return
        if _may_exit(statement):
            raise Unwritable(f"a {type(statement).__name__.lower()} statement before the raise may return")
        self._forget_changed(statement)

    def _forget_calls_in(self, value: ast.expr | None) -> None:
        if value is None:
            return
        for node in walk_all(value):
            if isinstance(node, ast.Call) and not _harmless(node) and not self._pure_helper(node) \
                    and not self._known_call(node):
                self._forget_call(node)

    def _known_call(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in self.builtins and func.id not in self.module.definitions
        return isinstance(func, ast.Attribute) and func.attr in KNOWN_METHODS

    def _pure_helper(self, call: ast.Call) -> bool:
        """A function of this module (or one it imports from another sglang module) that changes
        none of its parameters in place."""
        func = call.func
        if not isinstance(func, ast.Name):
            return False
        imported = self._imported_helper(func) if func.id not in self.helpers else None
        if func.id not in self.helpers and imported is None:
            return False
        helper = self.helpers[func.id] if imported is None else imported[0]
        params = {a.arg for a in (*helper.args.posonlyargs, *helper.args.args, *helper.args.kwonlyargs)}
        for node in walk_local(helper):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                for target in getattr(node, "targets", None) or [getattr(node, "target", None)]:
                    if isinstance(target, (ast.Attribute, ast.Subscript)) and set(_base_names(target)) & params:
                        return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    node.func.attr in MUTATING_METHODS or node.func.attr.endswith("_")) and set(
                    _base_names(node.func.value)) & params:
                return False
        return True

    def _if(self, statement: ast.If) -> None:
        if _raises_only(statement.body) or _raises_only(statement.orelse):
            for inner in statement.orelse if _raises_only(statement.body) else statement.body:
                self._before(inner)
            return
        body_exits, else_exits = _may_exit_block(statement.body), _may_exit_block(statement.orelse)
        if body_exits and else_exits:
            raise Unwritable("both branches of an if before the raise may return")
        if body_exits or else_exits:
            test = self.expr(statement.test)
            self.path.append(negate(test) if body_exits else test)
            for inner in (statement.orelse if body_exits else statement.body):
                self._before(inner)
            return
        before = dict(self.env)
        for inner in statement.body:
            self._before(inner)
        after_body, self.env = self.env, dict(before)
        for inner in statement.orelse:
            self._before(inner)
        after_else = self.env
        merged = {}
        for name in set(after_body) | set(after_else):
            a, b = after_body.get(name, before.get(name)), after_else.get(name, before.get(name))
            if a is b:
                merged[name] = a
                continue
            if name not in before and name not in self.parameters and not name.startswith("self."):
                # bound in one branch only: unbound in the other (an error if read there)
                a = a if name in after_body else _GONE
                b = b if name in after_else else _GONE
            a = a if name in after_body or name in before else self._param_or_gone(name)
            b = b if name in after_else or name in before else self._param_or_gone(name)
            if a is None or b is None:
                merged[name] = _GONE
                continue
            try:
                merged[name] = ast.IfExp(self.expr(statement.test), a, b)
            except Unwritable:
                merged[name] = _GONE
        self.env = merged

    def _param_or_gone(self, name: str) -> ast.expr | None:
        return ast.Name(name, ast.Load()) if name in self.parameters else _GONE


_PLAIN_IMPORTS: dict[int, frozenset] = {}


def _plain_imports(module: Module) -> frozenset:
    """The modules ``import x`` binds at the module's top level (derive.tree records only aliases)."""
    key = id(module.tree)
    if key not in _PLAIN_IMPORTS:
        names = set()
        for node in walk_all(module.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names if a.asname is None and "." not in a.name}
        _PLAIN_IMPORTS[key] = frozenset(names) - module.definitions - set(module.constants)
    return _PLAIN_IMPORTS[key]


def function_body(function: ast.FunctionDef) -> list[ast.stmt]:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def _base_names(node: ast.expr) -> list[str]:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return [node.id] if isinstance(node, ast.Name) else []


def _as_load(node: ast.expr) -> ast.expr:
    node = copy.deepcopy(node)
    for child in walk_all(node):
        if hasattr(child, "ctx"):
            child.ctx = ast.Load()
    return node


def _harmless(call: ast.Call) -> bool:
    text = ast.unparse(call.func)
    return text.startswith(HARMLESS_CALLS) or text in ("print", "warnings.warn")


def _holds(statement: ast.stmt, target: ast.stmt) -> bool:
    return any(node is target for node in walk_local(statement)) and statement is not target


def _raises_only(statements: list[ast.stmt]) -> bool:
    """A block that ends in a raise nothing before it returns from: a call that enters it fails."""
    return bool(statements) and isinstance(statements[-1], ast.Raise) and not _may_exit_block(statements[:-1])


def _may_exit(statement: ast.stmt) -> bool:
    return any(isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) for node in walk_local(statement))


def _may_exit_block(statements: list[ast.stmt]) -> bool:
    return any(_may_exit(s) for s in statements)
