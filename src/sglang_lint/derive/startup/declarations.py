"""Declarations in the start-up run (derive/startup/run.py): the dicts of fields sglang's passes
and model-override providers return and ``declare_resolution`` takes (0.5.15 on), read as the
fields they set; dicts built in steps; the providers registered per architecture, run under
an unknown architecture."""

from __future__ import annotations

import ast

from sglang_lint.derive.server_args.call_effects import MODEL_OVERRIDE_CONSTANTS, MODEL_OVERRIDE_REGISTRARS
from sglang_lint.derive.reading.expressions import negate
from sglang_lint.derive.reading.symbolic import (
    SERVER, if_else, is_absent, is_unknown, literal_keys, merge, merge_environ, unknown,
)
from sglang_lint.derive.source.tree import Module, walk_local


class Terminated(Exception):
    """The rest of a block does not run (every path before it returned or raised)."""


class Declarations:
    """The start-up run's reading of declarations (a part of derive/startup.StartupRun)."""

    def _declared_items(self, statement: ast.stmt) -> dict | None:
        """A loop that sets each field of a declaration on the arguments, over its ``.items()``
        (the declaration one of two dicts by a test, or not known but bounded by its keys): the
        fields it declares, as :meth:`_declared` reads them."""
        if not (isinstance(statement, ast.For) and not statement.orelse and len(statement.body) == 1
                and isinstance(statement.target, ast.Tuple) and len(statement.target.elts) == 2
                and isinstance(statement.iter, ast.Call) and not statement.iter.args
                and isinstance(statement.iter.func, ast.Attribute) and statement.iter.func.attr == "items"):
            return None
        body = statement.body[0]
        if not (isinstance(body, ast.Expr) and isinstance(body.value, ast.Call)
                and ast.unparse(body.value.func) in ("setattr", "object.__setattr__")):
            return None
        return self._declared(self.expr(statement.iter.func.value))

    def _recorded(self, node: ast.expr) -> bool:
        """``{name: value for name, value in <recorder>._written.items()}``: what a recorder of
        the arguments (``_ForeignDefaults``, a view) took from calls run on it, which the run
        already wrote into the fields: nothing more to declare."""
        return isinstance(node, ast.DictComp) and any(
            isinstance(n, ast.Name) and self.is_server(n) for g in node.generators for n in ast.walk(g.iter))

    def _prefixed_keys(self, node: ast.expr) -> ast.Dict | None:
        """``{f"watermark_{name}": ... for name in ...}``: a dict whose every key is a field
        named with that prefix, read as a display of those fields, each unknown (it may be
        left out, or hold any value). None for any other expression."""
        if not (isinstance(node, ast.DictComp) and isinstance(node.key, ast.JoinedStr) and node.key.values
                and isinstance(node.key.values[0], ast.Constant) and node.key.values[0].value):
            return None
        prefix = node.key.values[0].value
        names = sorted(name for name in self.fields if name.startswith(prefix))
        return ast.Dict([ast.Constant(n) for n in names], [unknown(f"a key {prefix}... computed") for _ in names])

    def _update_display(self, node: ast.Call) -> bool:
        """``out.update({"x": v}, y=w)`` on a dict display built in steps: still a display."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "update" and isinstance(func.value, ast.Name)
                and literal_keys(self.env.get(func.value.id))):
            return False
        added = [self._declared(self.expr(a)) for a in node.args]
        if any(a is None for a in added) or any(k.arg is None for k in node.keywords):
            return False
        built = self.env[func.value.id]
        merged = {k.value: v for k, v in zip(built.keys, built.values)}
        for part in added:
            merged.update(part)
        merged.update((k.arg, self.expr(k.value)) for k in node.keywords)
        self.env[func.value.id] = ast.Dict([ast.Constant(k) for k in merged], list(merged.values()))
        return True

    def _declared(self, value) -> dict | None:
        """The fields a declaration sets, {field: value}, from the dict a pass or provider
        returned (a display with literal keys; one of two by a test); None where its keys are
        not known."""
        if isinstance(value, ast.Constant) and value.value is None:
            return {}
        if isinstance(value, ast.Dict):
            if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
                return None
            return {k.value: or_current(v, self.fields[k.value]) if k.value in self.fields else v
                    for k, v in zip(value.keys, value.values)}
        if isinstance(value, ast.IfExp):
            body, orelse = self._declared(value.body), self._declared(value.orelse)
            if body is None or orelse is None:
                return None
            return {name: if_else(value.test, body.get(name, self.fields[name]), orelse.get(name, self.fields[name]),
                                  name)
                    for name in {*body, *orelse} if name in self.fields}
        return None

    def _apply_model_overrides(self) -> None:
        """What the model's architecture may declare (sglang's registered override providers
        and constant overrides): each field either keeps its value or takes the provider's,
        as the launch does not say which architecture it loads."""
        architecture = unknown("the model's architecture")
        for declared in self._model_override_declarations(architecture):
            if declared is None:
                self._forget_all("a model override declares fields not known")
                return
            for name, value in declared.items():
                if name in self.fields:
                    self._write(name, if_else(architecture, value, self.fields[name], name))

    def _model_override_declarations(self, architecture: ast.expr):
        for module in self.modules.values():
            for node in module.tree.body:
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict) and any(
                        isinstance(t, ast.Name) and t.id == MODEL_OVERRIDE_CONSTANTS
                        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
                    for value in node.value.values:
                        yield self._declared(value) if isinstance(value, ast.Dict) else None
                elif isinstance(node, ast.FunctionDef) and any(
                        decorator_name(d) in MODEL_OVERRIDE_REGISTRARS for d in node.decorator_list):
                    yield self._provider(module, node, architecture)

    def _provider(self, module: Module, function: ast.FunctionDef, architecture: ast.expr) -> dict | None:
        """One override provider run with the arguments (and the model's config unknown), under
        the architecture it is registered for: the fields it declares."""
        params = [*function.args.posonlyargs, *function.args.args]
        if not params:
            return None
        env = {p.arg: unknown("the model's config") for p in params[1:]}
        env[params[0].arg] = SERVER
        before_fields, before_env = dict(self.fields), dict(self.environ)
        self.path.append(architecture)
        try:
            returned = self.run_function(module, function, env)
        except Terminated:
            returned = ast.Constant(None)  # raises for its architecture: that launch fails either way
        finally:
            self.path.pop()
        self.fields = merge(architecture, self.fields, before_fields)
        self.environ = merge_environ(architecture, self.environ, before_env)
        keys = declarable(function)
        if keys is None:  # (a provider built from helpers of its module: what the module may declare)
            keys = declarable(module.tree, returns=False)
        return self._declared(returned if keys is None else bound_declaration(returned, keys))


def constant_item(node: ast.expr) -> bool:
    """A constant, or a tuple of constants (``for key, value in (("x", 1), ("y", -1))``)."""
    if isinstance(node, ast.Constant):
        return True
    if not isinstance(node, ast.Tuple):
        return False
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def with_key(built, key: ast.Constant, value):
    """A dict display (or one of two by a test) with ``key`` set to ``value``; None for any
    other value."""
    if literal_keys(built):
        keys = [k for k in built.keys if k.value != key.value]
        values = [v for k, v in zip(built.keys, built.values) if k.value != key.value]
        return ast.Dict([*keys, key], [*values, value])
    if isinstance(built, ast.IfExp):
        body, orelse = with_key(built.body, key, value), with_key(built.orelse, key, value)
        return None if body is None or orelse is None else ast.IfExp(built.test, body, orelse)
    return None


def truth(value, memo: dict | None = None):
    """Whether a dict display (or one of two by a test) is non-empty, as a test: ``if out:``
    (``memo``: id -> (value, test), as :func:`_present` keeps its own)."""
    memo = {} if memo is None else memo
    found = memo.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    if isinstance(value, ast.Dict):
        present = [_present(v, {}) for v in value.values]
        if not present or any(isinstance(p, ast.Constant) and p.value for p in present):
            test = ast.Constant(bool(present))
        else:
            tests = [p for p in present if not (isinstance(p, ast.Constant) and not p.value)]
            test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests) if tests else ast.Constant(False)
    elif isinstance(value, ast.IfExp):
        test = _by_test(value.test, truth(value.body, memo), truth(value.orelse, memo))
    else:
        test = value
    memo[id(value)] = (value, test)
    return test


def _present(value, memo: dict) -> ast.expr:
    """The test under which a value of a dict built in steps is there (not absent); ``memo``:
    id -> (value, test) of the parts seen, a shared part worked out once (a value is a graph:
    walked as a tree, a chain of steps that each test the one before doubles)."""
    found = memo.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    if is_absent(value):
        test = ast.Constant(False)
    elif isinstance(value, ast.IfExp):
        test = _by_test(value.test, _present(value.body, memo), _present(value.orelse, memo))
    else:
        test = ast.Constant(True)
    memo[id(value)] = (value, test)
    return test


def _by_test(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.expr:
    """The test ``body if test else orelse`` is, two tests written as one (``True if t else
    False`` is ``t``)."""
    if isinstance(body, ast.Constant) and isinstance(orelse, ast.Constant):
        if body.value == orelse.value:
            return body
        return test if body.value else negate(test)
    return if_else(test, body, orelse, "a test")


def or_current(value, current, memo: dict | None = None):
    """A declared value with its absent ways replaced by the field's current value (``memo``:
    id -> (part, result), a shared part rewritten once)."""
    memo = {} if memo is None else memo
    found = memo.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    result = value
    if is_absent(value):
        result = current
    elif isinstance(value, ast.IfExp):
        body, orelse = or_current(value.body, current, memo), or_current(value.orelse, current, memo)
        if body is not value.body or orelse is not value.orelse:
            result = if_else(value.test, body, orelse, "a declared value")
    memo[id(value)] = (value, result)
    return result


def declarable(function: ast.AST, returns: bool = True) -> frozenset | None:
    """The keys a function that returns dicts may return, read from its text (every literal
    key of its displays, ``out["x"] = ...``, ``out.update(x=...)``); None where it may return
    a dict it did not build (or keys it computes). ``returns=False``: the keys a module's
    functions may build, whatever they return."""
    keys: set = set()
    for node in (walk_local(function) if returns else ast.walk(function)):
        if returns and isinstance(node, ast.Return) and node.value is not None \
                and not isinstance(node.value, (ast.Dict, ast.Name)):
            return None
        if isinstance(node, ast.Dict):
            if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
                return None
            keys.update(k.value for k in node.keys)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                return None
            keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            if any(k.arg is None for k in node.keywords) or (returns and not all(isinstance(a, ast.Dict)
                                                                                 for a in node.args)):
                return None
            keys.update(k.arg for k in node.keywords)
    return frozenset(keys)


def bound_declaration(value, keys: frozenset):
    """A declaration returned by a pass, its unknown parts bounded by the keys the pass may
    return: each of those fields unknown there, the others untouched."""
    if is_unknown(value):
        return ast.Dict([ast.Constant(k) for k in sorted(keys)], [value for _ in keys])
    if isinstance(value, ast.IfExp):
        return ast.IfExp(value.test, bound_declaration(value.body, keys), bound_declaration(value.orelse, keys))
    return value


def decorator_name(node: ast.expr) -> str | None:
    """``name`` of ``@name``, ``@name(...)``, ``@module.name(...)``."""
    node = node.func if isinstance(node, ast.Call) else node
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
