"""The language server as an editor sees it: ``sglang-lint server`` as a subprocess, driven
over stdio with raw JSON-RPC (Content-Length framed): initialize, open a bad document,
receive the diagnostic with its exact range, request code actions, apply the edit, change
the document, receive empty diagnostics, shut down cleanly."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import ROOT
from snippets import CAPTURE_IMPORT

pytest.importorskip("pygls")

BAD = (
    CAPTURE_IMPORT
    + "set_capture_flag_on_blocks(t, mode='PRE_ROPE', enable=True)\n"
    "set_capture_flag_on_blocks(t, mode='prerope', enable=True)\n"
)


class Client:
    """Just enough of an LSP client: framed JSON-RPC over the server's stdin/stdout."""

    def __init__(self, cwd: Path, args: tuple[str, ...] = ("-m", "sglang_lint", "server")):
        self.process = subprocess.Popen(
            [sys.executable, *args], cwd=cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def start(self, method: str, params) -> int:
        """Send a request without waiting for its response; its id."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def request(self, method: str, params) -> dict:
        request_id = self.start(method, params)
        return self.wait(lambda m: m.get("id") == request_id and "method" not in m)

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def shutdown(self) -> int:
        """The protocol's clean end (shutdown, then exit); the server's exit status."""
        assert self.request("shutdown", None)["result"] is None
        self.notify("exit", None)
        return self.process.wait(timeout=30)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()

    def wait(self, wanted, timeout: float = 60) -> dict:
        while True:
            message = self.inbox.get(timeout=timeout)
            if message.get("method") == "workspace/configuration" and "id" in message:
                self.send({"id": message["id"], "result": [None]})
                continue
            if wanted(message):
                return message

    def diagnostics(self, uri: str) -> list:
        return self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        )["params"]["diagnostics"]


def apply(text: str, edit: dict) -> str:
    lines = text.splitlines(keepends=True)
    start, end = edit["range"]["start"], edit["range"]["end"]
    offset = sum(len(line) for line in lines[: start["line"]]) + start["character"]
    stop = sum(len(line) for line in lines[: end["line"]]) + end["character"]
    return text[:offset] + edit["newText"] + text[stop:]


def test_a_session_from_open_to_shutdown(tmp_path: Path):
    path = tmp_path / "app.py"
    path.write_text(BAD)
    uri = path.as_uri()
    client = Client(tmp_path)
    try:
        init = client.request("initialize", {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
            "initializationOptions": {"debounce": 0.05},
        })
        capabilities = init["result"]["capabilities"]
        assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.sglang-lint"]
        client.notify("initialized", {})

        client.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BAD},
        })
        found = client.diagnostics(uri)
        assert [(d["code"], d["range"]) for d in found] == [
            ("SGL001", {"start": {"line": 1, "character": 35}, "end": {"line": 1, "character": 45}}),
            ("SGL001", {"start": {"line": 2, "character": 35}, "end": {"line": 2, "character": 44}}),
        ]
        assert found[0]["source"] == "sglang-lint" and found[0]["severity"] == 1
        href = found[0]["codeDescription"]["href"]
        assert href.startswith("file://") and href.endswith("docs/rules.md#sgl001-unsupported-capture-mode")

        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"],
            "context": {"diagnostics": found, "only": ["quickfix"]},
        })["result"]
        assert [(a["title"], a.get("isPreferred")) for a in actions] == [
            ("SGL001: replace 'PRE_ROPE' with 'pre_rope'", True),
            ("SGL001: replace 'prerope' with 'pre_rope' (unsafe fix)", False),
        ]
        fix_all = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"],
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        })["result"]
        assert [a["kind"] for a in fix_all] == ["source.fixAll.sglang-lint"]
        assert "'prerope'" in fix_all[0]["edit"]["changes"][uri][0]["newText"]  # safe fixes only

        text = BAD
        for action in actions:  # what the editor does when the user picks them
            (edit,) = action["edit"]["changes"][uri]
            text = apply(text, edit)
        assert text.count("'pre_rope'") == 2
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}],
        })
        assert client.diagnostics(uri) == []

        # A change that does not parse (a call to judge, and a half-typed line): no crash, the
        # last diagnostics stay (nothing is published), and the log says why.
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": BAD + "def (\n"}],
        })
        log = client.wait(lambda m: m.get("method") in ("window/logMessage", "textDocument/publishDiagnostics"))
        assert log["method"] == "window/logMessage" and "not linted (cannot parse" in log["params"]["message"]
        assert client.process.poll() is None

        assert client.shutdown() == 0
    finally:
        client.kill()


def test_the_option_spelling_starts_the_server_beside_a_folder_named_server(tmp_path: Path):
    # what the editor configurations run: --server never lints a path, even one named server
    (tmp_path / "server").mkdir()
    client = Client(tmp_path, ("-m", "sglang_lint", "--server"))
    try:
        init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert "codeActionProvider" in init["result"]["capabilities"]
        assert client.shutdown() == 0
    finally:
        client.kill()


def test_rapid_changes_publish_only_the_newest(tmp_path: Path):
    path = tmp_path / "app.py"
    uri = path.as_uri()
    client = Client(tmp_path)
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                                      "initializationOptions": {"debounce": 0.3}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"},
        })
        assert client.diagnostics(uri) == []
        for version in range(2, 12):  # typing: each change supersedes the last
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": BAD if version == 11 else f"x = {version}\n"}],
            })
        published = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        assert published["params"]["version"] == 11 and len(published["params"]["diagnostics"]) == 2
        with pytest.raises(queue.Empty):  # and nothing for the superseded versions
            client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=1.0)
        assert client.shutdown() == 0
    finally:
        client.kill()


SLOW = 1.0  # seconds each fix-all computation takes in the server below
SLOW_SERVER = f"""
import sys, time
import sglang_lint.frontends.server as server
fix_text = server.fix_text
def slow_fix_text(*args, **kwargs):
    time.sleep({SLOW})
    return fix_text(*args, **kwargs)
server.fix_text = slow_fix_text
sys.exit(server.main())
"""


def test_a_slow_fix_all_does_not_block_other_requests(tmp_path: Path):
    path = tmp_path / "app.py"
    path.write_text(BAD)
    uri = path.as_uri()
    client = Client(tmp_path, ("-c", SLOW_SERVER))
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BAD},
        })
        found = client.diagnostics(uri)
        # Fix-all lints (slowly); quick fixes come from the diagnostics' data and never lint.
        fix_all_id = client.start("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"],
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        })
        quick_fix_id = client.start("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"],
            "context": {"diagnostics": found, "only": ["quickfix"]},
        })
        is_response = lambda m: "id" in m and "method" not in m  # noqa: E731
        first = client.wait(is_response)
        second = client.wait(is_response)
        # the quick fix, asked after the slow fix-all, is answered first: it waited for nothing
        assert (first["id"], second["id"]) == (quick_fix_id, fix_all_id)
        assert [a["kind"] for a in first["result"]] == ["quickfix", "quickfix"]
        (action,) = second["result"]
        assert action["kind"] == "source.fixAll.sglang-lint"
        (edit,) = action["edit"]["changes"][uri]
        assert apply(BAD, edit) == BAD.replace("'PRE_ROPE'", "'pre_rope'")  # the safe fix only

        # A change while fix-all runs: its edit (of the old text) would undo the typing; none is offered.
        fix_all_id = client.start("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"],
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        })
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": BAD + "x = 1\n"}],
        })
        assert client.wait(lambda m: m.get("id") == fix_all_id and "method" not in m)["result"] == []

        assert client.shutdown() == 0
    finally:
        client.kill()


def test_a_rule_file_edited_while_the_server_runs_is_read_for_the_next_configuration(tmp_path: Path, monkeypatch):
    """The server lives across many configurations: each one's rules are checked against the
    rule files as they are then (frontends/indexes.py keeps an index for a run), so a rule
    file broken after the first project opened is reported for the next, naming the file."""
    from sglang_lint.core.rulefile import RuleFileError
    from sglang_lint.frontends.server import SglangLintServer

    monkeypatch.setenv("SGLANG_LINT_CACHE", str(tmp_path / "cache"))
    team = tmp_path / "team_rules"
    team.mkdir()
    rule = (ROOT / "rules" / "SGL001-unsupported-capture-mode.toml").read_text()
    path = team / "SGL950-team-capture-mode.toml"
    path.write_text(rule.replace('code = "SGL001"', 'code = "SGL950"').replace(
        'name = "unsupported-capture-mode"', 'name = "team-capture-mode"'))
    for project in ("a", "b"):
        (tmp_path / project).mkdir()
        (tmp_path / project / "pyproject.toml").write_text(
            f"[tool.sglang-lint]\nextra-rules = [\"{team}\"]\n")
    server = SglangLintServer()
    server.settings_for(str(tmp_path / "a" / "app.py"))
    path.write_text(path.read_text().replace('values = ["pre_rope", "post_rope"]', 'values = "pre_rope"'))
    with pytest.raises(RuleFileError, match="SGL950-team-capture-mode.toml"):
        server.settings_for(str(tmp_path / "b" / "app.py"))


def _first_diagnostics(folder: Path, fixture: Path, name: str, language: str = "python") -> list:
    """The diagnostics a server started in ``folder`` publishes for the fixture's text opened
    there as ``name`` (a document of ``language``); the server shut down cleanly."""
    source = fixture.read_text(encoding="utf-8")
    path = folder / name
    path.write_text(source)
    client = Client(folder)
    try:
        client.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {
            "textDocument": {"uri": path.as_uri(), "languageId": language, "version": 1, "text": source},
        })
        found = client.diagnostics(path.as_uri())
        assert client.shutdown() == 0
        return found
    finally:
        client.kill()


@pytest.mark.parametrize("name, language", [("launch.sh", "shellscript"), ("README.md", "markdown"),
                                            ("docker-compose.yml", "yaml")])
def test_the_server_reads_launch_commands_in_shell_markdown_and_yaml(tmp_path: Path, name: str, language: str):
    # the example project's files, with its pin (sglang 0.5.19): what the command prints for them
    example = ROOT / "examples" / "serving-project"
    shutil.copy(example / "pyproject.toml", tmp_path)
    found = _first_diagnostics(tmp_path, example / name, name, language)
    printed = (ROOT / "tests" / "fixtures" / "examples" / "serving-project.out").read_text(encoding="utf-8")
    prefix = f"examples/{example.name}/{name}:"
    mine = [line.split(" ", 2)[:2] for line in printed.splitlines() if line.startswith(prefix)]
    expected = [(int(place.split(":")[1]), int(place.split(":")[2]), code) for place, code in mine]
    assert expected  # (the example has findings in each of these files)
    start = [(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"]) for d in found]
    assert start == expected


def test_a_deprecated_value_sglang_still_takes_is_a_warning(tmp_path: Path):
    found = _first_diagnostics(tmp_path, ROOT / "tests" / "fixtures" / "severity" / "deprecated_values.py", "serve.py")
    # LSP: 1 error, 2 warning
    assert [(d["code"], d["range"]["start"]["character"], d["severity"]) for d in found] == [
        ("SGL011", 67, 2), ("SGL009", 76, 1),
    ]


def test_the_server_loads_its_rules_before_the_first_document(tmp_path: Path):
    """Once initialized, the worker thread lints a small launch file of the workspace: the
    rules narrowed to its release target are made before any document is opened, nothing is
    written, and its findings go nowhere."""
    from sglang_lint.checks.server_args.startup import load_startup
    from sglang_lint.frontends import server as lsp

    lsp.server.rulesets.clear()
    load_startup.cache_clear()
    lsp._warm_up((tmp_path / "sglang_lint_warm_up.py").as_uri())
    assert list(lsp.server.rulesets) == [None]  # (no pyproject.toml above the folder)
    assert lsp.server.rulesets[None][3]  # the rules of the target release(s)
    assert load_startup.cache_info().currsize == 1  # the start-up table, read
    assert list(tmp_path.iterdir()) == [] and lsp.server.documents == {}


def test_the_editor_judges_the_checks_that_need_the_gpu_the_project_declares(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.sglang-lint]\nsglang-version = "0.5.6"\ngpu = "H100"\n')
    found = _first_diagnostics(tmp_path, ROOT / "tests" / "fixtures" / "platform" / "0.5.6" / "engine.py", "engine.py")
    assert [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in found] == [
        ("SGL012", 3, 64)]
    assert 'on the declared gpu = "H100"' in found[0]["message"]
