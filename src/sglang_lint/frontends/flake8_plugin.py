"""The flake8 adapter: ``flake8 --select SGL`` runs the same engine on each file.

flake8 runs every installed plugin on every file, selected or not; the engine's text
prefilter makes that cost next to nothing on files that mention no catalog API.

Each file is judged against the sglang release(s) catalog/target.py finds for it: ``--sglang-version``
(on the command line, or ``sglang-version = 0.5.6`` in flake8's ``[flake8]`` section), else
the installed sglang, else the project's pin above the file, else its container image. The
machine the launches run on, where the project declares it: ``--sglang-gpu`` / ``--sglang-platform``
(or ``sglang-gpu = H100`` in ``[flake8]``)."""

from __future__ import annotations

import ast
from typing import Iterator

from sglang_lint.core.gcpolicy import keep_for_good
from sglang_lint.core.version import __version__
from sglang_lint.frontends.indexes import rule_index

# Nothing heavy is imported until a file may call a catalog name (the compiled rule index says
# so): LibCST, the check kinds and the rule files load only then (run()).


def _release(text: str) -> str:
    """``--sglang-version``'s value, checked as the command checks it."""
    from sglang_lint.catalog.target import release_argument

    return release_argument(text)


def _machine(platform: str | None, gpu: str | None):
    """The machine ``--sglang-platform``/``--sglang-gpu`` declare (None: none); flake8 stops
    with the reason where the table does not know it."""
    if platform is None and gpu is None:
        return None
    from sglang_lint.catalog.platforms import MachineError, declared_machine

    try:
        return declared_machine(platform, gpu)
    except MachineError as error:
        raise SystemExit(f"flake8: sglang-lint: --sglang-{error.key}: {error}") from None


class SglangLintPlugin:
    name = "sglang-lint"
    version = __version__
    # The rules flake8 will report, from its own --select/--ignore (None: all of them). flake8
    # runs every installed plugin whatever is selected; with no SGL code selected this one
    # returns at once, and with a few it runs only those.
    selected: frozenset | None = None  # the selected codes (None: all)
    decide = None  # flake8's decision for a code, until select_codes has asked it
    stamp: str | None = None  # selected_stamp's answer
    sglang_version: str | None = None  # --sglang-version (or the [flake8] config's sglang-version)
    machine = None  # the machine --sglang-platform / --sglang-gpu declare (catalog/platforms.py)
    rulesets: dict = {}  # (codes, releases) -> the rule set, made once: only the rules a file needs
    index = None  # the compiled rule index, read once per process (its key costs a stat per rule file)
    cache_dir: str | None = None  # --sglang-cache-dir
    no_cache = False  # --sglang-no-cache
    cache = None  # the result cache (frontends/plugin_cache.py), opened on the first file that needs it; False: off

    @classmethod
    def loaded_index(cls):
        if cls.index is None:
            cls.index = rule_index()
        return cls.index

    @classmethod
    def add_options(cls, parser) -> None:
        parser.add_option(
            "--sglang-version", default=None, type=_release, parse_from_config=True, metavar="X",
            help="sglang-lint: judge every file against this sglang release (default: the installed "
            "sglang, else the project's pin above the file, else its container image)",
        )
        parser.add_option(
            "--sglang-platform", default=None, parse_from_config=True, metavar="NAME",
            help="sglang-lint: the platform the launches run on (cuda, rocm, npu, ...): judge the start-up "
            "checks that depend on it",
        )
        parser.add_option(
            "--sglang-gpu", default=None, parse_from_config=True, metavar="NAME",
            help="sglang-lint: the GPU the launches run on (H100, B200, MI300X, ...): judge the start-up "
            "checks that depend on it",
        )
        parser.add_option(
            "--sglang-cache-dir", default=None, parse_from_config=True, metavar="DIR",
            help="sglang-lint: where the plugin keeps what it reported for each file, by content "
            "(default: $SGLANG_LINT_CACHE_DIR/flake8, else ~/.cache/sglang-lint/results/flake8)",
        )
        parser.add_option(
            "--sglang-no-cache", default=False, action="store_true", parse_from_config=True,
            help="sglang-lint: lint every file again, neither reading nor writing the plugin's cache",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        cls.sglang_version = getattr(options, "sglang_version", None)
        cls.machine = _machine(getattr(options, "sglang_platform", None), getattr(options, "sglang_gpu", None))
        cls.cache_dir = getattr(options, "sglang_cache_dir", None)
        cls.no_cache = bool(getattr(options, "sglang_no_cache", False))
        cls.cache = None
        cls.rulesets = {}
        cls.frozen_at = 0
        cls.index = None
        cls.selected = None
        cls.stamp = None
        cls.decide = None
        try:
            from flake8.style_guide import DecisionEngine

            cls.decide = DecisionEngine(options).decision_for  # asked on first need (select_codes)
        except Exception:  # flake8's internals moved: run every rule, flake8 still filters
            cls.decide = None

    @classmethod
    def select_codes(cls) -> frozenset | None:
        """The codes flake8 will report (None: all), worked out once, for the first file that
        may call a catalog name (asking flake8 about 1,500 codes costs more than most files)."""
        if cls.decide is not None:
            decide, cls.decide = cls.decide, None
            try:
                from flake8.style_guide import Decision

                codes = cls.loaded_index().codes  # every release's rules: a target narrows them later
                selected = frozenset(code for code in codes if decide(code) is Decision.Selected)
                cls.selected = None if len(selected) == len(codes) else selected
            except Exception:
                cls.selected = None
        return cls.selected

    @classmethod
    def selected_stamp(cls) -> str:
        """The codes flake8 reports, as one string (a part of every cache key)."""
        if cls.stamp is None:
            cls.stamp = ("all" if cls.selected is None else ",".join(sorted(cls.selected))) + (
                f" on {cls.machine.shown}" if cls.machine is not None else "")
        return cls.stamp

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]):
        # Asking for ``tree`` makes this an AST plugin, which flake8 skips on files it cannot
        # parse (it reports E999 for those itself); the call-site screen reads it.
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def releases_for(cls, filename: str) -> tuple:
        """The release(s) this file is judged against (none found: empty, the newest)."""
        from sglang_lint.catalog.target import find_target

        return find_target(
            None if filename in ("stdin", "-") else filename,
            cli_version=cls.sglang_version, config_version=None, known=cls.loaded_index().releases,
        ).releases

    @classmethod
    def result_cache(cls):
        """The result cache (None: off), opened once per process."""
        if cls.cache is None:
            cls.cache = False
            if not cls.no_cache:
                import os

                from sglang_lint.core.places import results_folder
                from sglang_lint.frontends.plugin_cache import PluginCache, folder_fingerprint

                from sglang_lint.core import verdict_log

                base = cls.cache_dir or os.path.join(results_folder(), "flake8")
                cls.cache = PluginCache(os.path.join(base, folder_fingerprint(cls.loaded_index().key)))
                verdict_log.keep_in(base)  # (the launches' verdicts beside the results: cold with them)
        return cls.cache or None

    @classmethod
    def ruleset_for(cls, releases: tuple, codes: frozenset):
        """The rules ``codes`` (those whose triggers the file holds, and flake8 reports) as they
        stand for ``releases`` (:meth:`releases_for`)."""
        from sglang_lint.engine.ruletable import RuleSet, rules_of

        key = (codes, releases)
        if key not in cls.rulesets:
            if (codes, ()) not in cls.rulesets:
                cls.rulesets[codes, ()] = RuleSet(rules_of(codes, cls.loaded_index()))
            cls.rulesets[key] = cls.rulesets[codes, ()].for_releases(releases).on_machine(cls.machine)
            cls._keep_rules()
        return cls.rulesets[key]

    frozen_at = 0  # how many rule sets were made when the objects alive were last frozen

    @classmethod
    def _keep_rules(cls) -> None:
        """Freeze what is alive (gcpolicy.keep_for_good: the rules read so far) each time the
        rule sets made have doubled: a few collections in a run, not one per new set of codes
        (a thousand on sglang's tree, each scanning flake8's own objects)."""
        if len(cls.rulesets) >= 2 * cls.frozen_at:
            cls.frozen_at = len(cls.rulesets)
            keep_for_good()

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        plugin = type(self)
        try:
            # The index's prefilter holds every release's rules: a file it skips needs no
            # release found for it, no rule file read, no LibCST imported, no cache read.
            index = plugin.loaded_index()
            if not index.mentions(source):
                return
            selected = plugin.select_codes()
            if selected is not None and not selected:
                return  # no SGL code is selected: flake8 would drop everything we report
            from sglang_lint.text.pynames import module_name_for

            module = module_name_for(self.filename)  # (name, is a package): what relative imports read
            releases = plugin.releases_for(self.filename)
            cache, key = plugin.result_cache(), None
            if cache is not None:
                from sglang_lint.frontends.plugin_cache import entry_key

                key = entry_key(source, module, plugin.selected_stamp(), releases)
                reported = cache.get(key)
                if reported is not None:
                    for line, col, text in reported:
                        yield line, col, text, plugin
                    return
            reported, keep = self._lint(source, index, module, releases, selected)
        except Exception as exc:  # never stop a team's flake8 run: report and go on
            yield from self._crashed(exc)
            return
        if key is not None and keep:
            cache.put(key, reported)
        for line, col, text in reported:
            yield line, col, text, plugin

    def _lint(self, source: str, index, module, releases: tuple, selected) -> tuple[list, bool]:
        """What the plugin reports for the file, (line, column, code and message), and whether
        the cache may keep it (model.keepable)."""
        from sglang_lint.screen.prefilter import index_screen

        codes = index_screen(index).codes_for(source, module[0])
        if selected is not None:
            codes &= selected
        if not codes:
            return [], True  # a name is there, but not as any (selected) rule's trigger needs it
        from sglang_lint.core.model import SourceError, keepable
        from sglang_lint.engine.lint import lint

        ruleset = type(self).ruleset_for(releases, codes)
        if not ruleset.rules:
            return [], True
        try:
            diagnostics = lint(source, self.filename, ruleset, tree=self.tree)
        except SourceError:
            return [], True  # Python parsed it but LibCST did not: say nothing rather than guess
        return [(d.line, d.col, f"{d.code} {d.message}") for d in diagnostics], keepable({d.code for d in diagnostics})

    def _crashed(self, exc: Exception):
        from sglang_lint.core.model import CRASH_CODE

        yield 1, 0, f"{CRASH_CODE} sglang-lint failed on this file ({type(exc).__name__}: {exc})", type(self)
