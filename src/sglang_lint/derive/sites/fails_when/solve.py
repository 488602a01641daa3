"""A local search for a call that makes a fails-when path go one way (the examples of
derive/sites/fails_when/rules.py), where picking every argument at random seldom does: a good call must get
past a chain of tests at once (``x`` on CUDA, 2-D, float32, its second size a power of two times
``n_group``).

The wanted outcome is split into the tests it needs (``not (a or b)``: ``a`` false and ``b``
false; ``False if t else rest``: ``t`` false and ``rest`` as wanted), which are then met one after
the other, each by changing one argument: a value from the argument's pool, or the tensor it
holds with one property changed (device, dtype, rank, one size), keeping the tests met before.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools

from sglang_lint.checks.fails_when.language import FLOAT_DTYPES, Device, Tensor, dtype_ref, evaluate, holds, names_read
from sglang_lint.derive.source.tree import walk_all
from sglang_lint.text.pynames import Ref

NOT_TRUE = "not true"  # a wanted outcome: false or unknown (another check may not fire)
_SIZES = (1, 2, 4, 8, 16, 64, 128)
_DTYPES = ("float32", "bfloat16", "float16", "int32", "int64", "float8_e4m3fn")


def goals(expression: ast.expr, want: object) -> list[tuple[ast.expr, object]]:
    """The tests ``expression`` needs to come out ``want`` (True, False or NOT_TRUE), in the
    order a run meets them."""
    if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.Not) and want in (True, False):
        return goals(expression.operand, not want)
    if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name) and expression.func.id == "bool" \
            and len(expression.args) == 1 and not expression.keywords:
        return goals(expression.args[0], want)
    if isinstance(expression, ast.BoolOp):
        every = isinstance(expression.op, ast.And) and want is True or isinstance(expression.op, ast.Or) and (
            want is False or want == NOT_TRUE)
        if every:
            return [g for value in expression.values for g in goals(value, want)]
    if isinstance(expression, ast.IfExp) and want in (True, False):
        for branch, other, taken in ((expression.body, expression.orelse, False),
                                     (expression.orelse, expression.body, True)):
            # ``False if t else rest`` wanted true: t must be false, and rest true
            if isinstance(branch, ast.Constant) and bool(branch.value) != want:
                return goals(expression.test, taken) + goals(other, want)
    return [(expression, want)]


def met(goal: tuple[ast.expr, object], env: dict) -> bool:
    return _degree(goal, env) > 0


def _degree(goal: tuple[ast.expr, object], env: dict) -> int:
    """2: the goal is met for certain; 1: a NOT_TRUE goal is unknown (met, but only because
    the value is not read: a search prefers values the other checks certainly pass); 0: not met."""
    expression, want = goal
    verdict = holds(expression, env)
    if want == NOT_TRUE:
        return 2 if verdict is False else 1 if verdict is not True else 0
    return 2 if verdict is want else 0


def solve(wanted: list[tuple[ast.expr, object]], env: dict, pools: dict[str, list]) -> dict | None:
    """``env`` changed, one argument at a time, until every goal is met; None when that was not
    reached. Each step meets the first goal not met that one change can meet, by the change that
    leaves the most goals met (a tensor made to match a shape another argument gives, a tweak of
    the one there, one size set to a number the goal computes, a value of the pool), never going
    back to a binding met before (two goals that undo each other would loop); only the arguments
    with a pool change."""
    env = dict(env)
    seen = {_key(env)}
    # the names each goal's test is written with: a change of another argument leaves its degree
    reading = [{node.id for node in walk_all(expression) if isinstance(node, ast.Name)} for expression, _ in wanted]
    for _ in range(min(2 * len(wanted), 40)):
        degrees = [_degree(goal, env) for goal in wanted]
        unmet = [goal for goal, degree in zip(wanted, degrees) if not degree]
        if not unmet:
            return env
        best = None
        for goal in unmet:
            best, score = None, -1
            matching = matching_tensors(goal[0], env)
            sizes = _sizes_computed(goal[0], env)
            for name in sorted(names_read(goal[0]) & set(pools)):
                for value in [*matching.get(name, []), *_tweaks(env.get(name), sizes), *pools[name]]:
                    trial = {**env, name: value}
                    if met(goal, trial):
                        count = sum(_degree(other, trial) if name in names else degree
                                    for other, names, degree in zip(wanted, reading, degrees))
                        if count > score and _key(trial) not in seen:
                            best, score = trial, count
            if best is not None:
                break
        if best is None:
            return None
        env = best
        seen.add(_key(env))
    return env if all(met(goal, env) for goal in wanted) else None


def _key(env: dict) -> str:
    """A binding as text (its values are not all hashable), to tell one met before."""
    return repr(sorted(env.items(), key=lambda item: item[0]))


def _sizes_computed(expression: ast.expr, env: dict) -> tuple[int, ...]:
    """The sizes a goal computes from the arguments (``HV * V``, ``q_dim // K``) or names, and
    their sums and products two at a time: what one size of a tensor often has to be (``x.shape[1]`` must be
    ``HV * V`` plus twice ``H * K``)."""
    values = set()
    for node in walk_all(expression):
        if isinstance(node, (ast.BinOp, ast.Subscript, ast.Call, ast.Attribute, ast.Constant)):
            value = evaluate(node, env)
            if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 4096:
                values.add(value)
    values -= set(_SIZES)
    pairs = {a + b for a, b in itertools.combinations_with_replacement(sorted(values), 2)}
    pairs |= {a * b for a, b in itertools.combinations_with_replacement(sorted(values), 2)}
    return tuple(sorted(v for v in values | pairs if 0 < v <= 4096))[:24]


def matching_tensors(expression: ast.expr, env: dict) -> dict[str, list]:
    """Tensors that meet the path's equality tests of a tensor's shape or dtype with what the
    other arguments give (``out.shape != (x.shape[0], 1)``): few random tensors would."""
    found: dict[str, list] = {}
    for node in walk_all(expression):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
            continue
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(side, ast.Attribute) and side.attr in ("shape", "dtype") \
                    and isinstance(side.value, ast.Name) \
                    and isinstance(env.get(side.value.id), Tensor):
                tensor, wanted = env[side.value.id], evaluate(other, env)
                if side.attr == "shape" and isinstance(wanted, tuple) and all(
                        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 4096 for v in wanted):
                    found.setdefault(side.value.id, []).append(
                        Tensor(wanted, tensor.dtype, tensor.device, tensor.requires_grad))
                elif side.attr == "dtype" and isinstance(wanted, Ref) and dtype_ref(wanted.qualified[6:]) == wanted:
                    found.setdefault(side.value.id, []).append(
                        Tensor(tensor.shape, wanted, tensor.device, tensor.requires_grad))
    return found


def _tweaks(value: object, sizes: tuple[int, ...] = ()) -> list:
    """A tensor with one of its properties changed: its device, dtype, rank or one size (to a
    common size, or to one of ``sizes``)."""
    if not isinstance(value, Tensor) or value.library != "torch" or not isinstance(value.shape, tuple):
        return []
    found = [dataclasses.replace(value, device=Device(kind, None if kind == "cpu" else value.device.index))
             for kind in ("cuda", "cpu") if kind != value.device.type]
    # (only floating tensors may require grad)
    found += [dataclasses.replace(value, dtype=dtype_ref(name), requires_grad=value.requires_grad is True
                                  and name in FLOAT_DTYPES) for name in _DTYPES
              if isinstance(value.dtype, Ref) and dtype_ref(name) != value.dtype]
    shape = value.shape
    found += [dataclasses.replace(value, shape=(tuple(shape) + (2,) * rank)[:rank], strides=None)
              for rank in range(1, 6) if rank != len(shape)]
    found += [dataclasses.replace(value, shape=shape[:i] + (size,) + shape[i + 1:], strides=None)
              for i, size in itertools.product(range(len(shape)), (*_SIZES, *sizes)) if shape[i] != size]
    return found
