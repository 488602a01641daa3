"""The flake8 adapter: ``flake8 --select SGL`` runs the same engine on each file.

flake8 runs every installed plugin on every file, selected or not; the engine's text
prefilter makes that cost next to nothing on files that mention no catalog API.

Each file is judged against the sglang release(s) target.py finds for it: ``--sglang-version``
(on the command line, or ``sglang-version = 0.5.6`` in flake8's ``[flake8]`` section), else
the installed sglang, else the project's pin above the file."""

from __future__ import annotations

import ast
from typing import Iterator

from sglang_lint import __version__
from sglang_lint.catalog import CRASH_CODE
from sglang_lint.engine import lint
from sglang_lint.model import SourceError
from sglang_lint.pynames import module_name_for
from sglang_lint.ruletable import RuleSet, default_ruleset
from sglang_lint.target import find_target, known_releases, release_argument


class SglangLintPlugin:
    name = "sglang-lint"
    version = __version__
    # The rules flake8 will report, from its own --select/--ignore (None: all of them). flake8
    # runs every installed plugin whatever is selected; with no SGL code selected this one
    # returns at once, and with a few it runs only those.
    ruleset: RuleSet | None = None
    sglang_version: str | None = None  # --sglang-version (or the [flake8] config's sglang-version)
    by_releases: dict = {}  # the rule set of each release target, made once

    @classmethod
    def add_options(cls, parser) -> None:
        parser.add_option(
            "--sglang-version", default=None, type=release_argument, parse_from_config=True, metavar="X",
            help="sglang-lint: judge every file against this sglang release (default: the installed "
            "sglang, else the project's pin above the file)",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        cls.sglang_version = getattr(options, "sglang_version", None)
        cls.by_releases = {}
        try:
            from flake8.style_guide import Decision, DecisionEngine

            decide = DecisionEngine(options).decision_for
            rules = default_ruleset().catalog  # every release's rules: a target narrows them later
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

    @classmethod
    def ruleset_for(cls, filename: str) -> RuleSet | None:
        """The selected rules for the release(s) this file is judged against (None: every
        rule, as they stand in the newest release)."""
        target = find_target(
            None if filename in ("stdin", "-") else filename,
            cli_version=cls.sglang_version, config_version=None, known=known_releases(),
        )
        if not target.releases:
            return cls.ruleset
        if target.releases not in cls.by_releases:
            base = cls.ruleset if cls.ruleset is not None else default_ruleset()
            cls.by_releases[target.releases] = base.for_releases(target.releases)
        return cls.by_releases[target.releases]

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        ruleset = type(self).ruleset
        if ruleset is not None and not ruleset.rules:
            return  # no SGL code is selected: flake8 would drop everything we report
        source = "".join(self.lines)
        try:
            # The prefilter's names are the same for every release: a file it skips needs no
            # release found for it (no walk for a pin, no metadata read).
            if not (ruleset or default_ruleset()).may_match_any_release(source, module_name_for(self.filename)[0]):
                return
            ruleset = type(self).ruleset_for(self.filename)
            diagnostics = lint(source, self.filename, ruleset)
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
