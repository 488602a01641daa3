"""The choices of every launch flag in the shipped table (rules/derived/server_args.toml), per
release, against sglang's own parser for that release: ``ServerArgs.add_cli_args`` run by
sglang's code from the unpacked wheel with everything heavy stubbed (tests/startup/
parser_choices.py). One release of each way sglang has written its choice lists: literals in
``server_args.py`` (0.5.2), the plugin hook written as a function (``def add_x_choices(choices):
X.extend(choices)``, 0.5.5-0.5.18), as an alias (``add_x_choices = X.extend``, 0.5.19) and in
``arg_groups/choices.py`` (0.5.23)."""

from __future__ import annotations

import sys

import pytest

from conftest import FIXTURES, ROOT, ReleaseFixtures
from sglang_lint.checks.server_args.table import load_table

sys.path.insert(0, str(ROOT / "tests" / "startup"))

from parser_choices import parser_choices  # noqa: E402

RELEASES = ["0.5.2", "0.5.5", "0.5.12", "0.5.18", "0.5.19", "0.5.23"]
# Values sglang adds to a list only where an environment variable asks for them: the parser of a
# plain environment lacks them, a launch with the variable set takes them.
ADDED_UNDER_ENVIRONMENT = {"sampling_backend": {"token_oracle"}}  # SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE


@pytest.fixture(scope="module")
def shipped():
    return load_table(ROOT / "rules" / "derived" / "server_args.toml")


@pytest.mark.parametrize("release", RELEASES)
def test_each_flags_choices_are_sglangs_own(release, shipped):
    built = parser_choices(release)
    assert built.get("outcome") == "built", built
    table = shipped.for_releases([release])
    wrong = []
    judged = 0
    for dest, action in built["actions"].items():
        field = next((table.by_flag[f] for f in action["flags"] if f in table.by_flag), None)
        if field is None:
            continue  # a hand-registered flag (deprecated spellings, --config): no choices of its own
        real = action["choices"]
        if real is not None and "<stub>" in real:
            continue  # computed from a stubbed library: nothing to compare
        derived = {str(c) for c in field.choices}
        expected = set() if real is None else {str(c) for c in real if c is not None}
        judged += bool(expected)
        extra = derived - expected - ADDED_UNDER_ENVIRONMENT.get(field.name, set())
        if extra or expected - derived:
            wrong.append((dest, sorted(extra), sorted(expected - derived)))
    assert wrong == []
    assert judged >= 30  # every release has dozens of fields with choices: the comparison ran


# --- the same lists judged in launches, at a release of each way of writing them ---------------------
CHOICES = FIXTURES / "choices"
FIXTURES_AT = ReleaseFixtures(CHOICES, "SGL006,SGL007", shared=True)


@pytest.mark.parametrize("release", ["0.5.5", "0.5.19", "0.5.23"])
def test_a_plugin_extensible_list_is_judged_at_every_release(release, update_golden):
    FIXTURES_AT.check_command(release, update_golden)


@pytest.mark.parametrize("release", ["0.5.5", "0.5.19", "0.5.23"])
def test_flake8_judges_the_engine_keywords_the_same(release):
    FIXTURES_AT.check_flake8(release)
