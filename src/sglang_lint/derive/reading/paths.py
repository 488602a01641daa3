"""The path to a raise, as one expression over the function's parameters (``fails-when`` rules).

A raise site the guard readers (guards.py) cannot turn into a one-parameter constraint may
still be certain at a call: ``if start >= end: raise``, ``b, c, f, h, w = x.shape`` then
``if h % patch: raise``, ``if n is None: n = cfg.get(...)`` then ``if n < 1: raise``, a test
inside ``if mode == "x":``. The function's statements are run from the top down to the raise
(:class:`.path_run.PathRun`), the tests on the way joined with ``and``; a run that stops
ends the derivation with its reason. The result is checked against the ``fails-when`` grammar
(checks/fails_when/language.py) and must be true for some values (an example is searched for)
and false for others.
"""

from __future__ import annotations

import ast

from sglang_lint.checks.fails_when.check import Parameter
from sglang_lint.checks.fails_when.language import WhenError, names_read, parse_when
from sglang_lint.derive.reading.expressions import classes_only_tested, conjuncts
from sglang_lint.derive.reading.guards import Skip, assert_as_raise
from sglang_lint.derive.reading.path_run import PathRun, Unwritable, function_body
from sglang_lint.derive.source.tree import Module, walk_all


def enums_read(expression: ast.expr, classes) -> tuple:
    """The enums (records.PlainClasses.enum) whose members ``expression`` reads (``sglang.x.E.NAME``)."""
    found = {classes.enums[ast.unparse(node.value)] for node in walk_all(expression)
             if isinstance(node, ast.Attribute) and classes.enums.get(ast.unparse(node.value)) is not None}
    return tuple(sorted(found, key=lambda enum: enum.qualified))


def derive_path(module: Module, function: ast.FunctionDef, owner: ast.ClassDef | None, raise_node: ast.stmt,
                parameters: list[Parameter], fields: bool = False, classes=None, excluding: tuple = (),
                state: dict | None = None, shown: list | None = None) -> str:
    """The fails-when expression of ``raise_node`` in ``function`` (Skip with the reason).
    ``fields``: the parameters are the dataclass fields ``self.<name>`` a ``__post_init__`` reads;
    ``excluding``: what one-parameter rules of the same raise report (Python expressions), left
    out of the path (``path and not (...)``) so no call is reported twice; ``state``: what the
    receiver's ``__init__`` stored (``self.a`` -> an expression over the receiver parameters
    among ``parameters``, derive/reading/state.py); ``shown``: given, gets the value each placeholder of
    the raise's f-string message shows, in order, over the parameters the path reads (the rule's
    own: "" where it is not written so)."""
    method = owner is not None and not any(ast.unparse(d) == "staticmethod" for d in function.decorator_list)
    all_args = [*function.args.posonlyargs, *function.args.args]
    self_name = all_args[0].arg if method and all_args else None
    runner = PathRun(module, function, [p.name for p in parameters if not p.receiver], self_name)
    runner.classes = classes
    if fields:
        runner.env.update((f"self.{p.name}", ast.Name(p.name, ast.Load())) for p in parameters)
    if state is not None:  # what __init__ stored, over its parameters (the receiver parameters)
        runner.env.update(state)
    try:
        runner.run(function_body(function), raise_node)
    except Unwritable as unknown:
        raise Skip(f"the path to the raise: {unknown}") from None
    except RecursionError:
        raise Skip("the path to the raise is too deep") from None
    if not runner.path:
        raise Skip("raises on every call")
    expression = runner.path[0] if len(runner.path) == 1 else ast.BoolOp(ast.And(), runner.path)
    if excluding:
        others = [ast.parse(text, mode="eval").body for text in excluding]
        if any(conjuncts(other) == conjuncts(expression) for other in others):
            raise Skip("a one-parameter rule checks the whole path")
        expression = ast.BoolOp(ast.And(), [expression, *(ast.UnaryOp(ast.Not(), other) for other in others)])
    text = ast.unparse(ast.fix_missing_locations(expression))
    try:
        parsed = parse_when(text, [p.name for p in parameters])
    except WhenError as error:
        raise Skip(f"the path to the raise: {error}") from None
    enums = enums_read(parsed, classes) if classes is not None else ()
    members = frozenset(f"{e.qualified}.{m}" for e in enums for m in e.members)
    if not classes_only_tested(parsed, members=members):
        raise Skip("the path to the raise reads an sglang class other than in isinstance")
    if any(isinstance(node, ast.Attribute) and isinstance(node.value, ast.Constant) and node.value.value is None
           for node in walk_all(parsed)):
        raise Skip("the path to the raise reads an attribute of None (a global set at run time)")
    read = names_read(parsed)
    if not read & {p.name for p in parameters}:
        raise Skip("the path to the raise reads no parameter")
    if read & {p.name for p in parameters if p.var == "*"}:
        raise Skip("the path to the raise reads *args (a call's are never known)")
    if shown is not None:
        shown.extend(_placeholders(runner, raise_node, [p.name for p in parameters], read))
    # (how long it reads: sglang's classes by their own names)
    shown = text
    for enum in enums:
        shown = shown.replace(enum.qualified, enum.qualified.rpartition(".")[2])
    if len(shown) > 600:
        raise Skip("the path to the raise is too long to read")
    return text


def _placeholders(runner: PathRun, raise_node: ast.stmt, names: list[str], read: set) -> list[str]:
    """Each top-level placeholder of the raise's f-string message (as raise_message writes the
    message), as the path's run knows it at the raise: an expression in the fails-when grammar
    over the parameters the path reads (``read``), else ""."""
    exc = getattr(assert_as_raise(raise_node) if isinstance(raise_node, ast.Assert) else raise_node, "exc", None)
    message = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
    if not isinstance(message, ast.JoinedStr):
        return []
    found = []
    for value in message.values:
        if not isinstance(value, ast.FormattedValue):
            continue
        try:
            text = ast.unparse(ast.fix_missing_locations(runner.expr(value.value)))
            if len(text) > 300 or not names_read(parse_when(text, names)) <= read:
                text = ""
        except (Unwritable, WhenError, RecursionError, Skip):
            text = ""
        found.append(text)
    return found
