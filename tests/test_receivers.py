"""Method rules fire only on receivers shown to be of sglang's class.

* the deriver writes every method target with its receivers: the class that defines the method
  and the sglang classes below it that run that definition (derive/reading/hierarchy.py);
* the engine takes as evidence ``self`` in such a class, a call that makes one (the class, or a
  function annotated to return one), an annotated parameter, ``self.x`` the class annotates or
  assigns from evidence, a name bound once to evidence; anything else is no call of the rule's;
* the shipped catalog: no derived method target without receivers.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, expected_findings, findings_of, run_flake8
from sglang_lint import lint
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.source.tree import read_module
from sglang_lint.engine.ruletable import RuleSet, default_rules, load_rules

FIXTURE = ROOT / "tests" / "fixtures" / "families" / "receivers.py"
UNSCREENED = RuleSet(default_rules(), screen=False)


def test_the_fixture_through_the_engine_and_flake8():
    expected = expected_findings(FIXTURE)
    assert len(expected) == 9
    source = FIXTURE.read_text(encoding="utf-8")
    diagnostics = lint(source, str(FIXTURE))
    assert {(d.line, d.col + 1, d.code) for d in diagnostics} == expected
    # the prefilter and the call-site screen hide none of them
    assert lint(source, str(FIXTURE), UNSCREENED) == diagnostics
    result = run_flake8("--select", "SGL", str(FIXTURE.relative_to(ROOT)), cwd=ROOT)
    assert findings_of(result.stdout.splitlines()) == expected, result.stdout + result.stderr


def _lint(source: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in lint(textwrap.dedent(source), "user.py") if d.code]


IMPORT = "from sglang.multimodal_gen.runtime.models.dits.glm_image import GlmImageKVCache\n"


def test_a_name_bound_to_self_attribute_assigned_from_an_annotated_parameter():
    # sglang's own shape: ``refiner = self.refiner`` where __init__ stored an annotated parameter
    source = IMPORT + textwrap.dedent("""
        class Runner:
            def __init__(self, cache: GlmImageKVCache):
                self.cache = cache

            def run(self):
                cache = self.cache
                cache.set_mode("transformers")
        """)
    assert _lint(source) == [(9, "SGL2713")]
    unannotated = source.replace("cache: GlmImageKVCache", "cache")
    assert _lint(unannotated) == []


def test_an_attribute_assigned_anything_else_somewhere_in_the_class_is_unknown():
    source = IMPORT + textwrap.dedent("""
        class Runner:
            def __init__(self, layers):
                self.cache = GlmImageKVCache(layers)

            def reset(self, other):
                self.cache = other

            def run(self):
                self.cache.set_mode("transformers")
        """)
    assert _lint(source) == []
    assert _lint(source.replace("self.cache = other", "self.cache = GlmImageKVCache(2)")) == [(11, "SGL2713")]
    # unpacked or augmented: no one value to read
    assert _lint(source.replace("self.cache = other", "self.cache, self.n = other")) == []


def test_a_name_bound_twice_or_to_an_unknown_call_is_no_evidence():
    source = IMPORT + textwrap.dedent("""
        def f(flag, make):
            cache = GlmImageKVCache(2)
            if flag:
                cache = make()
            cache.set_mode("transformers")
            made = make()
            made.set_mode("transformers")
        """)
    assert _lint(source) == []


def test_a_union_counts_only_when_every_member_but_none_is_the_class():
    for annotation, expected in [
        ("GlmImageKVCache", [(5, "SGL2713")]),
        ("Optional[GlmImageKVCache]", [(5, "SGL2713")]),
        ("Union[GlmImageKVCache, None]", [(5, "SGL2713")]),
        ("GlmImageKVCache | None", [(5, "SGL2713")]),
        ("'GlmImageKVCache'", [(5, "SGL2713")]),
        ("Union[GlmImageKVCache, Template]", []),
        ("list[GlmImageKVCache]", []),
        ("Template", []),
    ]:
        source = IMPORT + "from typing import Optional, Union\n" + textwrap.dedent(f"""
            def f(cache: {annotation}):
                cache.set_mode("transformers")
            """)
        assert _lint(source) == expected, annotation


def _hierarchy(sources: dict[str, str]) -> Hierarchy:
    modules = [read_module(name, Path(name.replace(".", "/") + ("/__init__.py" if "." not in name else ".py")),
                           textwrap.dedent(text)) for name, text in sources.items()]
    return Hierarchy(modules)


def test_the_receivers_are_the_class_and_the_subclasses_that_run_its_method():
    hierarchy = _hierarchy({
        "sglang.base": """
            class Base:
                def set_mode(self, mode): ...

            class Child(Base): ...

            class Override(Base):
                def set_mode(self, mode): ...

            class BelowOverride(Override): ...
            """,
        "sglang.more": """
            import torch.nn as nn
            from sglang.base import Child, Base
            from sglang import Exported

            class GrandChild(Child): ...

            class MixinFirst(nn.Module, Base): ...  # nn.Module may define it: not certain

            class Mixin:
                def set_mode(self, mode): ...

            class ShadowedByMixin(Mixin, Base): ...

            class FromThePackage(Exported): ...
            """,
        "sglang": "from sglang.base import Child as Exported\n",
    })
    assert hierarchy.receivers("sglang.base.Base", "set_mode") == (
        "sglang.base.Base", "sglang.base.Child", "sglang.more.FromThePackage", "sglang.more.GrandChild")
    assert hierarchy.receivers("sglang.base.Override", "set_mode") == (
        "sglang.base.Override", "sglang.base.BelowOverride")


def test_no_derived_method_target_goes_without_receivers():
    rules = load_rules([ROOT / "rules"])
    bare = sorted({rule.code for rule in rules if rule.derived_key
                   for check in rule.checks for target in check.targets
                   if target.kind == "method" and not target.receivers})
    assert bare == []
    # the curated one left on the method name alone: sglang's own capture protocol (see its rule file)
    assert sorted({rule.code for rule in rules if not rule.derived_key for check in rule.checks
                   for target in check.targets if target.kind == "method" and not target.receivers
                   and check.kind != "guarded-member"}) == ["SGL004"]


@pytest.mark.parametrize("other_write, found", [
    ("self.cache = GlmImageKVCache(2)", True),
    ("self.cache: GlmImageKVCache = make()", True),  # the annotation is the evidence
    ("self.cache = make()", False),
    ("self.cache, self.n = make()", False),  # unpacked
    ("[self.cache, *rest] = make()", False),
    ("self.cache += make()", False),  # augmented
    ("for self.cache in make(): pass", False),  # a loop target
    ("with make() as self.cache: pass", False),  # a ``with`` target
    ("self.other = make()", True),  # another attribute
    ("class Inner:\n            def f(self):\n                self.cache = make()", True),  # another class's self
])
def test_every_form_that_assigns_the_attribute_in_the_class_is_read(other_write, found):
    source = IMPORT + textwrap.dedent("""
        class Runner:
            def __init__(self, layers):
                self.cache = GlmImageKVCache(layers)

            def reset(self, make):
                OTHER

            def run(self):
                self.cache.set_mode("transformers")
        """).replace("OTHER", other_write)
    line = source.splitlines().index('        self.cache.set_mode("transformers")') + 1
    assert _lint(source) == ([(line, "SGL2713")] if found else [])


def test_a_class_is_walked_once_for_all_its_attributes(monkeypatch):
    from sglang_lint.analysis import resolve

    walked = []
    real = resolve._self_assignments
    monkeypatch.setattr(resolve, "_self_assignments", lambda cls: walked.append(cls.name.value) or real(cls))
    source = IMPORT + textwrap.dedent("""
        class Runner:
            def __init__(self, layers):
                self.cache = GlmImageKVCache(layers)
                self.spare = GlmImageKVCache(layers)

            def run(self):
                self.cache.set_mode("transformers")
                self.spare.set_mode("transformers")
        """)
    assert _lint(source) == [(9, "SGL2713"), (10, "SGL2713")]
    assert walked == ["Runner"]
