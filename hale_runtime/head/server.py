"""The head served on loopback: JSON over HTTP, one worker owning the stores.

`POST /` with `{"method": "dna.attempt.claim", "params": {...}}` answers
`{"result": {...}}`, or `{"error": "refused: …"}` with status 409 when the
call was refused, 400 when a parameter is not of its type or the rows it
would write do not fit their kind (nothing written either way). HTTP threads only parse and wait: every
call goes on a queue to one worker thread, which holds the head's Record and
memory connection. The worker takes every call waiting, decides each
(core.py), writes all their rows as one record commit, then gives leases
back and answers; so legs arriving together cost one commit. An allowance
not yet answered is waited for (polling the head's view, `wait` seconds at
most, 30 by default) since the organization answers it a relay later.
The address is kept in `<git dir>/hale/head.json` for legs to find. The
node's step 7 tells the head the rows that landed (`tell`), queued for the
worker like a call and not waited for.

The head admits only its own. It makes a token when it starts and keeps it
in head.json (field `token`), written with mode 0600 so only the project's
owner reads it; every request, GET or POST, must carry it as
`Authorization: Bearer <token>`, or it is answered 401 before anything is
read or decided (compared in constant time). That token only opens the
door: a lease call (`dna.attempt.*`) must also carry the leg's own
credential (identity.py, the `Hale-Leg` header), handed out once by
`dna.leg.register`, and the leg is who that credential proves, whatever
name the call says. A request the parser cannot take (a `Content-Length`
that is not a size up to MAX_BODY, JSON nested past what the parser follows,
a body that is not a call) is answered 400 with the connection closed.
"""

from __future__ import annotations

import hmac
import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from hale_runtime.head.core import LEASE_S, METHODS, Decision, Head, HeadRefused
from hale_runtime.head.identity import HEADER, KEYS_FILE, LegKeys
from hale_runtime.head.private import write_private
from hale_runtime.head.reads import READS
from hale_runtime.quiet_http import QuietHTTPServer
from hale_runtime.record.errors import RowRefused

ALLOWANCE_WAIT_S, PEEK_S, MAX_WAIT_S = 30.0, 0.05, 120.0
HEAD_FILE = "head.json"
OWNER_ENV = "HALE_DNA_OWNER"  # over a shared record: the organization this head serves
PEEK, LANDED = "head.allowance.peek", "head.landed"  # the head's own, not callable over HTTP
LEDGER = "head.ledger"  # the host's word: write the legs' rows to an adopted ledger, or not
OWN = (PEEK, LANDED, LEDGER)
MAX_BODY = 1 << 20  # the largest request body read; a refused one is read and dropped
REGISTER = "dna.leg.register"
UNPROVEN = (
    "refused: a leg proves who it is: register once (`dna.leg.register`) and send the "
    f"credential it answers as `{HEADER}: <credential>`; nothing written"
)
UNAUTHORIZED = (
    "refused: this head admits only its own: send its token as `Authorization: Bearer <token>`"
    " (the `token` of <git dir>/hale/head.json); nothing written"
)

Job = tuple[str, dict[str, Any], Future]


def head_file(root: Path) -> Path:
    """Where a node keeps its head's address: inside git's folder, never the work tree."""
    git = Path(root) / ".git"
    return (git if git.is_dir() else Path(root) / ".hale") / "hale" / HEAD_FILE


class HeadServer:
    """The head: a worker over the stores and an HTTP server in front of it."""

    def __init__(
        self,
        open_head: Callable[[], Head],
        port: int = 0,
        root: Path | None = None,
        token: str | None = None,
    ):
        self.open_head, self.root = open_head, root
        self.token = token or secrets.token_urlsafe(32)
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.http = QuietHTTPServer(("127.0.0.1", port), _handler(self))
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.threads: list[threading.Thread] = []
        self.ready: Future = Future()
        self.legs = LegKeys(head_file(root).parent / KEYS_FILE if root is not None else None)

    def start(self) -> str:
        """Start the worker and the server; the head's URL."""
        worker = threading.Thread(target=self._work, name="head-worker", daemon=True)
        # serve_forever notices shutdown() only between polls (0.5 s by default): a
        # node's stop waits for it
        serve = threading.Thread(
            target=self.http.serve_forever, args=(0.05,), name="head-http", daemon=True
        )
        self.threads = [worker, serve]
        worker.start()
        self.ready.result(timeout=60)  # the stores opened, or why not
        serve.start()
        if self.root is not None:
            kept = {"url": self.url, "pid": os.getpid(), "token": self.token}
            write_private(head_file(self.root), json.dumps(kept))
        return self.url

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.jobs.put(None)
        if self.root is not None:
            head_file(self.root).unlink(missing_ok=True)

    def use_ledger(self, fence: tuple[str, int] | None) -> None:
        """The host's word: the legs' rows go to the adopted ledger under `fence`
        (its body claim's key and epoch), or back to the git record (None)."""
        self._submit(LEDGER, {"fence": fence})

    def tell(self, rows: list[Any]) -> None:
        """The node's step 7: these rows landed. Queued for the worker; not waited for."""
        if rows:
            self.jobs.put((LANDED, {"seq": int(rows[-1].seq)}, Future()))

    # ---- what HTTP threads call ------------------------------------------------------

    def register(self, params: dict[str, Any]) -> dict[str, Any]:
        """`dna.leg.register`: a credential for the leg named, told to this caller only."""
        leg = params.get("leg")
        try:
            return {"leg": leg, "credential": self.legs.register(leg)}  # type: ignore[arg-type]
        except ValueError as refused:
            raise HeadRefused(
                str(refused), 400 if "registers a name" in str(refused) else 409
            ) from None

    def prove(self, method: str, params: dict[str, Any], credential: str) -> dict[str, Any]:
        """The call's parameters with `leg` the leg its credential proves (lease calls);
        HeadRefused (401, or 403 when it names another leg) when it proves none."""
        if not method.startswith("dna.attempt."):
            return params
        leg = self.legs.who(credential)
        if leg is None:
            raise HeadRefused(UNPROVEN, 401)
        if params.get("leg") not in (None, "", leg):
            raise HeadRefused(
                f"refused: your credential proves {leg}; a leg speaks for itself only; "
                "nothing written",
                403,
            )
        return {**params, "leg": leg}

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one call on the worker; HeadRefused when refused."""
        if method == REGISTER:
            return self.register(params)
        if not method.startswith("dna."):
            raise HeadRefused(f"refused: no such call {method}")
        result = self._submit(method, params)
        if method.endswith(".allowance") and not result.get("answered"):
            wait = min(float(params.get("wait", ALLOWANCE_WAIT_S)), MAX_WAIT_S)
            deadline = time.monotonic() + wait
            while not result.get("answered") and time.monotonic() < deadline:
                time.sleep(PEEK_S)
                result = self._submit(PEEK, {"attempt": result["attempt"]})
        return result

    def _submit(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        done: Future = Future()
        self.jobs.put((method, params, done))
        return done.result()

    # ---- the worker ----------------------------------------------------------------

    def _work(self) -> None:
        try:
            head = self.open_head()
        except Exception as error:  # the stores did not open: start() says why
            self.ready.set_exception(error)
            return
        self.ready.set_result(True)
        while True:
            job = self.jobs.get()
            if job is None:
                return
            batch = [job]
            while not self.jobs.empty() and len(batch) < 256:
                more = self.jobs.get_nowait()
                if more is None:
                    self.jobs.put(None)
                    break
                batch.append(more)
            self._run(head, batch)

    def _run(self, head: Head, batch: list[Job]) -> None:
        decided: list[tuple[Future, Decision | BaseException]] = []
        calls = [(method, params) for method, params, _ in batch if method not in OWN]
        answers = iter(head.decide_many(calls)) if calls else iter(())
        for method, params, done in batch:
            try:
                if method == PEEK:
                    head.read()
                    decided.append((done, Decision(head.allowance_of(str(params["attempt"])))))
                elif method == LANDED:
                    head.land(int(params["seq"]))
                    decided.append((done, Decision({})))
                elif method == LEDGER:
                    head.ledger = params.get("fence")
                    decided.append((done, Decision({})))
                else:
                    decided.append((done, next(answers)))
            except Exception as error:  # the stores failed: that call's answer
                decided.append((done, error))
        rows = [row for _, d in decided if isinstance(d, Decision) for row in d.rows]
        try:
            if rows:
                head.write(rows)
        except RowRefused:  # one call's rows do not fit: write each call's alone
            decided = [(done, _write_alone(head, d)) for done, d in decided]
        except Exception as error:  # nothing of the batch was written
            for done, _ in decided:
                done.set_exception(error)
            return
        head.give_back([d for _, d in decided if isinstance(d, Decision)])
        for done, d in decided:
            if isinstance(d, BaseException):
                done.set_exception(d)
                continue
            try:
                if d.after is not None:
                    d.after()
            except Exception as error:  # the lease is given back when it expires instead
                done.set_exception(error)
                continue
            done.set_result(d.result)


def _write_alone(head: Head, d: Decision | BaseException) -> Decision | BaseException:
    """A decision's rows written as their own commit; a refusal (400) when they do not fit."""
    if isinstance(d, BaseException) or not d.rows:
        return d
    try:
        head.write(d.rows)
    except RowRefused as refused:
        return HeadRefused(f"refused: {refused}; nothing written", 400)
    except Exception as error:  # the record failed: that call's answer
        return error
    return d


def _handler(server: HeadServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms stall

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            if not self._admitted():
                return
            methods = [REGISTER, *(f"dna.attempt.{m}" for m in METHODS), *READS]
            self._answer(200, {"head": "dna", "methods": methods})

        def do_POST(self) -> None:  # noqa: N802
            if not self._admitted():
                return
            length = self._length()
            if length is None:
                return
            try:
                doc = json.loads(self.rfile.read(length) or b"{}")
                method, params = str(doc["method"]), dict(doc.get("params") or {})
            except RecursionError:
                self.close_connection = True
                self._answer(400, {"error": "refused: not a call (JSON nested too deep)"})
                return
            except (ValueError, KeyError, TypeError) as error:
                self._answer(400, {"error": f"refused: not a call ({error})"})
                return
            try:
                params = server.prove(method, params, self.headers.get(HEADER) or "")
                self._answer(200, {"result": server.call(method, params)})
            except HeadRefused as refused:
                self._answer(refused.status, {"error": str(refused)})
            except ConnectionError:
                raise  # the leg left mid-answer: nothing to tell it (quiet_http.py)
            except Exception as error:  # the stores failed: the leg hears it, the head stays up
                self._answer(503, {"error": f"the head failed: {type(error).__name__}: {error}"})

        def _length(self) -> int | None:
            """The body's size; None (answered 400, the connection closed) when the
            Content-Length is not a size this head reads."""
            said = (self.headers.get("Content-Length") or "0").strip()
            if said.isdigit() and len(said) <= 9 and int(said) <= MAX_BODY:
                return int(said)
            self.close_connection = True
            why = f"a Content-Length of at most {MAX_BODY} bytes, not {said[:20]!r}"
            self._answer(400, {"error": f"refused: not a call (it needs {why})"})
            return None

        def _admitted(self) -> bool:
            """Whether the request carries the head's token; answered 401 when not."""
            given = self.headers.get("Authorization") or ""
            if hmac.compare_digest(given.encode(), f"Bearer {server.token}".encode()):
                return True
            said = (self.headers.get("Content-Length") or "0").strip()
            length = int(said) if said.isdigit() and len(said) <= 9 else -1
            if 0 <= length <= MAX_BODY:
                self.rfile.read(length)  # read, not heard: the connection stays usable
            else:
                self.close_connection = True
            self._answer(401, {"error": UNAUTHORIZED}, {"WWW-Authenticate": "Bearer"})
            return False

        def _answer(
            self, status: int, doc: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the record is the head's log."""

    return Handler


def open_head_for(
    root: Path, memory_dsn: str, who: str, lease_s: float | None = None
) -> Callable[[], Head]:
    """What the worker opens: the project's record (writing as `who`) and memory."""

    def open_head() -> Head:
        from hale_runtime.memory import open_memory
        from hale_runtime.node.checkpoint import Checkpoints, place_for
        from hale_runtime.node.fence import epoch_from_env
        from hale_runtime.record import Record

        record = Record.open(root, who=who)
        record.epoch = epoch_from_env()  # under a host: the lease's epoch (record/epochs.py)
        memory = open_memory(memory_dsn)
        owner = os.environ.get(OWNER_ENV, "").strip() or None
        head = Head(record, memory, lease_s or LEASE_S, owner=owner)
        # the organization's newest checkpoint, when there is one (it says what it passed over)
        place = place_for(memory, memory_dsn, record.repo.path)
        found = Checkpoints(place, lambda line: None).load(record)
        if found is not None:
            head.resume(found)
        return head

    return open_head
