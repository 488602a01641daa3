"""The compiled rule index (catalog/index.py) built from the rule files: the catalog loaded in
full with the check kinds, each rule's triggers written down as plain data. The index module
asks for this function only when no kept index matches the rule files."""

from __future__ import annotations

from pathlib import Path

from sglang_lint.catalog.target import known_releases
from sglang_lint.engine.ruletable import load_rules, rule_triggers
from sglang_lint.text.words import AnyIdentifier, Identifier


def build(dirs) -> tuple:
    """(trigger names, (codes, triggers by name, rule files, releases, launch codes)) from the
    rule files: the catalog loaded in full (and validated: a malformed rule file raises here)."""
    rules = load_rules([Path(d) for d in dirs])
    triggers = []
    for rule in rules:
        for trigger in rule_triggers([rule]):
            also = tuple(("w" if isinstance(word, Identifier) else "s", str(word)) if isinstance(word, str)
                         else ("a", tuple(word)) if isinstance(word, AnyIdentifier)
                         else ("r", word.pattern, word.flags) for word in trigger.also)
            triggers.append((trigger.name, trigger.shape, also, trigger.module, rule.code))
    grouped: dict[bytes, tuple] = {}
    for trigger in triggers:  # (in the rules' order, within each name)
        grouped[trigger[0].encode()] = grouped.get(trigger[0].encode(), ()) + (trigger,)
    paths = tuple(str(rule.path) for rule in rules)
    launch = tuple(rule.code for rule in rules if any(check.kind == "server-args" for check in rule.checks))
    return frozenset(grouped), (tuple(rule.code for rule in rules), grouped, paths, known_releases(rules), launch)
