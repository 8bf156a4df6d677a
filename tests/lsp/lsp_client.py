"""A small LSP client speaking JSON-RPC to a real `hale lsp` process.

A thread reads the server's stdout, frame by frame (`Content-Length`
headers), into a queue; requests wait for the response with their id,
keeping the notifications that arrive meanwhile, so a test or a bench can
wait for the diagnostics published after an edit.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from support.framing import read_frames, write_frame

HALE = Path(sys.executable).with_name("hale")


class LspClient:
    def __init__(self, cwd: Path, argv: list[str] | None = None):
        self.proc = subprocess.Popen(
            argv or [str(HALE), "lsp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.notes: list[dict] = []
        self.next_id = 0
        threading.Thread(
            target=read_frames, args=(self.proc.stdout, self.inbox), daemon=True
        ).start()

    def send(self, message: dict) -> None:
        write_frame(self.proc.stdin, {"jsonrpc": "2.0", **message})

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.001))
            if message.get("id") == rid and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            self._keep(message)

    def _keep(self, message: dict) -> None:
        if "id" in message and "method" in message:  # a request from the server
            self.send({"id": message["id"], "result": None})
        else:
            self.notes.append(message)

    def diagnostics(self, uri: str, timeout: float = 30) -> list[dict]:
        """The next diagnostics published for `uri` (kept ones first)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, note in enumerate(self.notes):
                if (
                    note.get("method") == "textDocument/publishDiagnostics"
                    and note["params"]["uri"] == uri
                ):
                    del self.notes[i]
                    return note["params"]["diagnostics"]
            self._keep(self.inbox.get(timeout=max(deadline - time.monotonic(), 0.001)))

    def drop_notes(self) -> None:
        while not self.inbox.empty():
            self._keep(self.inbox.get())
        self.notes.clear()

    # --- the usual conversation ---------------------------------------------------------

    def initialize(self, root: Path) -> dict:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, file: Path, text: str | None = None) -> str:
        uri = file.resolve().as_uri()
        text = file.read_text() if text is None else text
        item = {"uri": uri, "languageId": "hale", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def at(self, method: str, uri: str, line: int, character: int, **extra) -> Any:
        """A position request; line and character count from 0, as LSP's do."""
        params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
        return self.request(method, {**params, **extra})

    def close(self) -> int:
        """Shut the server down as an editor does; its exit code."""
        self.request("shutdown", None, timeout=10)
        self.notify("exit", None)
        code = self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()
        return code
