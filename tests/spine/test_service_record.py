"""Issue 32 item 6: a service that keeps its own record says whether it acted.
close-month's reconcile step calls a real service process (its effects in
SQLite, by the `Idempotency-Key` it is sent); the organization is SIGKILLed
while the call waits for its answer, and on restart the performer asks
`GET <service>/effects/<key>`: the service acted, so the attempt takes its
answer without a person and the effect was done once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from node_helpers import children_of, wait_for
from spine_helpers import declare_monthly, rows, wait_row
from support.rows import without_epoch

from hale_runtime.performers import NOT_ACTED, UNKNOWN, Work
from hale_runtime.performers.http_service import HttpService

A0 = "t1/wf1/s0/reconcile/a0"
SERVICE = Path(__file__).resolve().parent / "effects_service.py"


@pytest.fixture
def service(tmp_path: Path):
    hold = tmp_path / "hold"
    proc = subprocess.Popen([sys.executable, str(SERVICE), str(tmp_path / "effects.sqlite3"),
                             str(hold)], stdout=subprocess.PIPE, text=True)  # fmt: skip
    port = int(proc.stdout.readline().split()[1])
    yield f"http://127.0.0.1:{port}/reconcile", tmp_path / "effects.sqlite3", hold
    proc.kill()
    proc.wait(10)


def posts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT key, posts FROM effects"))


def test_a_crash_mid_call_resolves_from_the_services_record(make_clone, nodes, service):
    url, db, hold = service
    a = make_clone("a")
    env = {"HALE_DNA_SERVICE_URL": url}
    hold.touch()  # the service acts, then holds its answer: the caller dies waiting
    node = nodes(a, env=env)
    node.wait_running()
    declare_monthly(a, every_ms=2000)
    wait_for(lambda: db.exists() and posts(db).get(A0), 60, "the service to act")
    os.kill(children_of(node.proc.pid)["organization"], signal.SIGKILL)
    assert node.wait(60) == 1
    hold.unlink()

    nodes(a, env=env).wait_running()
    outcome = wait_row(a, "attempt.outcome", A0)
    assert without_epoch(outcome.body) == {"outcome": "succeeded", "performer": "service",
                            "detail": "reconciled 12 entries (from the service's record)"}  # fmt: skip
    assert rows(a, "effect.unresolved") == [] and rows(a, "effect.redelivered") == []
    assert posts(db) == {A0: 1}  # done once, and nobody was asked


def test_the_service_says_not_acted_or_nothing(service):
    url, db, _ = service
    work = Work("t9/wf1/s0/reconcile/a0", "t9", "reconcile", ("analysis",), "service",
                facts=(("effect.calling", {"performer": "service", "url": url}),))  # fmt: skip
    assert HttpService(url, timeout_s=30).reconcile(work, None).verdict == NOT_ACTED
    silent = HttpService(url.rsplit(":", 1)[0] + ":1/reconcile", timeout_s=30)  # nobody there
    assert silent.reconcile(work, None).verdict == UNKNOWN
