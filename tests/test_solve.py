"""The local search for examples (derive/sites/fails_when/solve.py): a good call through a chain of tests."""

import ast

from sglang_lint.checks.fails_when.language import Device, Tensor, dtype_ref, holds
from sglang_lint.derive.sites.fails_when.solve import NOT_TRUE, goals, solve

# the shape of sglang's group_limited_topk guard (0.5.23): every test must pass at once
CHAIN = ("not (False if not x.is_cuda else False if x.ndim != 2 or x.dtype != torch.float32 "
         "else False if n_group <= 1 or x.shape[1] % n_group != 0 else 0 < top_k <= x.shape[1] // n_group)")


def parsed(text):
    return ast.parse(text, mode="eval").body


def cpu(*shape, dtype="bfloat16"):
    return Tensor(shape, dtype_ref(dtype), Device("cpu"))


def test_goals_split_a_wanted_outcome_into_the_tests_it_needs():
    found = [(ast.unparse(expression), want) for expression, want in goals(parsed(CHAIN), False)]
    assert found == [
        ("x.is_cuda", True),
        ("x.ndim != 2", False), ("x.dtype != torch.float32", False),
        ("n_group <= 1", False), ("x.shape[1] % n_group != 0", False),
        ("0 < top_k <= x.shape[1] // n_group", True),
    ]
    # an ``and`` wanted false, or a test of unknown outcome, is one goal
    assert [(ast.unparse(e), w) for e, w in goals(parsed("a and b"), False)] == [("a and b", False)]
    assert [w for _, w in goals(parsed("a or b"), NOT_TRUE)] == [NOT_TRUE, NOT_TRUE]


def test_a_chain_of_tests_is_met_one_after_the_other():
    pools = {"x": [cpu(3)], "n_group": [0, 1, 2, 3], "top_k": [0, 1, 2]}
    start = {"x": cpu(3, 4, 4), "n_group": 1, "top_k": 0}
    assert holds(parsed(CHAIN), start) is True
    env = solve(goals(parsed(CHAIN), False), start, pools)
    assert env is not None and holds(parsed(CHAIN), env) is False
    x = env["x"]
    assert (x.device.type, len(x.shape), x.dtype) == ("cuda", 2, dtype_ref("float32"))
    assert x.shape[1] % env["n_group"] == 0 and 0 < env["top_k"] <= x.shape[1] // env["n_group"]


def test_a_goal_no_change_of_one_argument_meets_gives_none():
    # ``a`` must equal both 1 and 2
    assert solve(goals(parsed("a != 1 or a != 2"), False), {"a": 0}, {"a": [0, 1, 2]}) is None


def test_unknown_meets_a_not_true_goal_but_a_certain_false_is_preferred():
    wanted = [(parsed("x.ndim != 2"), NOT_TRUE)]
    env = solve(wanted, {"x": cpu(4)}, {"x": [0]})
    assert env is not None and holds(parsed("x.ndim != 2"), env) is False


def test_two_goals_that_undo_each_other_do_not_loop_and_a_size_may_be_computed():
    # ``x`` must be 2-D, and (read only where it is) its width must leave room for h * v plus an
    # remainder a multiple of 8: the width is a sum of what the goal computes (12 + 8), no common size
    expression = parsed("x.ndim != 2 or x.shape[1] - s.shape[0] * s.shape[1] <= 0 "
                        "or (x.shape[1] - s.shape[0] * s.shape[1]) % 8 != 0")
    start = {"x": cpu(8), "s": cpu(3, 4)}
    env = solve(goals(expression, False), start, {"x": [cpu(8)], "s": [cpu(3, 4)]})
    assert env is not None and holds(expression, env) is False
    width = env["x"].shape[1]
    assert len(env["x"].shape) == 2 and width > 12 and (width - 12) % 8 == 0
