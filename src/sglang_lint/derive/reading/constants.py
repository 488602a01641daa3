"""Module constants a fails-when path reads, as literal displays: literals, and the sets,
tuples and lists sglang builds from them at import time (``frozenset({...})``, ``A | B``), in the
module itself or imported from another sglang module. Read with :mod:`ast`, never imported."""

from __future__ import annotations

import ast
import copy

from sglang_lint.checks.fails_when.check import Parameter
from sglang_lint.checks.fails_when.values import dtype_ref
from sglang_lint.derive.source.tree import Module, defined_at
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal

# the calls that build a display from another, and the display they give
_BUILDERS = {"frozenset": ast.Set, "set": ast.Set, "tuple": lambda elts: ast.Tuple(elts, ast.Load()),
             "list": lambda elts: ast.List(elts, ast.Load())}
_MAX_DEPTH = 5  # constants defined from constants, across modules


def is_literal(node: ast.expr) -> bool:
    """A literal Python can read (scalars, and tuples, lists, sets and dicts of them)."""
    if ast_literal(node) is not NOT_LITERAL:
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and is_literal(k) and is_literal(v) for k, v in zip(node.keys, node.values))
    return False


def folded_constant(node: ast.expr, module: Module, modules: dict[str, Module], depth: int = 0) -> ast.expr | None:
    """``node`` (read in ``module``) as a literal display, or None when it is not one. torch's
    dtypes count as literals (``{torch.float16, torch.bfloat16}``)."""
    if is_literal(node):
        return copy.deepcopy(node)
    if _torch_dtype(node, module):
        return ast.Attribute(ast.Name("torch", ast.Load()), node.attr, ast.Load())
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        items = [folded_constant(e, module, modules, depth + 1) for e in node.elts]
        if any(item is None for item in items):
            return None
        return ast.Set(items) if isinstance(node, ast.Set) else type(node)(items, ast.Load())
    if isinstance(node, ast.Name):
        if node.id in module.constants:
            return folded_constant(module.constants[node.id], module, modules, depth + 1)
        qualified = module.imports.get(node.id) if node.id not in module.definitions else None
        return imported_constant(qualified, modules, depth + 1) if qualified else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 \
            and not node.keywords and node.func.id in _BUILDERS and node.func.id not in module.definitions \
            and node.func.id not in module.imports:
        items = folded_constant(node.args[0], module, modules, depth + 1)
        if not isinstance(items, (ast.Tuple, ast.List, ast.Set)) or not items.elts:
            return None  # (an empty set has no display)
        return _BUILDERS[node.func.id](items.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = (folded_constant(side, module, modules, depth + 1) for side in (node.left, node.right))
        if isinstance(left, ast.Set) and isinstance(right, ast.Set):
            return ast.Set(list({ast.dump(e): e for e in (*left.elts, *right.elts)}.values()))
    return None


def imported_constant(qualified: str, modules: dict[str, Module], depth: int = 0) -> ast.expr | None:
    """The constant ``qualified`` names (``sglang.x.NAMES``) in another sglang module, folded."""
    found = defined_at(qualified, modules)
    if found is None or found[1] not in found[0].constants:
        return None
    owner, short = found
    return folded_constant(owner.constants[short], owner, modules, depth)


def _torch_dtype(node: ast.expr, module: Module) -> bool:
    """``torch.float16``, where ``torch`` is the module (``import torch``; derive.tree records
    only aliased imports)."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch" \
        and module.imports.get("torch", "torch") == "torch" and "torch" not in module.definitions \
        and "torch" not in module.constants and dtype_ref(node.attr) is not None


# --- a signature, with its literal defaults -----------------------------------------------

def parameters_of(function: ast.FunctionDef, module: Module, drop_first: bool) -> list[Parameter]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if drop_first:
        positional = positional[1:]
    all_positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip((a.arg for a in all_positional[len(all_positional) - len(args.defaults):]), args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    posonly = {a.arg for a in args.posonlyargs}
    result = []
    for index, arg in enumerate(positional):
        result.append(Parameter(arg.arg, index, arg.arg not in posonly, _default(defaults.get(arg.arg), module)))
    for arg in args.kwonlyargs:
        result.append(Parameter(arg.arg, None, True, _default(defaults.get(arg.arg), module)))
    if args.vararg:
        result.append(Parameter(args.vararg.arg, None, False, NOT_LITERAL, "*"))
    if args.kwarg:
        named = tuple(p.name for p in result if p.keyword)
        result.append(Parameter(args.kwarg.arg, None, False, NOT_LITERAL, "**", named))
    return result


def _default(node: ast.expr | None, module: Module) -> object:
    if node is None:
        return NOT_LITERAL
    if isinstance(node, ast.Name) and node.id in module.constants:
        node = module.constants[node.id]
    value = ast_literal(node)
    if value is not NOT_LITERAL:
        return value
    if is_literal(node) and len(ast.unparse(node)) <= 2000:
        return ast.literal_eval(node)  # a display of literals (a tuple, a dict of sizes)
    return NOT_LITERAL
