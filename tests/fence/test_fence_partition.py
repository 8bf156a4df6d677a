"""A partitioned body: A holds the lease and admits an ask, its remote goes
away, and A goes on alone (journalling locally) after its lease ran out. B
takes over (a higher epoch, written to the chain before it acts) and admits
the same ask, still waiting for its answer. Then A's remote comes back and A
syncs: A's rows land after B's epoch row, so every fold voids them (stale,
quarantined), whichever clone folds the chain, and B's execution settles on
its own answer, never on A's."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from engine_helpers import HandClock, Scripted, catalog_of, make_project, work

from hale_runtime.engine import Engine
from hale_runtime.memory import open_memory
from hale_runtime.performers import Performers, plugin_manager
from hale_runtime.record import Record, RecordError, kinds

REF = "refs/dna/body"
ATTEMPT = "t1/wf1/s0/x/a0"


def one(c) -> None:
    assert c.define("one", 1, "record", "one step") == ""
    assert c.leaf("one", 1, 0, "x", work("do x", "analysis"), 1) == ""


def body(root: Path, name: str, epoch: int) -> Record:
    """A body's record: its epoch declared and synced, as a host's takeover does."""
    record = Record.open(root, clock=HandClock(), who=f"{name}@box:{name:0<8}")
    record.sync()
    record.epoch = (REF, epoch)
    record.append("body.epoch", REF, {"n": epoch, "holder": record.who})
    record.sync()
    return record


def engine(record: Record, root: Path, service: Scripted) -> Engine:
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    performers = Performers(plugin_manager(service, entry_points=False))
    return Engine(record, memory, performers, clock=record.clock)


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    made = []
    for name in ("a", "b"):
        path = make_project(tmp_path / name, clone=f"{name:0<8}")
        pygit2.Repository(str(path)).remotes.create("origin", str(remote))
        made.append(path)
    return remote, made[0], made[1]


def test_a_partitioned_body_s_rows_are_void_once_another_took_over(clones):
    remote, a, b = clones
    ra = body(a, "a", 1)
    ea = engine(ra, a, Scripted("service", {ATTEMPT: "failed"}))
    hidden = remote.with_name("remote.gone")
    remote.rename(hidden)  # A's partition: its remote is unreachable
    ea.admit(catalog_of(one).bind("one"), "ask-1", "leader")
    ea.pump()  # A decides alone: its answer fails the ask, journalled locally
    assert ea.settled("t1") == "failed"
    spent = ra.append(kinds.MODEL_CALLED, ATTEMPT, {"micros": 1234, "call": "a-call"})
    with pytest.raises(RecordError):
        ra.sync()
    hidden.rename(remote)  # the remote is back, but A stays cut off while B takes over

    rb = body(b, "b", 2)
    service = Scripted("service", {ATTEMPT: "later"})
    eb = engine(rb, b, service)
    assert eb.admit(catalog_of(one).bind("one"), "ask-1", "leader").task == "t1"
    eb.pump()
    assert service.acted == [ATTEMPT] and eb.settled("t1") is None
    rb.sync()

    ra.sync()  # A's journal reaches the remote, after B's epoch row
    rb.sync()
    eb.catch_up()
    eb.pump()
    assert eb.settled("t1") is None  # A's "failed" is void: B's attempt still waits
    eb.reply(ATTEMPT, "service", "succeeded", "B's own answer")
    eb.pump()
    assert eb.settled("t1") == "succeeded"
    rb.sync()
    stale = eb.take_poison()
    from_a = {r.id for r in rb.rows() if r.who == ra.who and r.kind != kinds.BODY_EPOCH}
    assert from_a and from_a <= set(stale), stale
    assert all(why.startswith("stale: ") for _, why in stale.values())

    # every clone, folding the chain from its start, voids the same rows
    for root, record in ((a, ra), (b, rb)):
        record.sync()
        fresh = engine(Record.open(root), root, Scripted("service"))
        fresh.rebuild()
        assert fresh.settled("t1") == "succeeded"
        assert set(fresh.take_poison()) == set(stale)
        budget = fresh.state.budget  # A's call is void as an outcome, but it was paid for
        assert budget.spent(budget.window_of(spent.at)) == (1234, 1)
        admitted = [r for r in record.rows(kind=kinds.WORKFLOW_ADMITTED) if not record.stale(r)]
        assert len(admitted) == 1 and admitted[0].who == rb.who
