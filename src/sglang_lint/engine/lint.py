"""``lint(source, path)``: one file through the stages, each in its own module.

1. **Prefilter** (screen/prefilter.py, screen/calls.py): is any catalog name called here in a way a rule
   could judge? Almost no file of a large tree is; those are never parsed.
2. **Parse** (analysis/source.py): decode, size limit, one LibCST parse.
3. **Walk** (analysis/walk.py): one pass over the tree with three collectors: the bindings
   (analysis/bindings.py, read by the resolver in analysis/resolve.py), the guards in force and the negative
   tests (analysis/guards.py), and the sites the rule table names (analysis/sites.py).
4. **Dispatch** (engine/dispatch.py): each site against the entries of the rule table (engine/ruletable.py),
   whose check kinds (checks/) judge it; values are followed through wrappers, config fields
   and subclasses (engine/reach.py).
5. **Diagnostics** (engine/diagnostics.py): positions, fixes as text edits, then ``# noqa`` (text/noqa.py).
"""

from __future__ import annotations

import ast
import functools

from sglang_lint.analysis.bindings import BindingCollector, FileBindings
from sglang_lint.analysis.guards import GuardCollector
from sglang_lint.analysis.positions import ast_layout
from sglang_lint.analysis.resolve import FileModel
from sglang_lint.analysis.sites import SiteCollector
from sglang_lint.analysis.source import MAX_PARSE_BYTES, check_size, decode_source, decode_with_encoding, parse
from sglang_lint.analysis.walk import walk
from sglang_lint.core import verdict_log
from sglang_lint.core.gcpolicy import few_collections
from sglang_lint.core.model import Diagnostic, Edit, SourceError
from sglang_lint.engine.diagnostics import diagnostics as to_diagnostics
from sglang_lint.engine.dispatch import Dispatcher
from sglang_lint.engine.launch_files import analyse_launch_file
from sglang_lint.engine.ruletable import RuleSet, default_ruleset
from sglang_lint.launch.paths import is_launch_file
from sglang_lint.screen.prefilter import SKIPPED_BY_SCREEN, SKIPPED_NO_NAME
from sglang_lint.text.noqa import filter_noqa
from sglang_lint.text.pynames import LINE_END, module_name_for

PARSED = "parsed with LibCST"

__all__ = [
    "Diagnostic", "Edit", "SourceError", "RuleSet", "default_ruleset", "lint", "analyse", "parse",
    "decode_source", "decode_with_encoding", "LINE_END", "MAX_PARSE_BYTES", "PARSED", "SKIPPED_NO_NAME",
    "SKIPPED_BY_SCREEN",
]


def lint(
    source: str | bytes,
    path: str | None = None,
    ruleset: RuleSet | None = None,
    noqa: bool = True,
    tree=None,
    reparser=None,
) -> list[Diagnostic]:
    """Lint one file's text. Raises :class:`SourceError` when it cannot be parsed.

    ``path`` names the file (it decides the module name, which relative imports inside
    the sglang package need); nothing is read from it. ``noqa``: leave out what a
    ``# noqa`` comment silences (see text/noqa.py). ``tree``: the file's :mod:`ast` when the
    caller has it (flake8): the call-site screen reads it instead of parsing again.
    ``reparser``: the document's :class:`~sglang_lint.analysis.reparse.Reparser` (the language server),
    which parses again only the statements an edit touched."""
    return analyse(source, path, ruleset, noqa, tree, reparser)[0]


def analyse(
    source: str | bytes,
    path: str | None = None,
    ruleset: RuleSet | None = None,
    noqa: bool = True,
    tree=None,
    reparser=None,
) -> tuple[list[Diagnostic], str]:
    """:func:`lint`, and how far the file went: why it was skipped, or :data:`PARSED`."""
    try:
        with few_collections():
            return _analyse(source, path, ruleset, noqa, tree, reparser)
    finally:
        verdict_log.flush()  # (after each file: a worker may end without running atexit)


def _analyse(source, path, ruleset, noqa, tree, reparser) -> tuple[list[Diagnostic], str]:
    ruleset = ruleset or default_ruleset()
    head = source[:256] if isinstance(source, bytes) else source[:256].encode("utf-8", "replace")
    if is_launch_file(path, head):
        return _launch_file(source, path, ruleset, noqa)
    text = decode_source(source) if isinstance(source, bytes) else source
    if tree is None and reparser is not None:
        tree = reparser.ast_chunks  # the screen's ast of the document, parsed again only where it changed
    module, is_package = module_name_for(path)
    skipped = ruleset.skip_reason(source, module, tree, is_package)
    if skipped is not None:
        return [], skipped  # (before anything of LibCST is needed: core/lazycst.py)
    check_size(len(source) if isinstance(source, bytes) else len(text.encode("utf-8", "surrogatepass")))
    return _analyse_parsed(text, FileBindings.for_path(path), ruleset, noqa, reparser, tree)


def _analyse_parsed(text: str, facts, ruleset: RuleSet, noqa: bool, reparser, tree) -> tuple[list[Diagnostic], str]:
    module = parse(text) if reparser is None else reparser.parse(text)
    # where each top-level statement is, should a position be asked: from the reparse, else
    # from Python's ast of the text (flake8's, when it gave one)
    layout = reparser.layout if reparser is not None else functools.partial(
        ast_layout, text, module, tree if isinstance(tree, ast.Module) else None)

    bindings = BindingCollector(facts)
    guards = GuardCollector(bindings)
    sites = SiteCollector(ruleset, bindings, guards)
    model = sites.model = FileModel(facts, module, layout)
    try:
        walk((bindings, guards, sites), module)
    except RecursionError as exc:
        raise SourceError("too deeply nested to analyse") from exc
    dispatcher = Dispatcher(ruleset, sites, guards)
    dispatcher.run()
    found = to_diagnostics(model, dispatcher.reported, dispatcher.crashed)
    if noqa and found:
        found = filter_noqa(found, LINE_END.split(text), text)
    return found, PARSED


def _launch_file(source: str | bytes, path: str, ruleset: RuleSet, noqa: bool) -> tuple[list[Diagnostic], str]:
    """A shell script, Markdown or YAML file: its sglang launch commands (engine/launch_files.py)."""
    if isinstance(source, bytes):
        check_size(len(source))
        try:
            source = source.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SourceError(f"not UTF-8 (byte {exc.start}): not analysed") from exc
    return analyse_launch_file(source, path, ruleset, noqa)
