"""Registry lookups (derive/reading/lookups.py): ``found = MAP.get(p)`` then a raise when nothing is
found makes MAP's keys the allowed values of ``p``; ``MAP.get(p.lower())`` compares the value
lower-cased (the allowed-values check's ``fold``). A registry a plugin may extend, a lookup
whose result or parameter is rebound before the guard, and the like give no rule. Small trees
written here; the held-out calls into sglang's own registries are tests/registries/."""

from __future__ import annotations

import textwrap

import pytest

from sglang_lint import lint
from sglang_lint.core.rulefile import RuleFileError
from sglang_lint.derive.sites.raise_sites import derive_sites
from sglang_lint.derive.sites.writing import DERIVED_DIR, write_catalog
from sglang_lint.engine.ruletable import RuleSet, load_rules

PARSERS = '''
class Detector:
    pass


class OtherDetector:
    pass


DETECTORS = {"alpha": Detector, "beta": OtherDetector}
STEPS = {"zero": 0, "one": 1, "none": None}
PLUGGABLE = {"one": Detector}
SHARED = {"one": Detector}


def register_pluggable(name, cls):
    PLUGGABLE[name] = cls


class ToolParser:
    ParserMap = {"qwen": Detector, "llama3": OtherDetector}

    def __init__(self, tools, parser_name):
        self.tools = tools
        detector = self.ParserMap.get(parser_name)
        if detector:
            self.detector = detector()
        else:
            raise ValueError(f"Unsupported parser: {parser_name}")


class Reasoner:
    DetectorMap = {"deepseek-r1": Detector, "qwen3": OtherDetector}

    def __init__(self, model_type=None, stream=False):
        if not model_type:
            raise ValueError("Model type must be specified")
        detector = Reasoner.DetectorMap.get(model_type.lower())
        if not detector:
            raise ValueError(f"Unsupported model type: {model_type}")
        if model_type.lower() == "qwen3" and stream:
            raise ValueError("qwen3 does not stream")
        self.detector = detector()


def make_detector(kind):
    found: type | None = DETECTORS.get(kind, None)
    if found is None:
        raise ValueError(f"unknown detector {kind}")
    return found()


def step_of(name):
    step = STEPS.get(name)
    if not step:
        raise ValueError(f"no step {name}")
    return step


def step_or_none(name):
    step = STEPS.get(name)
    assert step is not None, f"no step {name}"
    return step


def pluggable(name):
    found = PLUGGABLE.get(name)
    if found is None:
        raise ValueError(f"no plugin {name}")
    return found


def shared(name):
    found = SHARED.get(name)
    if found is None:
        raise ValueError(f"nothing shared as {name}")
    return found


def result_rebound(kind):
    found = DETECTORS.get(kind)
    found = found or Detector
    if not found:
        raise ValueError(f"unknown detector {kind}")
    return found


def name_rebound(kind):
    found = DETECTORS.get(kind)
    kind = "alpha"
    if found is None:
        raise ValueError(f"unknown detector {kind}")
    return found


def with_default(kind):
    found = DETECTORS.get(kind, Detector)
    if found is None:
        raise ValueError(f"unknown detector {kind}")
    return found


class Registered:
    Handlers = {"a": Detector}

    def __init__(self, name):
        handler = self.Handlers.get(name)
        if handler is None:
            raise ValueError(f"no handler {name}")


class Base:
    Kinds = {"x": Detector}

    @classmethod
    def build_kind(cls, kind):
        made = cls.Kinds.get(kind)
        assert made, f"no kind {kind}"
        return made()


class Sub(Base):
    Kinds = {"y": OtherDetector}
'''

PLUGINS = '''
import sglang.parsers as parsers
from sglang.parsers import Registered, Detector

Registered.Handlers["b"] = Detector
parsers.SHARED.update({"two": Detector})
'''


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    (root / "sglang").mkdir()
    (root / "sglang" / "__init__.py").write_text("")
    (root / "sglang" / "_version.py").write_text("__version__ = '9.9.9'\n")
    (root / "sglang" / "parsers.py").write_text(textwrap.dedent(PARSERS))
    (root / "sglang" / "plugins.py").write_text(textwrap.dedent(PLUGINS))
    return root


@pytest.fixture(scope="module")
def derivation(tree):
    return derive_sites(tree)


def lookups(derivation, function):
    """The sites of a function's lookup guard (not Reasoner's other guards), by message."""
    return [s for s in derivation.sites if s.function == function
            and not s.message.startswith(("Model type", "qwen3 does not"))]


@pytest.mark.parametrize(
    "function, constraint",
    [
        # the three spellings of the guard, and an assert: the keys whose value passes the test
        ("ToolParser.__init__", "parser_name in ('qwen', 'llama3')"),  # if found: ... else: raise
        ("make_detector", "kind in ('alpha', 'beta')"),  # found: T = .get(kind, None); if found is None: raise
        ("step_of", "name in ('one')"),  # if not found: raise ("zero" is 0, "none" None: they raise too)
        ("step_or_none", "name in ('zero', 'one')"),  # assert found is not None ("none" raises)
        # a class attribute read through the class's name, and the lower-cased name looked up
        ("Reasoner.__init__", "model_type.lower() in ('deepseek-r1', 'qwen3')"),
    ],
)
def test_lookups_that_become_rules(derivation, function, constraint):
    [site] = lookups(derivation, function)
    assert site.skipped is None
    assert site.constraint.describe(site.parameter) == constraint
    assert site.constraint.fold == ("lower" if function == "Reasoner.__init__" else None)


@pytest.mark.parametrize(
    "function, reason",
    [
        ("pluggable", "a registry a plugin may extend (written at run time)"),  # register_pluggable
        ("shared", "a registry a plugin may extend (written at run time)"),  # another module's .update()
        ("Registered.__init__", "a registry a plugin may extend (written at run time)"),  # X.Handlers[k] = v
        ("Base.build_kind", "a subclass binds a registry of its own under the name"),  # cls.Kinds
        ("result_rebound", "the looked-up value or its name is rebound before the guard"),
        ("name_rebound", "the looked-up value or its name is rebound before the guard"),
        ("with_default", "a registry lookup with a default"),
    ],
)
def test_lookups_that_are_skipped_with_their_reason(derivation, function, reason):
    [site] = lookups(derivation, function)
    assert site.skipped == reason


def folded_rule(rules):
    """The rule file of Reasoner's lookup (its other guard, ``if not model_type``, has one too)."""
    [path] = [p for p in (rules / DERIVED_DIR).glob("SGL*-reasoner-init-model-type.toml") if "fold =" in p.read_text()]
    return path


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory, derivation):
    rules = tmp_path_factory.mktemp("rules")
    write_catalog(derivation, rules)
    return rules, RuleSet(load_rules([rules]))


def test_a_folded_lookup_judges_the_value_lower_cased(ruleset):
    rules, catalog = ruleset
    path = folded_rule(rules)
    assert 'values = ["deepseek-r1", "qwen3"]\nfold = "lower"\n' in path.read_text()
    call = "from sglang.parsers import Reasoner\n\nReasoner(model_type={!r})\n"
    [finding] = lint(call.format("Qwen3-Coder"), "user.py", catalog)
    assert finding.message == (
        "Reasoner(model_type='Qwen3-Coder'): ValueError: Unsupported model type: Qwen3-Coder; sglang looks up "
        "'qwen3-coder' (lower-cased): expected one of 'deepseek-r1', 'qwen3' (did you mean 'qwen3'? fixable with "
        "`sglang-lint --fix --unsafe-fixes`)")
    # a registered name in any case is the key sglang finds; a value that is not a string is not judged
    assert [lint(call.format(value), "user.py", catalog) for value in ("DeepSeek-R1", "QWEN3", "qwen3", 3)] == [[]] * 4
    # the fix names the key a misspelt name meant
    [fixed] = lint(call.format("DeepSeek_R1"), "user.py", catalog)
    assert fixed.message.endswith("(did you mean 'deepseek-r1'? fixable with `sglang-lint --fix`)")


def test_a_folded_rule_leaves_its_calls_to_itself_and_the_callable_s_other_checks_run(ruleset):
    """The fails-when rule of Reasoner's other raise leaves the calls the lookup's rule reports
    to it (its violation, the value lower-cased, written as a fails-when expression reads it)."""
    _, catalog = ruleset
    call = "from sglang.parsers import Reasoner\n\nReasoner(model_type={!r}, stream=True)\n"
    [streamed] = lint(call.format("QWEN3"), "user.py", catalog)
    assert "ValueError: qwen3 does not stream" in streamed.message
    [unknown] = lint(call.format("Nope"), "user.py", catalog)
    assert "ValueError: Unsupported model type: Nope" in unknown.message


def test_an_unfolded_lookup_compares_the_value_as_it_is(ruleset):
    _, catalog = ruleset
    call = "from sglang.parsers import ToolParser\n\nToolParser([], {!r})\n"
    [finding] = lint(call.format("qwen3"), "user.py", catalog)
    assert finding.message.startswith("ToolParser(parser_name='qwen3'): ValueError: Unsupported parser: qwen3; "
                                      "expected one of 'qwen', 'llama3' (did you mean 'qwen'?")
    assert lint(call.format("Qwen"), "user.py", catalog) != []
    assert lint(call.format("qwen"), "user.py", catalog) == []


@pytest.mark.parametrize(
    "fold, problem",
    [
        ('"casefold"', "must be one of 'lower', got 'casefold'"),
        ("true", "must be a non-empty string, got True"),
    ],
)
def test_a_malformed_fold_names_the_file_and_the_field(tmp_path, ruleset, fold, problem):
    rules, _ = ruleset
    path = folded_rule(rules)
    folder = tmp_path / "rules"
    folder.mkdir()
    bad = folder / path.name
    bad.write_text(path.read_text().replace('fold = "lower"', f"fold = {fold}"))
    with pytest.raises(RuleFileError) as caught:
        load_rules([folder])
    assert (caught.value.path, caught.value.field_name, caught.value.problem) == (bad, "check[0].fold", problem)


def test_a_fold_needs_string_values(tmp_path, ruleset):
    rules, _ = ruleset
    path = folded_rule(rules)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / path.name).write_text(path.read_text().replace('values = ["deepseek-r1", "qwen3"]', "values = [1, 2]"))
    with pytest.raises(RuleFileError) as caught:
        load_rules([folder])
    assert caught.value.field_name == "check[0].fold" and "every value must be a string" in caught.value.problem
