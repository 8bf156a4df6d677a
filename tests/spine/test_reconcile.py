"""Reconciliation after a SIGKILL, through real processes: close-month's
reconcile step done by the shipped HTTP service (HALE_DNA_SERVICE_URL, an
endpoint this test serves), its organization killed at three points and the
node started again. The service says, from its own rows around the call:
"I acted" (`effect.called`: its answer, no second call), "I did not act"
(nothing journaled: `effect.redelivered`, called once), or "I cannot say"
(`effect.calling` alone: `effect.unresolved`, and a person answers it with
`hale dna effect resolve`, the outcome carrying `resolved_by`)."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from node_helpers import children_of, hale, wait_for
from spine_helpers import declare_monthly, rows, wait_row
from support.rows import without_epoch

A0 = "t1/wf1/s0/reconcile/a0"
POST = "t1/wf1/s1/post/a0"


class Endpoint:
    """The service's endpoint: counts each attempt it is sent; holds them when told."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.hold = False
        self.release = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                doc = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.calls[doc["attempt"]] += 1
                if endpoint.hold:
                    endpoint.release.wait(60)
                answer = json.dumps({"outcome": "succeeded", "detail": "reconciled 12 entries"})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(answer.encode())

            def log_message(self, *args) -> None:
                return

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/reconcile"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def endpoint():
    served = Endpoint()
    yield served
    served.close()


def crash_then_restart(nodes, a, env: dict[str, str], point) -> None:
    """Run a node until `point` holds, SIGKILL its organization, then start it again."""
    node = nodes(a, env={**env, "HALE_DNA_TEST_SERVICE_PAUSE": point[0]})
    node.wait_running()
    declare_monthly(a, every_ms=2000)
    wait_for(point[1], 60, f"the crash point {point[0] or 'during the call'}")
    os.kill(children_of(node.proc.pid)["organization"], signal.SIGKILL)
    assert node.wait(60) == 1
    nodes(a, env=env).wait_running()


def refused_resolve(a, why: str) -> None:
    done = hale(a, "dna", "effect", "resolve", f"attempt:{A0}", "--outcome", "failed")
    assert done.returncode == 1 and done.stderr == f"hale: attempt {A0} {why}\n"


@pytest.mark.parametrize(
    ("point", "redelivered", "detail"),
    [
        ("after", [], "reconciled 12 entries (from its journal)"),  # it acted: its answer
        ("before", [A0], "reconciled 12 entries"),  # it did not act: delivered again
    ],
)
def test_a_service_that_acted_or_did_not_says_so(make_clone, nodes, endpoint, point,
                                                 redelivered, detail):  # fmt: skip
    a = make_clone("a")
    env = {"HALE_DNA_SERVICE_URL": endpoint.url}
    seen = {"after": "effect.called", "before": "attempt.claimed"}[point]
    crash_then_restart(nodes, a, env, (f"{point}:60", lambda: rows(a, seen, A0)))
    outcome = wait_row(a, "attempt.outcome", A0)
    assert without_epoch(outcome.body) == {
        "outcome": "succeeded",
        "performer": "service",
        "detail": detail,
    }
    assert endpoint.calls[A0] == 1  # called once, whatever the crash
    assert [r.key for r in rows(a, "effect.redelivered")] == redelivered
    assert rows(a, "effect.unresolved") == []
    wait_row(a, "board.case", POST)  # the execution went on
    refused_resolve(a, "already has its outcome: succeeded")


def test_a_service_that_cannot_say_waits_for_a_person(make_clone, nodes, endpoint):
    a = make_clone("a")
    env = {"HALE_DNA_SERVICE_URL": endpoint.url}
    endpoint.hold = True  # the call reaches it, and the process dies waiting for its answer
    crash_then_restart(nodes, a, env, ("", lambda: endpoint.calls[A0]))
    unresolved = wait_row(a, "effect.unresolved", A0)
    assert without_epoch(unresolved.body) == {
        "performer": "service",
        "resolve": f"hale dna effect resolve attempt:{A0} --outcome failed|succeeded",
        "why": f"the call to {endpoint.url} was sent, and the process died before it "
        "recorded an answer",
    }
    assert [r.kind for r in rows(a, "effect.calling", A0)] == ["effect.calling"]
    assert rows(a, "effect.called") == rows(a, "effect.redelivered") == []
    assert "the service could not say whether it acted" in hale(a, "dna", "review").stdout

    resolved = hale(a, "dna", "effect", "resolve", f"attempt:{A0}", "--outcome", "succeeded",
                    "--note", "the bank feed shows it reconciled")  # fmt: skip
    assert resolved.returncode == 0, resolved.stderr
    outcome = rows(a, "attempt.outcome", A0)[0]
    person = outcome.body["resolved_by"]
    assert resolved.stdout == f"attempt:{A0} succeeded (resolved by {person})\n"
    assert without_epoch(outcome.body) == {"outcome": "succeeded", "performer": "service",
                            "detail": "the bank feed shows it reconciled",
                            "resolved_by": person}  # fmt: skip
    wait_row(a, "board.case", POST)  # the execution went on
    assert endpoint.calls[A0] == 1
    refused_resolve(a, "already has its outcome: succeeded")
