"""Test classes whose base class launches with one of their attributes (sglang's test
convention: ``class TestX(DefaultServerBase): other_args = [...]``): the deriver finds the base
classes in sglang's source (derive/commands/class_launchers.py), and a subclass's attribute is judged
as the launch's flags (engine/reach.py ``field_sites``)."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, expected_findings, findings_of, run_flake8, run_lint
from sglang_lint.catalog.rules import Target
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_rules
from test_derive_launchers import entries_of

FIXTURE = ROOT / "tests" / "fixtures" / "launch_classes" / "server_test_classes.py"

FIXTURES_SOURCE = """\
from sglang.test.test_utils import CustomTestCase, popen_launch_server


class DefaultServerBase(CustomTestCase):
    model = None
    other_args: list[str] = []

    @classmethod
    def setUpClass(cls):
        cls.process = popen_launch_server(cls.model, "http://127.0.0.1:30000", timeout=600,
                                          other_args=cls.other_args)


class QuietServerBase(DefaultServerBase):
    quiet = True


class OwnLaunchBase(DefaultServerBase):
    @classmethod
    def setUpClass(cls):
        cls.process = popen_launch_server(cls.model, "http://127.0.0.1:30000", timeout=600,
                                          other_args=["--tp-size", "2", *cls.other_args])


class RebuiltArgsBase(CustomTestCase):
    extra_args = []

    @classmethod
    def setUpClass(cls):
        cls.extra_args = cls.extra_args + ["--tp-size", "2"]
        cls.process = popen_launch_server("m", "http://127.0.0.1:30000", timeout=600, other_args=cls.extra_args)
"""

TEST_UTILS = """\
import subprocess
import sys


class CustomTestCase:
    pass


def popen_launch_server(model, base_url, timeout, api_key=None, other_args=(), env=None):
    command = [sys.executable, "-m", "sglang.launch_server", "--model-path", model, *other_args]
    return subprocess.Popen(command, env=env)
"""


def test_the_base_classes_that_launch_with_an_attribute_and_those_below_that_run_the_same_method(tmp_path):
    entries = entries_of(tmp_path, {"sglang/test/test_utils.py": TEST_UTILS,
                                    "sglang/test/server_fixtures/default_fixture.py": FIXTURES_SOURCE})
    prefix = "sglang.test.server_fixtures.default_fixture."
    classes = {key: (e.takes, e.position, e.launched_in, e.evidence) for key, e in entries.items() if e.kind == "class"}
    evidence = "sglang/test/server_fixtures/default_fixture.py:10"
    # OwnLaunchBase launches its own way (its setUpClass spreads the attribute into a list of its
    # own); RebuiltArgsBase assigns the attribute in its method: neither is the subclass's value
    assert classes == {(prefix + "DefaultServerBase", "other_args"): ("flags", None, "setUpClass", evidence),
                       (prefix + "QuietServerBase", "other_args"): ("flags", None, "setUpClass", evidence)}


SHIPPED_BASE = Target(kind="class", name="sglang.test.server_fixtures.default_fixture.DefaultServerBase",
                      argument="other_args", takes="flags", fields=True, launched_in="setUpClass")
WITH_BASE = RuleSet(default_rules(), project_targets=[SHIPPED_BASE])


def test_a_subclass_attribute_is_judged_as_the_launch_flags_at_its_place():
    source = FIXTURE.read_text(encoding="utf-8")
    found = lint(source, str(FIXTURE), WITH_BASE)
    assert {(d.line, d.col + 1, d.code) for d in found} == expected_findings(FIXTURE)
    assert lint(source, str(FIXTURE), RuleSet(default_rules(), screen=False, project_targets=[SHIPPED_BASE])) == found


def test_the_shipped_table_names_sglangs_own_base_classes_and_the_command_and_flake8_judge_them():
    launchers = (ROOT / "rules" / "derived" / "launchers.toml").read_text(encoding="utf-8")
    assert 'class = "sglang.test.server_fixtures.default_fixture.DefaultServerBase"' in launchers
    relative = str(FIXTURE.relative_to(ROOT))
    command = run_lint("--no-cache", relative, cwd=ROOT)
    assert findings_of(command.stdout.splitlines()) == expected_findings(FIXTURE), command.stderr
    flake8 = run_flake8("--select", "SGL", relative, cwd=ROOT)
    assert flake8.stdout.splitlines() == command.stdout.splitlines()


def test_a_class_of_another_base_or_one_that_launches_its_own_way_is_not_judged(tmp_path: Path):
    path = tmp_path / "test_other.py"
    path.write_text(
        "from sglang.test.server_fixtures.default_fixture import DefaultServerBase\n"
        "from unittest import TestCase\n\n\n"
        "class TestPlain(TestCase):\n    other_args = ['--max-model-len', '8']\n\n\n"
        "class TestOwn(DefaultServerBase):\n    other_args = ['--max-model-len', '8']\n\n"
        "    @classmethod\n    def setUpClass(cls):\n        pass\n"
    )
    assert lint(path.read_text(), str(path), WITH_BASE) == []
