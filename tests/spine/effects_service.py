"""A small service keeping its own record of effects in SQLite, by idempotency key.

Run as `python effects_service.py <db> <hold file>`; it prints `listening <port>`.
POST: the `Idempotency-Key` header's effect is done once (a row in `effects`;
a repeat answers what the first did and does nothing), and while the hold file
exists the answer waits (a test kills its caller meanwhile). GET
/…/effects/<key> answers `{"acted": true, "outcome", "detail"}` or
`{"acted": false}`: the convention the shipped HTTP service performer asks.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DB, HOLD = sys.argv[1], sys.argv[2]


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(DB, timeout=30, isolation_level=None)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, detail TEXT, posts INT)"
    )
    return conn


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        key = self.headers["Idempotency-Key"]
        with db() as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO effects VALUES (?, 'reconciled 12 entries', 1) "
                "ON CONFLICT (key) DO UPDATE SET posts = posts + 1",
                (key,),
            )
            conn.execute("COMMIT")
        deadline = time.monotonic() + 120
        while os.path.exists(HOLD) and time.monotonic() < deadline:
            time.sleep(0.05)
        self._json({"outcome": "succeeded", "detail": "reconciled 12 entries"})

    def do_GET(self) -> None:  # noqa: N802
        _, _, key = self.path.partition("/effects/")
        with db() as conn:
            row = conn.execute(
                "SELECT detail FROM effects WHERE key = ?", (urllib.parse.unquote(key),)
            ).fetchone()
        done = {"acted": True, "outcome": "succeeded", "detail": row[0]} if row else {}
        self._json(done or {"acted": False})

    def _json(self, doc: dict) -> None:
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
