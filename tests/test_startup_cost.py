"""What the start-up checks cost a launch, counted (never timed): the evaluations of the
shipped table's conditions for the launches users write most. A change that multiplies them
fails here; the times are the benchmark's (bench/bench.py)."""

from __future__ import annotations

import pytest

from sglang_lint.checks.fails_when import language
from sglang_lint.checks.server_args import startup
from sglang_lint.core.places import default_rules_dir

TABLE = default_rules_dir() / "derived" / "startup.toml"


@pytest.fixture
def counted(monkeypatch):
    """Counts of node evaluations and of cases split (each a whole evaluation of a condition
    under one more assumption), with no verdict kept from an earlier test."""
    counts = {"evaluations": 0, "cases": 0}
    evaluate_node, by_cases = language._eval, language._by_cases

    def counted_eval(node, env):
        counts["evaluations"] += 1
        return evaluate_node(node, env)

    def counted_cases(*args):
        counts["cases"] += 1
        return by_cases(*args)

    monkeypatch.setattr(language, "_eval", counted_eval)
    monkeypatch.setattr(language, "_by_cases", counted_cases)
    monkeypatch.setattr(startup, "_VERDICTS", {})
    return counts


def _launch(**settings) -> startup.Launch:
    return startup.Launch({name: startup.Setting(value, None, name) for name, value in settings.items()}, True)


@pytest.mark.parametrize("release, settings, most", [
    # the benchmark's file: an Engine(...) and an argv launch of one model on two GPUs
    ("0.5.23", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "attention_backend": "triton"}, 25_000),
    ("0.5.23", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}, 13_000),
    ("0.5.9", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "attention_backend": "triton"}, 2_500),
])
def test_a_launch_that_fails_no_check_is_settled_without_cases(counted, release, settings, most):
    """Every check such a launch touches is false in some world (a few evaluations each); none
    runs its lines of cases, which ran up to 30 cases deep before giving up (164,000 node
    evaluations for the first launch)."""
    table = startup.load_startup(TABLE)
    assert list(startup.findings(table, _launch(**settings), (release,), release)) == []
    assert counted["cases"] == 0
    assert counted["evaluations"] <= most


def test_a_failing_launch_is_still_decided_by_its_cases(counted):
    """A condition true in every world is certain only once the cases say so: the worlds never
    stand in for them."""
    expression = language.parse_when(
        "(tp if unknown_q.is_hip() else tp * 2) > 2 and (2 if unknown_q.is_hip() else 3) > 1", ["tp", "unknown_q"])
    env = {"tp": 4, "unknown_q": language.UNKNOWN}
    assert language.certain(expression, env, True) and language.holds(expression, env) is True
    assert counted["cases"] == 4  # (two lines of cases: the test assumed true, then false; once for each)


@pytest.mark.parametrize("text, verdict", [
    ("x if unknown_q.is_hip() else 0", language.UNKNOWN),  # (true in one world, false in the other)
    ("(x if unknown_q.is_hip() else 0) > 5", False),
    ("(x if unknown_q.is_hip() else unknown) > 0", language.UNKNOWN),  # (no truth in one world)
])
def test_the_worlds_give_the_verdict_the_cases_give(counted, text, verdict):
    expression = language.parse_when(text, None)
    env = {"x": 3, "unknown_q": language.UNKNOWN}
    assert language.holds(expression, env) is verdict
    assert language.certain(expression, env, True) is False
    assert language.certain(expression, env, False) is (verdict is False)
