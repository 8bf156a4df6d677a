"""The face served on loopback: pages from templates, live by server-sent events.

A ThreadingHTTPServer answers each request on its own thread; every read of
the record and of the executions table happens under one lock, over one
Record this process opened. While an event stream is open, a watcher thread
asks the record for its end every tick (`TICK_S`); when rows landed it
feeds the executions table and wakes every open stream, which sends
`event: rows` with the new end (with none open it sleeps; each page read
catches up first).
The page's script then fetches the page again and swaps its live part, so a
row shows within a tick of landing, with no reload.

The door: a token made at start (or given) travels once in the URL
(`/?token=…`, as Jupyter's does); the answer sets it as an HttpOnly,
SameSite=Strict cookie and redirects to the same page without it. Every
request, pages, assets and events alike, without that cookie (or the token
in its URL) is answered 401 before anything is read. A POST (an act) also
needs the page's CSRF field (an HMAC of the token) and, when the browser
sends one, an Origin of this server. Every answer carries a
Content-Security-Policy of `default-src 'self'` with no inline script, and
everything the pages load ships in the package. Tokens are compared in
constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
import threading
import time
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from hale_runtime.face import acts, views
from hale_runtime.face.executions import STATES, WINDOWS, Executions, Filter
from hale_runtime.quiet_http import QuietHTTPServer

TICK_S = 0.25
KEEPALIVE_S = 15.0
COOKIE = "hale_face_{port}"  # cookies are not kept per port: each face names its own
MAX_FORM = 64 * 1024
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
STATIC = {"face.js": "text/javascript", "face.css": "text/css"}
NO_TOKEN = (
    "refused: the face admits only whoever started it: open the address `hale dna face` "
    "printed (with its ?token=)"
)


class FaceServer:
    """The face over the project at `root`: `start()` serves, `stop()` ends it."""

    def __init__(
        self, root: Path, port: int = 0, host: str = "127.0.0.1", token: str | None = None
    ):
        from hale_runtime.record import Record

        self.root = Path(root)
        self.token = token or secrets.token_urlsafe(32)
        self.csrf = hmac.new(self.token.encode(), b"csrf", hashlib.sha256).hexdigest()
        self.record = Record.open(self.root)
        self.executions = Executions(self.record.repo.path)
        self.genome = views.Genome(self.root)
        self.lock = threading.Lock()
        self.changed = threading.Condition()
        self.seq = 0
        self.listeners = 0  # event streams open
        self.stopping = False
        self.http = QuietHTTPServer((host, port), _handler(self))
        self.address = f"http://{host}:{self.http.server_address[1]}"
        self.cookie = COOKIE.format(port=self.http.server_address[1])
        self.threads: list[threading.Thread] = []

    @functools.cached_property
    def templates(self) -> Any:
        """Jinja's environment, made at the first page: `hale dna dev` serves the face
        beside a starting node, which should not wait for Jinja's import."""
        from jinja2 import Environment, PackageLoader, select_autoescape

        templates = Environment(
            loader=PackageLoader("hale_runtime.face", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
        )
        templates.filters.update(when=_when, took=_took)
        return templates

    @property
    def url(self) -> str:
        """Where to open the face: its address with the token, once."""
        return f"{self.address}/?token={self.token}"

    def start(self) -> str:
        """Serve; the listing fills in the background (a first start over a long
        record reads its admissions once), and a page waits for it."""
        threads = (("face-fill", self._catch_up), ("face-watch", self._watch),
                   ("face-http", self.http.serve_forever))  # fmt: skip
        for name, target in threads:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)
        return self.url

    def stop(self) -> None:
        self.stopping = True
        with self.changed:
            self.changed.notify_all()
        self.http.shutdown()
        self.http.server_close()

    def _watch(self) -> None:
        """Every tick while a page listens: has the record moved? If so, feed the
        listing and wake the streams. With no page open it sleeps (a node's face
        costs nothing idle); a page read catches the listing up itself."""
        while not self.stopping:
            with self.changed:
                while self.listeners == 0 and not self.stopping:
                    self.changed.wait()
            time.sleep(TICK_S)
            try:
                self._catch_up()
            except Exception:  # a record mid-sync: the next tick reads it again
                continue

    def _catch_up(self) -> None:
        """Feed the listing the rows landed; wake the streams when there were any."""
        with self.lock:
            end = self.executions.catch_up(self.record)
        if end != self.seq:
            with self.changed:
                self.seq = end
                self.changed.notify_all()

    # ---- pages ----------------------------------------------------------------------

    def page(self, path: str, query: dict[str, str]) -> tuple[int, str]:
        """(status, HTML) of a page."""
        now = int(time.time() * 1000)
        self._catch_up()  # the page says the row it was read at (`seq`)
        if path == "/":
            f = Filter.of(query)
            with self.lock:
                rows = self.executions.page(f, now)
                definitions = self.executions.definitions()
            more = None
            if len(rows) == 50:
                more = urlencode({**{k: v for k, v in query.items() if k != "before"},
                                  "before": rows[-1].n})  # fmt: skip
            return 200, self.render("executions.html", "executions", rows=rows, f=f,
                                    states=STATES, windows=WINDOWS, definitions=definitions,
                                    more=more, query=query)  # fmt: skip
        if path.startswith("/x/"):
            at = query.get("at", "")
            with self.lock:
                view = views.execution(
                    self.record, path[3:], int(at) if at.isdigit() else None, self.genome
                )
                listed = self.executions.one(view.root) if view else None
            if view is None:
                return 404, self.render("missing.html", "executions", what=path[3:])
            return 200, self.render("execution.html", "executions", x=view, listed=listed)
        if path == "/schedules":
            with self.lock:
                found = views.schedules(self.record, now)
            return 200, self.render("schedules.html", "schedules", schedules=found, now=now)
        if path == "/waiting":
            with self.lock:
                found = views.waiting(self.record)
            return 200, self.render("waiting.html", "waiting", w=found)
        if path == "/organism":
            with self.lock:
                found = views.organism(self.record, self.root, now)
            return 200, self.render("organism.html", "organism", o=found)
        return 404, self.render("missing.html", "", what=path)

    def render(self, template: str, tab: str, **values: Any) -> str:
        return self.templates.get_template(template).render(
            tab=tab, csrf=self.csrf, seq=self.seq, project=self.root.name, **values
        )

    def act(self, name: str, form: dict[str, str]) -> acts.Said:
        said = acts.run(self.root, name, form)
        return said


def _when(ms: int | None) -> str:
    if ms is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000))


def _took(ms: int | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 120_000:
        return f"{ms / 1000:.1f} s"
    if ms < 7_200_000:
        return f"{ms / 60_000:.1f} min"
    return f"{ms / 3_600_000:.1f} h"


def _handler(face: FaceServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query))
            given = query.pop("token", None)
            if given is not None and _same(given, face.token):
                # the token once in the URL: kept as a cookie, and taken out of the address
                rest = f"{parts.path}?{urlencode(query)}" if query else parts.path
                cookie = f"{face.cookie}={face.token}; HttpOnly; SameSite=Strict; Path=/"
                self._send(303, b"", "text/plain", {"Location": rest, "Set-Cookie": cookie})
                return
            if not self._admitted():
                return
            if parts.path == "/events":
                self._events()
                return
            if parts.path.startswith("/static/"):
                self._static(parts.path.removeprefix("/static/"))
                return
            try:
                status, html = face.page(parts.path, query)
            except Exception as error:  # the record failed: said on the page, the face stays up
                status, html = 503, _plain(f"the face could not read the record: {error}")
            self._send(status, html.encode(), "text/html; charset=utf-8")

        def do_POST(self) -> None:  # noqa: N802
            if not self._admitted():
                return
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 <= length <= MAX_FORM:
                self.close_connection = True
                self._send(413, b"refused: the form is too large", "text/plain")
                return
            form = dict(parse_qsl(self.rfile.read(length).decode("utf-8", "replace")))
            origin = self.headers.get("Origin")
            if not _same(form.get("csrf", ""), face.csrf) or (
                origin is not None and origin != face.address
            ):
                self._send(403, b"refused: the form's CSRF check failed; nothing written",
                           "text/plain")  # fmt: skip
                return
            path = urlsplit(self.path).path
            if not path.startswith("/act/"):
                self._send(404, b"no such act", "text/plain")
                return
            said = face.act(path.removeprefix("/act/"), form)
            doc = {"code": said.code, "refused": said.refused, "text": said.text}
            self._send(200, json.dumps(doc).encode(), "application/json")

        def _admitted(self) -> bool:
            cookie = SimpleCookie()
            try:
                cookie.load(self.headers.get("Cookie") or "")
            except Exception:  # a cookie header that does not parse admits nobody
                cookie = SimpleCookie()
            kept = cookie.get(face.cookie)
            if kept is not None and _same(kept.value, face.token):
                return True
            length = int(self.headers.get("Content-Length") or 0)
            if 0 < length <= MAX_FORM:
                self.rfile.read(length)
            else:
                self.close_connection = True
            self._send(401, _plain(NO_TOKEN).encode(), "text/html; charset=utf-8")
            return False

        def _static(self, name: str) -> None:
            if name not in STATIC:
                self._send(404, b"no such asset", "text/plain")
                return
            data = resources.files("hale_runtime.face").joinpath("static", name).read_bytes()
            self._send(200, data, STATIC[name])

        def _events(self) -> None:
            self.close_connection = True
            self.send_response(200)
            self._security()
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            with face.changed:
                face.listeners += 1
                face.changed.notify_all()
            try:
                self._stream()
            finally:
                with face.changed:
                    face.listeners -= 1

        def _stream(self) -> None:
            try:
                self.wfile.write(f"retry: 1000\nevent: rows\ndata: {face.seq}\n\n".encode())
                self.wfile.flush()
                seen = face.seq
                while not face.stopping:
                    with face.changed:
                        if face.seq == seen:
                            face.changed.wait(KEEPALIVE_S)
                        now = face.seq
                    if face.stopping:
                        return
                    if now == seen:
                        self.wfile.write(b": still here\n\n")
                    else:
                        self.wfile.write(f"event: rows\ndata: {now}\n\n".encode())
                        seen = now
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                return

        def _security(self) -> None:
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Frame-Options", "DENY")

        def _send(
            self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            self.send_response(status, HTTPStatus(status).phrase)
            self._security()
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the record is the organism's log."""

    return Handler


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def _plain(text: str) -> str:
    from html import escape

    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hale face</title>'
        f"</head><body><p>{escape(text)}</p></body></html>"
    )
