"""A paused body: A's organization has taken a claim and is about to act when
A's host, fence and organization are all stopped (SIGSTOP) for longer than
the lease. B takes the lease over and answers; then A is woken (SIGCONT).
A must write nothing: not the answer it was about to give, not a
`node.stopped`. What it wrote before the pause and still held locally is
void wherever it lands, and the request is answered once, by B."""

from __future__ import annotations

import os
import signal

from node_helpers import FAST, wait_for

from hale_runtime.node.lease import BodyLease, now_ms
from hale_runtime.record import Record, kinds

LEASE_S = float(FAST["HALE_DNA_LEASE_S"])
REQUEST = "k1"


def synced(root) -> Record:
    record = Record.open(root)
    record.sync()
    return record


def test_a_body_woken_past_its_lease_writes_nothing(make_clone, nodes):
    a = make_clone("a")
    first = nodes(a, "dev", {"HALE_DNA_TEST_ACT_PAUSE": "2"})
    kids = first.wait_running()
    asker = make_clone("asker")
    record = Record.open(asker)
    record.append("node.ping.requested", REQUEST, {"n": 0})
    record.sync()
    wait_for(
        lambda: Record.open(a).rows(kind=kinds.CLAIM_TAKEN, key=f"ping/{REQUEST}"),
        60,
        "A's organization to take the claim",
        0.05,
    )
    paused = [kids["organization"], kids["fence"], first.proc.pid]
    for pid in paused:
        os.kill(pid, signal.SIGSTOP)
    try:
        watcher = BodyLease(make_clone("watcher"), "", "origin", LEASE_S, 10.0)
        wait_for(lambda: watcher.read()[1].until < now_ms(), 60, "A's lease to expire", 0.2)
        second = nodes(make_clone("b"))
        second.wait_running(120)
        wait_for(
            lambda: synced(asker).rows(kind=kinds.NODE_PING_ANSWERED, key=REQUEST),
            120,
            "B's answer",
            0.5,
        )
    finally:
        for pid in reversed(paused):
            os.kill(pid, signal.SIGCONT)
    assert first.wait(120) != 0, first.log()
    assert second.stop() == 0, second.log()

    chain = synced(asker)
    (epoch_b,) = [r for r in chain.rows(kind=kinds.BODY_EPOCH) if r.body["n"] == 2]
    late = [r for r in chain.rows(since=epoch_b.seq) if r.body.get("epoch", {}).get("n") == 1]
    # what A wrote before the pause may land late (a tick's sync it was paused in), but
    # it is void there; and nothing of A's was written once B had taken over
    assert all(chain.stale(r).startswith("stale: ") for r in late)
    woke = [r for r in chain.rows() if r.who != epoch_b.who and r.at > epoch_b.at]
    assert [r for r in woke if r.body.get("epoch", {}).get("n") == 1] == []
    answers = chain.rows(kind=kinds.NODE_PING_ANSWERED, key=REQUEST)
    assert [r.body["by"] for r in answers] == [epoch_b.body["holder"]]
    # what A held back locally (its claim row, say) would be void wherever it lands
    local = Record.open(a)
    mine = [r for r in local.rows() if r.body.get("epoch", {}).get("n") == 1]
    assert not any(r.kind == kinds.NODE_PING_ANSWERED for r in mine)
