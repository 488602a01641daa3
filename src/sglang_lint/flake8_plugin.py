"""The flake8 adapter: ``flake8 --select SGL`` runs the same engine on each file.

flake8 runs every installed plugin on every file, selected or not; the engine's text
prefilter makes that cost next to nothing on files that mention no catalog API."""

from __future__ import annotations

import ast
from typing import Iterator

from sglang_lint import __version__
from sglang_lint.catalog import CRASH_CODE
from sglang_lint.engine import lint
from sglang_lint.model import SourceError
from sglang_lint.ruletable import RuleSet, default_ruleset


class SglangLintPlugin:
    name = "sglang-lint"
    version = __version__
    # The rules flake8 will report, from its own --select/--ignore (None: all of them). flake8
    # runs every installed plugin whatever is selected; with no SGL code selected this one
    # returns at once, and with a few it runs only those.
    ruleset: RuleSet | None = None

    @classmethod
    def parse_options(cls, options) -> None:
        try:
            from flake8.style_guide import Decision, DecisionEngine

            decide = DecisionEngine(options).decision_for
            rules = default_ruleset().rules
            selected = [rule for rule in rules if decide(rule.code) is Decision.Selected]
        except Exception:  # flake8's internals moved: run every rule, flake8 still filters
            cls.ruleset = None
            return
        cls.ruleset = None if len(selected) == len(rules) else RuleSet(selected)

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]):
        # ``tree`` is unused, but asking for it makes this an AST plugin, which flake8
        # skips on files it cannot parse (it reports E999 for those itself).
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        ruleset = type(self).ruleset
        if ruleset is not None and not ruleset.rules:
            return  # no SGL code is selected: flake8 would drop everything we report
        try:
            diagnostics = lint("".join(self.lines), self.filename, ruleset)
        except SourceError:
            return  # Python parsed it but LibCST did not: say nothing rather than guess
        except Exception as exc:  # never stop a team's flake8 run: report and go on
            yield 1, 0, f"{CRASH_CODE} sglang-lint failed on this file ({type(exc).__name__}: {exc})", type(self)
            return
        for diagnostic in diagnostics:
            yield (
                diagnostic.line,
                diagnostic.col,
                f"{diagnostic.code} {diagnostic.message}",
                type(self),
            )
