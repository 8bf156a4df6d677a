"""Messages framed as LSP and DAP frame them: a `Content-Length` header, a
blank line, then that many bytes of JSON. The test clients of `hale lsp` and
`hale dap` read a server's stdout on a thread with `read_frames` and write
with `write_frame`."""

from __future__ import annotations

import json
import queue
from typing import IO, Any


def read_frames(out: IO[bytes], inbox: queue.Queue) -> None:
    """Every message on `out`, decoded, into `inbox`, until `out` ends."""
    while True:
        length = None
        while True:
            header = out.readline()
            if not header:
                return
            if header in (b"\r\n", b"\n"):
                break
            name, _, value = header.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        inbox.put(json.loads(out.read(length)))


def write_frame(into: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    into.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    into.flush()
