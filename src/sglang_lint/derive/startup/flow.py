"""How the start-up run (derive/startup/run.py) follows the flow of sglang's validation: the two
ways of an ``if`` and the state after it, what a test taken true says of the unknowns it
compares to literals, a ``try`` and its handlers, and loops."""

from __future__ import annotations

import ast

from sglang_lint.derive.startup.declarations import Terminated, constant_item, truth
from sglang_lint.derive.source.exceptions import handler_names, raises_again
from sglang_lint.derive.reading.expressions import negate
from sglang_lint.derive.reading.path_run import HARMLESS_CALLS
from sglang_lint.derive.startup.inputs import dummy_assumption
from sglang_lint.derive.reading.symbolic import is_unknown, merge, merge_environ, unknown
from sglang_lint.derive.source.tree import walk_local

DECLARATION_RECORDS = frozenset({"_resolved_overrides"})  # where declare_resolution keeps what it declared


class Flow:
    """The start-up run's reading of branches, ``try`` statements and loops (a part of
    derive/startup.StartupRun)."""

    def _if(self, statement: ast.If) -> None:
        test = truth(self.expr(statement.test))
        real_model = dummy_assumption(test)
        if real_model is not None:  # a launch of a real model (see _dummy_model_test)
            self.block(statement.body if real_model else statement.orelse)
            return
        before_fields, before_env, before_locals = dict(self.fields), dict(self.environ), dict(self.env)
        frame = self.frames[-1]
        outside = frame.narrowed
        states = []
        for branch, condition in ((statement.body, test), (statement.orelse, negate(test))):
            self.fields, self.environ, self.env = dict(before_fields), dict(before_env), dict(before_locals)
            frame.env = self.env
            frame.narrowed = {**outside, **self._narrowing(statement.test)} if branch is statement.body else outside
            self.path.append(condition)
            try:
                self.block(branch)
                states.append((condition, self.fields, self.environ, self.env))
            except Terminated:
                states.append(None)
            finally:
                self.path.pop()
                frame.narrowed = outside
        self.frames[-1].env = self.env
        body, orelse = states
        if body is None and orelse is None:
            raise Terminated()
        if body is None or orelse is None:
            kept = orelse if body is None else body
            self.fields, self.environ, self.env = kept[1], kept[2], kept[3]
            self.frames[-1].env = self.env
            return
        self.fields = merge(test, body[1], orelse[1])
        self.environ = merge_environ(test, body[2], orelse[2])
        self.env = merge(test, body[3], orelse[3])
        self.frames[-1].env = self.env

    def _try(self, statement: ast.Try) -> None:
        # a handler that always raises again stops nothing: the launch fails all the same
        caught = tuple(handler_names(h) for h in statement.handlers if not raises_again(h))
        saved = self.catching
        self.catching = saved + tuple(name for names in caught for name in names)
        before = dict(self.fields), dict(self.environ), dict(self.env)
        try:
            self.block(statement.body)
            self.block(statement.orelse)
            ended = True
        except Terminated:
            ended = False
        finally:
            self.catching = saved
        after_body = dict(self.fields), dict(self.environ), dict(self.env)
        failed = unknown("a try statement's body fails")
        for handler in statement.handlers:
            self.fields, self.environ, self.env = (dict(part) for part in before)
            self.frames[-1].env = self.env
            if handler.name:
                self.env[handler.name] = unknown("the caught exception")
            self.path.append(failed)
            try:
                self.block(handler.body)
                handled = dict(self.fields), dict(self.environ), dict(self.env)
            except Terminated:
                handled = None
            finally:
                self.path.pop()
            if handled is not None:
                if not ended:
                    after_body, ended = handled, True
                else:
                    after_body = (merge(failed, handled[0], after_body[0]),
                                  merge_environ(failed, handled[1], after_body[1]),
                                  merge(failed, handled[2], after_body[2]))
        if not ended:
            self.fields, self.environ, self.env = (dict(part) for part in before)
            self.frames[-1].env = self.env
            raise Terminated()
        self.fields, self.environ, self.env = after_body
        self.frames[-1].env = self.env
        self.block(statement.finalbody)

    def _loop(self, statement: ast.stmt) -> None:
        """A loop over a literal display of a few constants runs its body once per item;
        another loop's body runs an unknown number of times: what it writes is unknown
        before and after it, and its raises are sites inside a loop."""
        if self._reapplies_declarations(statement):
            return  # declarations were written as they were made (declare_resolution)
        declared = self._declared_items(statement)
        if declared is not None:  # for name, value in declared.items(): setattr(args, name, value)
            for name, value in declared.items():
                self._bind(statement.target, ast.Tuple([ast.Constant(name), value], ast.Load()))
                self.block(statement.body)
            return
        items = self._literal_items(statement)
        if items is not None:
            for item in items:
                self._bind(statement.target, item)
                self.block(statement.body)
            self.block(statement.orelse)
            return
        if self._checking_loop(statement):
            return
        self._havoc(statement, "written in a loop")
        iterating = statement.iter if isinstance(statement, (ast.For, ast.AsyncFor)) else statement.test
        self._calls_in(iterating)
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            self._bind(statement.target, unknown("a loop variable"))
        self.in_loop += 1
        saved_path = len(self.path)
        self.path.append(unknown("the loop runs"))
        try:
            self.block(statement.body)
        except Terminated:
            pass
        finally:
            del self.path[saved_path:]
            self.in_loop -= 1
        self._havoc(statement, "written in a loop")
        try:
            self.block(statement.orelse)
        except Terminated:
            pass

    def _checking_loop(self, statement: ast.stmt) -> bool:
        """A loop that only tests each item (``for m in limits.keys(): if m not in allowed:
        raise ...``): nothing it runs writes, so each raise in it fails the launch where the
        test holds of some item: its site's condition is the path to the loop and ``any(<the
        path inside> for m in <the items>)`` (:meth:`_site`). False for any other loop."""
        if not (isinstance(statement, ast.For) and isinstance(statement.target, ast.Name) and not statement.orelse):
            return False
        name = statement.target.id
        if name in self.fields or name in self.environ or any(
                isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Break, ast.Continue,
                               ast.Return, ast.For, ast.While, ast.With, ast.Try, ast.Yield, ast.YieldFrom,
                               ast.NamedExpr, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.Lambda))
                or isinstance(n, ast.Expr) and not (isinstance(n.value, ast.Call) and ast.unparse(
                    n.value.func).startswith(HARMLESS_CALLS))
                for s in statement.body for n in walk_local(s)):
            return False
        items = self.expr(statement.iter)
        if is_unknown(items):
            return False
        saved_env, saved_path = self.env.get(name, ...), len(self.path)
        self.env[name] = ast.Name(name, ast.Load())
        self.checking.append((saved_path, name, items))
        try:
            self.block(statement.body)
        except Terminated:
            pass  # (every way through the body raises: the launch fails on the first item)
        finally:
            self.checking.pop()
            del self.path[saved_path:]
            if saved_env is ...:
                self.env.pop(name, None)
            else:
                self.env[name] = saved_env
        return True

    def _reapplies_declarations(self, statement: ast.stmt) -> bool:
        """A loop over the arguments' record of declarations (``_resolved_overrides``), which
        sglang applies to the fields once more at the end of resolution."""
        iterated = statement.iter if isinstance(statement, (ast.For, ast.AsyncFor)) else None
        return iterated is not None and any(
            isinstance(n, ast.Constant) and n.value in DECLARATION_RECORDS
            or isinstance(n, ast.Attribute) and n.attr in DECLARATION_RECORDS for n in ast.walk(iterated))

    def _literal_items(self, statement: ast.stmt) -> list | None:
        """The items of a loop over a display of constants, or over ``d.items()`` of a dict
        display with constant keys (``_apply_fields(args, {"x": v})``); None otherwise."""
        if not isinstance(statement, ast.For) or not isinstance(statement.target, (ast.Name, ast.Tuple)):
            return None
        if any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for s in statement.body for n in walk_local(s)):
            return None
        iterated = statement.iter
        pairs = isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) \
            and iterated.func.attr == "items" and not iterated.args
        items = self.expr(iterated.func.value if pairs else iterated)
        if pairs:
            if not isinstance(items, ast.Dict) or len(items.keys) > 16 or not all(
                    isinstance(k, ast.Constant) for k in items.keys):
                return None
            return [ast.Tuple([k, v], ast.Load()) for k, v in zip(items.keys, items.values)]
        if not isinstance(items, (ast.Tuple, ast.List)) or len(items.elts) > 16 \
                or not all(constant_item(e) for e in items.elts):
            return None
        return items.elts

    def _narrowing(self, test: ast.expr) -> dict:
        """What a test, taken true, says of the unknown values it compares to literals:
        ``x in ("a", "b")``, ``x == "a"`` (each operand of an ``and``)."""
        found: dict = {}
        for part in (test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]):
            if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and _plain_reference(part.left)) \
                    or isinstance(part.left, ast.Attribute) and self.is_server(part.left.value):
                continue  # (a field: the run follows its writes itself)
            op, right = part.ops[0], part.comparators[0]
            if isinstance(op, ast.In) and isinstance(right, (ast.List, ast.Tuple, ast.Set)) \
                    and right.elts and all(isinstance(e, ast.Constant) for e in right.elts):
                options = tuple(e.value for e in right.elts)
            elif isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
                options = (right.value,)
            else:
                continue
            if is_unknown(self.expr(part.left)):
                read = frozenset(n.id for n in ast.walk(part.left) if isinstance(n, ast.Name))
                found[ast.dump(part.left)] = (options, read)
        return found

    def _forget_narrowed(self, node: ast.AST) -> None:
        """What tests said of the names ``node`` may write (a target, a statement, a call that
        may change what it is handed) no longer holds."""
        frame = self.frames[-1] if self.frames else None
        if frame is not None and frame.narrowed:
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            frame.narrowed = {k: v for k, v in frame.narrowed.items() if v[1].isdisjoint(names)}


def _plain_reference(node: ast.expr) -> bool:
    """A name or an attribute of one (``model_config.quantization``): read without running anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
