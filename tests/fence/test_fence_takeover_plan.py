"""A takeover mid-plan, with real processes: body A of owner a has asked the
Leader (a model server here) and journaled its word, `model.called
plan/<intent>`, pushed, when its host, fence and organization are stopped
(SIGSTOP) before it admits the ask, for longer than the lease. B, the
owner's other body, takes the lease over and binds A's word rather than ask
the Leader again; A, woken, writes nothing. One admission, one landed call,
one call at the model server, and the chaos checker finds nothing."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from chaos import SlowModel
from chaos_check import check
from node_helpers import FAST, clone, hale, make_dna_forge, wait_for
from pg import fresh_database, shared_postgres

from hale_runtime.asks.intake import WORD_PAUSE_ENV
from hale_runtime.node.lease import BodyLease, now_ms
from hale_runtime.record import Record, kinds

LEASE_S = float(FAST["HALE_DNA_LEASE_S"])
INTENT = "i-midplan"


def landed(record: Record, kind: str, key: str) -> list:
    """The rows of `kind` under `key` that count, the record synced first."""
    record.sync()
    return [r for r in record.rows(kind=kind, key=key) if not record.stale(r)]


def test_a_body_taking_over_mid_plan_binds_the_word_and_admits_once(tmp_path: Path, nodes):
    forge, src = make_dna_forge(tmp_path)
    dsn = fresh_database(shared_postgres())
    assert hale(src, "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": dsn}).returncode == 0
    model = SlowModel(0.0, 1)
    env = {**model.env, "HALE_DNA_MEMORY": dsn, "HALE_DNA_OWNER": "a", "HALE_DNA_CLAIM_TTL": "3"}
    try:
        a = nodes(clone(forge, tmp_path / "a"), "run", {**env, WORD_PAUSE_ENV: "60"})
        kids = a.wait_running(120)
        asker = Record.open(clone(forge, tmp_path / "asker"))
        body = {"objective": "a change mid-plan", "target": ".", "by": asker.who, "owner": "a"}
        asker.append(kinds.INTENT_REQUESTED, INTENT, body)
        asker.sync()
        wait_for(lambda: landed(asker, kinds.MODEL_CALLED, f"plan/{INTENT}"), 120, "A's word", 0.2)
        paused = [kids["organization"], kids["fence"], a.proc.pid]
        for pid in paused:
            os.kill(pid, signal.SIGSTOP)
        try:
            watcher = BodyLease(
                clone(forge, tmp_path / "watcher"), "", "origin", LEASE_S, 10.0, "a"
            )
            wait_for(lambda: watcher.read()[1].until < now_ms(), 60, "A's lease to run out", 0.2)
            b = nodes(clone(forge, tmp_path / "b"), "run", env)
            b.wait_running(120)
            wait_for(lambda: landed(asker, kinds.WORKFLOW_SETTLED, "t1"), 180, "B's task", 0.5)
        finally:
            for pid in reversed(paused):
                os.kill(pid, signal.SIGCONT)
        assert a.wait(120) != 0, a.log()
        assert b.stop() == 0, b.log()
    finally:
        model.stop()

    asker.sync()
    (epoch_b,) = [r for r in asker.rows(kind=kinds.BODY_EPOCH) if r.body["n"] == 2]
    (called,) = landed(asker, kinds.MODEL_CALLED, f"plan/{INTENT}")
    assert called.seq < epoch_b.seq and called.who != epoch_b.body["holder"]  # A's word
    assert sum(model.asked.values()) == 1  # B bound it: the Leader was asked once
    roots = [r for r in asker.rows(kind=kinds.WORKFLOW_ADMITTED) if r.body.get("ask") == INTENT]
    assert [r.who for r in roots if not asker.stale(r)] == [epoch_b.who]
    # A, woken past its lease, wrote nothing that counts
    woke = [r for r in asker.rows(since=epoch_b.seq) if r.body.get("epoch", {}).get("n") == 1]
    assert all(asker.stale(r) for r in woke)
    rows = list(asker.scan(0, poison=True))
    history = check(rows, {r.id for r, _ in asker.poison_rows()}, set(), [])
    assert history.violations == [] and history.leader_landed == 1, history.violations
