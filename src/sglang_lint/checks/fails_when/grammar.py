"""The grammar of the ``fails-when`` language (checks/fails_when/language.py): which Python expressions a rule's
``when`` may be, and the names it reads. Parsed with :mod:`ast`, never run."""

from __future__ import annotations

import ast
import functools

# --- the grammar ----------------------------------------------------------------------------

_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd, ast.BinOp,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor,
    ast.LShift, ast.RShift, ast.Invert, ast.Compare, ast.Eq, ast.NotEq,
    ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot, ast.Call, ast.Name, ast.Load,
    ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.Set, ast.IfExp,
    ast.keyword, ast.Slice, ast.GeneratorExp, ast.comprehension, ast.Store, ast.Starred,
)
# Builtins a generator may be the one argument of, besides any and all: what they make of the items.
AGGREGATES = frozenset({"tuple", "list", "set", "sorted", "sum", "min", "max"})
BUILTINS = frozenset({"len", "isinstance", "min", "max", "abs", "int", "float", "bool", "str", "tuple", "list",
                      "any", "all", "sum", "sorted", "set", "round", "dict", "type", "bytes", "bytearray",
                      "complex", "frozenset", "object"})
# The builtins a function's path (derive/reading/paths.py) may call besides: ``getattr(x, "name", default)``
# (the start-up run reads its own getattr of the arguments: derive/startup/run.py).
PATH_BUILTINS = BUILTINS | {"getattr"}
# How sglang parses an environment variable's text (start-up rules: derive/startup/run.py). The
# variable itself is a parameter named as it is (``env_bool(SGLANG_X)``), unknown where unset.
ENVIRON_PARSERS = frozenset({"env_bool", "env_truthy", "env_int", "env_float", "env_str"})
# A value sglang reads from outside the launch that stays one value through a start-up (the
# platform's ``is_hip()``, ``get_platform()``): a parameter no launch binds, so unknown, but the
# same wherever it is read; a test of it is decided by cases (checks/fails_when/language.py).
QUERY_PREFIX = "unknown_"
# Names the expression may read besides its parameters (modules for dotted names such as torch.bfloat16).
MODULES = frozenset({"torch", "math", "collections", "typing", "numbers", "sglang"})


class WhenError(ValueError):
    """The text is not a fails-when expression (the message says which part)."""


def parse_when(text: str, parameters) -> ast.expr:
    """The expression, checked: only the grammar's nodes, only names that are parameters
    (None: every name it reads is one), builtins, ``torch``/``math`` or None/True/False. (One
    walk of the tree: every rule file of the catalog is read through here.)"""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise WhenError(f"not a Python expression: {error.msg}") from None
    nodes = nodes_of(tree)
    looped = _loop_names(nodes)
    read = {node.id for node in nodes if type(node) is ast.Name} - looped
    if parameters is None:
        parameters = read
    allowed = set(parameters) | PATH_BUILTINS | MODULES | ENVIRON_PARSERS
    if looped & allowed:
        raise WhenError(f"a generator's variable {sorted(looped & allowed)[0]!r} hides a parameter or builtin")
    # a generator is read as the one argument of an aggregate; a starred name inside a display
    aggregated = {id(node.args[0]) for node in nodes if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("any", "all", *AGGREGATES) and len(node.args) == 1 and not node.keywords}
    displayed = {id(element) for node in nodes if isinstance(node, (ast.Tuple, ast.List, ast.Set))
                 for element in node.elts}
    for node in nodes:
        if not isinstance(node, _NODES):
            raise WhenError(f"{type(node).__name__} is not in the fails-when grammar")
        if isinstance(node, ast.Name) and node.id not in allowed and node.id not in looped:
            raise WhenError(f"name {node.id!r} is neither a parameter nor a builtin the evaluator knows")
        if isinstance(node, ast.GeneratorExp) and id(node) not in aggregated:
            raise WhenError("a generator is read only as the one argument of any, all, tuple, sum...")
        if isinstance(node, ast.Starred) and id(node) not in displayed:
            raise WhenError("a starred name outside a display")
    tree.body._names_read = frozenset(read)  # (names_read of it: the walk is done)
    return tree.body


def nodes_of(tree: ast.AST) -> list:
    """Every node of the tree in ``ast.walk``'s order (a part read twice, twice), without its
    generators: every condition of a run is walked here."""
    nodes = [tree]
    for node in nodes:  # (grows as it goes)
        for name in node._fields:
            child = getattr(node, name, None)
            if isinstance(child, ast.AST):
                nodes.append(child)
            elif type(child) is list:
                nodes.extend(item for item in child if isinstance(item, ast.AST))
    return nodes


def _loop_names(nodes: list[ast.AST]) -> set[str]:
    """The variables of the generators: ``any(n % 64 for n in sizes)`` binds ``n`` (one plain
    name per generator, no nested ones)."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.GeneratorExp):
            if len(node.generators) != 1 or node.generators[0].is_async \
                    or not isinstance(node.generators[0].target, ast.Name):
                raise WhenError("a generator of one plain loop variable only")
            names.add(node.generators[0].target.id)
    return names


@functools.lru_cache(maxsize=8192)  # (a rule's expression is read at every call the screen or engine binds)
def names_read(expr: ast.expr) -> frozenset[str]:
    """The names the expression reads from outside (a generator's own variable is not one)."""
    found = expr.__dict__.get("_names_read")
    if found is not None:
        return found
    names, looped = set(), set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.GeneratorExp):
            looped.add(node.generators[0].target.id)
    return frozenset(names - looped)
