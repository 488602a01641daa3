"""``sglang-lint server``: a Language Server Protocol server over stdio, built on pygls.

* Once initialized, the rules and the target release's tables are loaded (a small launch
  file linted in the worker thread), so the first document opened is linted at once.
* Diagnostics when a document is opened, saved, and changed (after a pause in typing:
  ``initializationOptions.debounce`` seconds, default 0.3), each with its rule code and a
  link to the rule's docs.
* Code actions: a finding's fix as a quick fix (a safe fix is the preferred one; an unsafe
  one is listed, marked so), and ``source.fixAll.sglang-lint`` (every safe fix at once).
* Configuration: ``[tool.sglang-lint]`` of the ``pyproject.toml`` nearest above each document
  (as the command finds it), read when the document is first linted.
* The sglang release(s) each document is judged against: found from its path as the command
  finds them (catalog/target.py); the project files are read again when a document is opened.

Linting never runs on the message loop: it runs in a worker thread, a newer change of the
document supersedes an older lint (a pending one is cancelled, a running one's result is
dropped), and a document that does not parse keeps its previous diagnostics (the editor
still shows what was wrong before the typo) while the server logs why.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from sglang_lint.analysis.reparse import Reparser
from sglang_lint.catalog import frameworks, target
from sglang_lint.core.model import Diagnostic, Edit, SourceError
from sglang_lint.core import verdict_log
from sglang_lint.core.places import docs_file, results_folder
from sglang_lint.core.rulefile import RuleFileError
from sglang_lint.core.version import __version__
from sglang_lint.engine.fixes import FixResult, fix_text
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import RuleSet, default_ruleset
from sglang_lint.frontends.config import (
    Config, ConfigError, find_config, known_for, load_config, ruleset_for, target_for,
)
from sglang_lint.frontends.docs import rule_anchor
from sglang_lint.frontends.indexes import new_run

SOURCE = "sglang-lint"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
log = logging.getLogger(__name__)


@dataclass
class DocumentState:
    generation: int = 0  # bumped by every open/change/save; a lint of an older one is dropped
    pending: asyncio.Task | None = None
    findings: list[Diagnostic] = field(default_factory=list)
    # the last tree: a change re-parses only the statements it touched (one worker thread uses it)
    reparser: Reparser = field(default_factory=Reparser)


class SglangLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.documents: dict[str, DocumentState] = {}
        self.debounce = 0.3
        self.docs_url = docs_file().as_uri()  # the rule docs installed with the package
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sglang-lint")
        # per configuration file: the configuration, its rules (every release), the known
        # releases, and its rules narrowed to each release target met so far
        self.rulesets: dict[Path | None, tuple[Config, RuleSet, tuple[str, ...], dict]] = {}

    def settings_for(self, path: str | None) -> tuple[Config, RuleSet]:
        """The configuration of the document at ``path`` and its rules, for the release(s) the
        document is judged against."""
        found = find_config(Path(path).parent) if path else None
        if found not in self.rulesets:
            new_run()  # (the rule files are checked again for each configuration's rules: an edit since takes effect)
            config = load_config(found) if found is not None else Config()
            self.rulesets[found] = (config, ruleset_for(config, releases=()), known_for(config), {})
        config, ruleset, known, by_releases = self.rulesets[found]
        releases = target_for(config, path, known).releases
        if releases not in by_releases:
            by_releases[releases] = ruleset.for_releases(releases)
        return config, by_releases[releases]


server = SglangLintServer()


def _path(uri: str) -> str | None:
    try:
        return to_fs_path(uri)
    except Exception:  # an unsaved buffer (untitled:) has no path
        return None


def _lint(uri: str, text: str, reparser: Reparser | None = None) -> list[Diagnostic]:
    """In the worker thread: the findings of this text, with the configuration of its path."""
    path = _path(uri)
    config, ruleset = server.settings_for(path)
    display = path or "untitled.py"
    if path and config.excluded(path):
        return []
    found = lint(text, display, ruleset, reparser=reparser)
    return config.drop_ignored(path, found) if path else found


def _fix_all(uri: str, text: str) -> FixResult | None:
    """In the worker thread: the text with every safe fix applied (None if it does not parse)."""
    path = _path(uri)
    _, ruleset = server.settings_for(path)  # may read pyproject.toml
    try:
        return fix_text(text, path or "untitled.py", ruleset)
    except SourceError:
        return None


def _range(document, line: int, col: int, end_line: int, end_col: int) -> types.Range:
    """Our 1-based lines and code-point columns, in the client's units (UTF-16 by default)."""
    server_range = types.Range(
        start=types.Position(line=line - 1, character=col), end=types.Position(line=end_line - 1, character=end_col)
    )
    return document.range_to_client_units(server_range)


_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def _to_lsp(document, diagnostic: Diagnostic) -> types.Diagnostic:
    rule = next((r for r in default_ruleset().rules if r.code == diagnostic.code), None)
    href = f"{server.docs_url}#{rule_anchor(rule)}" if rule else server.docs_url
    return types.Diagnostic(
        range=_range(document, diagnostic.line, diagnostic.col, diagnostic.end_line or diagnostic.line,
                     diagnostic.end_col or diagnostic.col),
        message=diagnostic.message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=href),
        source=SOURCE,
        data={"fix": None if diagnostic.fix is None else diagnostic.fix.to_data()},
    )


async def _lint_and_publish(ls: SglangLintServer, uri: str, generation: int, delay: float) -> None:
    if delay:
        await asyncio.sleep(delay)  # cancelled by a newer change while it waits
    state = ls.documents.get(uri)
    if state is None or state.generation != generation:
        return
    document = ls.workspace.get_text_document(uri)
    text = document.source
    try:
        found = await asyncio.get_running_loop().run_in_executor(ls.executor, _lint, uri, text, state.reparser)
    except SourceError as exc:
        ls.window_log_message(types.LogMessageParams(
            type=types.MessageType.Info, message=f"{uri}: not linted ({exc.message}); previous diagnostics kept",
        ))
        return
    except (ConfigError, RuleFileError) as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"sglang-lint: {exc}"))
        return
    if state.generation != generation or ls.documents.get(uri) is not state:
        return  # the document changed while this lint ran: a newer one publishes
    state.findings = found
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
        uri=uri, version=document.version, diagnostics=[_to_lsp(document, d) for d in found],
    ))


def _schedule(ls: SglangLintServer, uri: str, delay: float) -> None:
    state = ls.documents.setdefault(uri, DocumentState())
    state.generation += 1
    if state.pending is not None and not state.pending.done():
        state.pending.cancel()
    state.pending = asyncio.ensure_future(_lint_and_publish(ls, uri, state.generation, delay))


@server.feature(types.INITIALIZE)
def initialize(ls: SglangLintServer, params: types.InitializeParams) -> None:
    options = params.initialization_options or {}
    if isinstance(options, dict):
        ls.debounce = float(options.get("debounce", ls.debounce))
        ls.docs_url = str(options.get("docsUrl", ls.docs_url))


# What the server lints once it is initialized, in its worker thread and before any document:
# a launch in Python and an argv launch, one of them wrong, so that the rules, the target
# release's tables and the engine's path to a finding are loaded before the first file opens.
WARM_UP = ("import subprocess\nimport sys\n\nimport sglang\n\n"
           "sglang.Engine(model_path='m', tp_size=2, attention_backend='triton', port='x')\n"
           "subprocess.Popen([sys.executable, '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', '2'])\n")


@server.feature(types.INITIALIZED)
def initialized(ls: SglangLintServer, params: types.InitializedParams) -> None:
    root = ls.workspace.root_path
    uri = (Path(root) / "sglang_lint_warm_up.py").as_uri() if root else "untitled:sglang_lint_warm_up.py"
    verdict_log.keep_in(results_folder())  # (a launch judged in an earlier session is not judged again)
    ls.executor.submit(_warm_up, uri)


def _warm_up(uri: str) -> None:
    """In the worker thread: :data:`WARM_UP` linted as a file of the workspace (its findings,
    and any error, dropped: the first document reports its own)."""
    try:
        _lint(uri, WARM_UP)
    except Exception as exc:  # (a broken configuration: the documents will say so)
        log.info("warm-up not done: %s", exc)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: SglangLintServer, params: types.DidOpenTextDocumentParams) -> None:
    target.clear_cache()  # the project files may have changed since: read them again
    frameworks.clear_cache()
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: SglangLintServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule(ls, params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: SglangLintServer, params: types.DidSaveTextDocumentParams) -> None:
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SglangLintServer, params: types.DidCloseTextDocumentParams) -> None:
    state = ls.documents.pop(params.text_document.uri, None)
    if state is not None and state.pending is not None:
        state.pending.cancel()
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
)
async def code_action(ls: SglangLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    only = params.context.only or []
    actions: list[types.CodeAction] = []
    wants_quick_fixes = not only or any(kind.startswith("quickfix") for kind in only)
    if wants_quick_fixes:
        for diagnostic in params.context.diagnostics:
            fix = (diagnostic.data or {}).get("fix") if isinstance(diagnostic.data, dict) else None
            if diagnostic.source != SOURCE or not fix:
                continue
            fix = Edit.from_data(fix)
            edit = types.TextEdit(
                range=_range(document, fix.line, fix.col, fix.end_line, fix.end_col), new_text=fix.new
            )
            actions.append(types.CodeAction(
                title=f"{diagnostic.code}: replace {fix.old} with {fix.new}" + ("" if fix.safe else " (unsafe fix)"),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=fix.safe,
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            ))
    if not only or any(FIX_ALL.startswith(kind) or kind == FIX_ALL for kind in only):
        text, lines, version = document.source, document.lines, document.version
        result = await asyncio.get_running_loop().run_in_executor(ls.executor, _fix_all, uri, text)
        if ls.workspace.get_text_document(uri).version != version:
            result = None  # the document changed meanwhile: an edit of the old text would undo the typing
        if result is not None and result.changed:
            end = types.Position(line=len(lines), character=0)
            actions.append(types.CodeAction(
                title="sglang-lint: fix all safe fixes",
                kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(
                    range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=result.text,
                )]}),
            ))
    return actions


def main() -> int:
    server.start_io()
    return 0
