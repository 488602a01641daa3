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
    counts = {"evaluations": 0, "cases": 0, "conditions": 0}
    evaluate_node, by_cases, decide = language._eval, language._by_cases, language._decide

    def counted_eval(node, env):
        counts["evaluations"] += 1
        return evaluate_node(node, env)

    def counted_cases(*args):
        counts["cases"] += 1
        return by_cases(*args)

    def counted_decide(*args):
        counts["conditions"] += 1
        return decide(*args)

    monkeypatch.setattr(language, "_eval", counted_eval)
    monkeypatch.setattr(language, "_decide", counted_decide)
    monkeypatch.setattr(language, "_by_cases", counted_cases)
    monkeypatch.setattr(startup, "_VERDICTS", {})
    return counts


def _launch(**settings) -> startup.Launch:
    return startup.Launch({name: startup.Setting(value, None, name) for name, value in settings.items()}, True)


@pytest.mark.parametrize("release, settings, conditions, most", [
    # the benchmark's file: an Engine(...) and an argv launch of one model on two GPUs (each value
    # the launch sets also meets the checks of it being None where sglang orders it: `x is None`)
    ("0.5.23", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "attention_backend": "triton"}, 64, 20_000),
    ("0.5.23", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}, 56, 12_000),
    ("0.5.9", {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "attention_backend": "triton"}, 12, 2_500),
])
def test_a_launch_that_fails_no_check_is_settled_without_cases(counted, release, settings, conditions, most):
    """Only the checks whose needed fields the launch sets away from their defaults are
    evaluated (53 of the 146 whose fields the first launch sets), each false in some world (a
    few evaluations each); none runs its lines of cases, which would run up to 30 cases deep
    before giving up."""
    table = startup.load_startup(TABLE)
    assert list(startup.findings(table, _launch(**settings), (release,), release)) == []
    assert counted["cases"] == 0
    assert counted["conditions"] <= conditions
    assert counted["evaluations"] <= most


@pytest.mark.parametrize("condition, defaults, needs", [
    ("enable_x and tp_size > 1", {"enable_x": False, "tp_size": 1}, ("enable_x", "tp_size")),
    ("enable_x or tp_size > 1", {"enable_x": False, "tp_size": 1}, ()),
    ("(tp_size > 1 if unknown_q.is_hip() else False) and enable_x", {"enable_x": False, "tp_size": 1},
     ("enable_x", "tp_size")),
    ("mode not in ('a', 'b') and page_size > 1", {"mode": "a", "page_size": None}, ("mode",)),
])
def test_a_check_needs_the_fields_whose_default_makes_it_false(condition, defaults, needs):
    assert startup.needed_fields(condition, (), defaults) == needs


def test_a_launch_leaving_a_needed_field_at_its_default_is_never_evaluated(counted):
    """``1.0`` is not the default ``1`` (an isinstance test tells them apart), and an unknown
    value is not set away from its default."""
    check = startup.StartupCheck("m: f", "ValueError", "x", "enable_x and tp_size > 1", (("", ""),),
                                 {"enable_x": False, "tp_size": 1}, needs=("enable_x", "tp_size"))
    assert startup.fails(check, _launch(enable_x=True, tp_size=2)) is True
    counted["conditions"] = 0
    for settings in ({"enable_x": False, "tp_size": 2}, {"enable_x": True, "tp_size": 1},
                     {"enable_x": language.UNKNOWN, "tp_size": 2}, {"tp_size": 2}):
        assert startup.fails(check, _launch(**settings)) is False
    assert counted["conditions"] == 0
    assert startup.fails(check, _launch(enable_x=True, tp_size=1.0)) is False  # (evaluated: 1.0 > 1 is false)
    assert counted["conditions"] == 1


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
