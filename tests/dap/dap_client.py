"""A small Debug Adapter Protocol client for a real `hale dap` process.

A thread reads framed messages (`Content-Length` headers) from the
adapter's stdout into a queue; a request waits for its response, keeping
the events that arrive meanwhile, so a test can wait for `stopped`.
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


class DapClient:
    def __init__(self, cwd: Path):
        self.proc = subprocess.Popen(
            [str(HALE), "dap"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.events: list[dict] = []
        self.seq = 0
        threading.Thread(
            target=read_frames, args=(self.proc.stdout, self.inbox), daemon=True
        ).start()

    def request(self, command: str, arguments: Any = None, timeout: float = 120) -> dict:
        """The whole response (check `success`); events meanwhile are kept."""
        self.seq += 1
        seq = self.seq
        request = {"seq": seq, "type": "request", "command": command, "arguments": arguments or {}}
        write_frame(self.proc.stdin, request)
        deadline = time.monotonic() + timeout
        while True:
            m = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.001))
            if m.get("type") == "response" and m.get("request_seq") == seq:
                return m
            self.events.append(m)

    def event(self, name: str, timeout: float = 120) -> dict:
        """The next event called `name` (kept ones first); its body."""
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("event") == name:
                    del self.events[i]
                    return e.get("body") or {}
            self.events.append(self.inbox.get(timeout=max(deadline - time.monotonic(), 0.001)))

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(60)
        self.proc.stdout.close()
        return code
