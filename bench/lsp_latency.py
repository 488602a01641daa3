"""The language server's latency, as an editor sees it: ``sglang-lint server`` over stdio,
a 2,000-line document opened, then changed again and again; the time from each change
(sent with the whole new text, as most editors do) to the diagnostics the server publishes
for it. The debounce is set to 0 so that the figure is the lint itself (the issue's target
is counted after the debounce).

The document is a file of sglang's own tree close to 2,000 lines, with a bad
``set_capture_flag_on_blocks`` call added at its end (so every change goes through LibCST and
the engine, and has a finding to place), changed in three ways: a comment line typed in the
middle of the file, the bad value itself edited at the end, and the same middle edit of the
file without the bad call (which the screen rules out before any parse). The server parses
again only the top-level statements an edit touched (analysis/reparse.py).
"""

from __future__ import annotations

import json
import queue
import statistics
import subprocess
import threading
import time
from pathlib import Path

CAPTURE = (
    "\nfrom sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.sana_wm.streaming_refiner"
    " import set_capture_flag_on_blocks\n\n\ndef _bench_capture(t):\n"
    "    set_capture_flag_on_blocks(t, mode={mode!r}, enable=True)\n"
)
MODES = ("prerope", "PRE_ROPE")  # both wrong: every change has one finding, fixed differently


class _Client:
    """Framed JSON-RPC over the server's stdin and stdout."""

    def __init__(self, command: list[str], cwd: Path):
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put((time.perf_counter(), json.loads(stream.read(length))))

    def send(self, message: dict) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        sent = time.perf_counter()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return sent

    def wait(self, wanted, timeout: float = 120) -> tuple[float, dict]:
        while True:
            arrived, message = self.inbox.get(timeout=timeout)
            if message.get("method") == "workspace/configuration" and "id" in message:
                self.send({"id": message["id"], "result": [None]})
                continue
            if wanted(message):
                return arrived, message

    def close(self) -> None:
        try:
            self.send({"id": 999_999, "method": "shutdown", "params": None})
            self.wait(lambda m: m.get("id") == 999_999, timeout=30)
            self.send({"method": "exit", "params": None})
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def _started(python: Path, folder: Path) -> _Client:
    """``sglang-lint server`` started in ``folder`` and initialized (debounce 0)."""
    client = _Client([str(python), "-m", "sglang_lint", "server"], folder)
    client.send({"id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": folder.as_uri(), "capabilities": {},
        "initializationOptions": {"debounce": 0},
    }})
    client.wait(lambda m: m.get("id") == 1)
    client.send({"method": "initialized", "params": {}})
    return client


def pick_document(tree: Path, lines: int = 2000) -> Path:
    """The file of the tree whose length is closest to ``lines`` (ties: the first by path)."""
    files = sorted((tree / "sglang").rglob("*.py"))
    return min(files, key=lambda p: (abs(p.read_bytes().count(b"\n") - lines), str(p)))


def change_latencies(python: Path, folder: Path, text_of, changes: int) -> list[float]:
    """Seconds from each ``didChange`` to its diagnostics (the first open is not counted)."""
    path = folder / "document.py"
    path.write_text(text_of(0))
    uri = path.as_uri()
    client = _started(python, folder)
    try:

        def published(version: int):
            return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri and m["params"].get("version") in (version, None))

        client.send({"method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text_of(0)}}})
        client.wait(published(1))  # the first lint loads the rules: start-up, not latency
        found = []
        for change in range(1, changes + 1):
            version = change + 1
            sent = client.send({"method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text_of(change)}]}})
            arrived, _ = client.wait(published(version))
            found.append(arrived - sent)
        return found
    finally:
        client.close()


def open_latencies(python: Path, folder: Path, text: str, runs: int) -> list[float]:
    """Seconds from a ``didOpen`` of ``text`` to its diagnostics, in a server already started
    and initialized (a new server each run: the first file an editor opens)."""
    path = folder / "launch.py"
    path.write_text(text)
    found = []
    for _ in range(runs):
        client = _started(python, folder)
        try:
            time.sleep(3)  # (the server is up and idle: what it loads before the first file is its start)
            sent = client.send({"method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}}})
            arrived, _ = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                     and m["params"]["uri"] == path.as_uri())
            found.append(arrived - sent)
        finally:
            client.close()
    return found


def lsp_rows(python: Path, tree: Path, folder: Path, changes: int = 20) -> list[tuple[str, str, float]]:
    """The benchmark's rows for the language server: (the row, its label, the median in
    milliseconds)."""
    document = pick_document(tree)
    base = document.read_text(encoding="utf-8")
    size = base.count("\n")
    lines = base.splitlines(keepends=True)
    middle = len(lines) // 2

    def typed(i: int) -> str:  # a comment line typed in the middle (legal on any line)
        return "".join(lines[:middle] + [f"# edit {i}\n"] + lines[middle:])

    rows = []
    for label, text_of in (
        (f"an edit in the middle, with a finding ({size:,} lines)", lambda i: typed(i) + CAPTURE.format(mode=MODES[0])),
        (f"the bad value edited ({size:,} lines)", lambda i: base + CAPTURE.format(mode=MODES[i % 2])),
        (f"no call a rule checks ({size:,} lines)", typed),
    ):
        times = [t * 1000 for t in change_latencies(python, folder, text_of, changes)]
        rows.append((
            f"  {'language server, change -> diagnostics, ' + label:<52} {statistics.median(times):7.0f} ms"
            f"  [{min(times):.0f}-{max(times):.0f} ms]  target <= 100 ms  ({document.relative_to(tree)})",
            label, statistics.median(times),
        ))
    return rows
