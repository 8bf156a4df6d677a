"""Checkpoints of the engine's fold: a snapshot at any row, restored and
folded on, is the full fold; settled work leaves the state and is read back
from the record; a damaged checkpoint is passed over with one line."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from engine_helpers import HandClock, Org, Scripted, catalog_of, close_month, make_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_runtime.engine import Budget, BudgetPolicy, State
from hale_runtime.engine.state import ChildMember, Unit
from hale_runtime.node.checkpoint import Checkpoint, Checkpointer, Checkpoints, Files
from hale_runtime.record import Record
from hale_runtime.seen import Seen

POLICY = BudgetPolicy("day", 5_000)


def describe(s: State) -> dict:
    """Everything a later decision reads of a state, as plain comparable data."""

    def member(m):
        if isinstance(m, Unit):
            return (m.id, m.outcome, [
                (a.id, a.n, a.performer, a.claimed, a.token, a.outcome, a.detail,
                 a.unresolved, a.redelivered, a.facts) for a in m.attempts
            ])  # fmt: skip
        assert isinstance(m, ChildMember)
        return (m.key, m.outcome, m.task.id if m.task else None)

    tasks = {
        t.id: (t.plan.name, t.ask, t.convener, t.summary, t.halt, t.outcome, t.reason,
               t.parent.key if t.parent else None,
               [(p.id, p.out, p.failed, [member(m) for m in p.members.values()]) for p in t.steps])
        for t in s.tasks.values()
    }  # fmt: skip
    return {
        "tasks": tasks, "units": sorted(s.units), "attempts": sorted(s.attempts),
        "asks": dict(s.asks), "open": list(s.open), "top_root": s.top_root,
        "asks_settled": s.asks_settled.to_bytes(), "roots_settled": s.roots_settled.to_bytes(),
        "budget": s.budget.snapshot(),
    }  # fmt: skip


def fold(rows, state: State | None = None, forget: bool = True) -> State:
    state = state or State(Budget(POLICY), forget_settled=forget)
    for r in rows:
        state.apply(r.kind, r.key, r.body, r.at)
    return state


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record with every turn an execution takes: successes, retries, failed
    steps, child executions, cancels, work still out, model calls, the budget
    spent and announced, and a repeated ask."""
    root = make_project(tmp_path_factory.mktemp("checkpoint") / "p")
    clock = HandClock()
    script = {f"t{n}/wf1/s0/a/a0": "failed" for n in range(1, 13, 3)}
    script.update({f"t{n}/wf1/s0/a/a0": "later" for n in (5, 11)})
    script.update({f"t{n}/wf1/s0/a/a1": "failed" for n in (4,)})
    agent = Scripted("agent", script)
    person = Scripted("person", {f"t{n}/wf1/s1/post/a0": "later" for n in (2, 9, 12)})
    org = Org(root, clock, (agent, person), POLICY)
    e = org.engine()
    catalog = catalog_of(close_month)
    for n in range(1, 13):
        e.admit_from(catalog, "close-month", f"ask-{n}", "leader", {"period": f"2025-{n:02}"})
        if n % 4 == 0:
            e.admit_from(catalog, "close-month", f"ask-{n - 1}", "leader", {"period": "again"})
        e.pump()
        if n == 7:
            assert e.cancel("t5", by="board") == ""
        if n in (3, 4):
            e.record.append("model.called", f"t{n}/wf1/s0/a/a0", {"call": f"c{n}", "micros": 2_600})
            e.pump()  # the second spends the day's allowance: budget.exhausted
        clock.advance(43_200_000)  # half a day: the budget's windows turn
    e.pump()
    e.record.close()
    return root


def test_settled_roots_leave_the_state_and_their_asks_stay_seen(made: Path) -> None:
    rows = Record.open(made).rows()
    kept, forgetful = fold(rows, forget=False), fold(rows)
    settled = [t for t in kept.tasks.values() if t.parent is None and t.outcome is not None]
    assert settled and len(settled) < kept.top_root  # some settled, some still open
    for t in settled:
        assert t.id not in forgetful.tasks and t.id in forgetful.roots_settled
        assert forgetful.seen_ask(t.ask) and t.ask not in forgetful.asks
    open_roots = {t.id for t in kept.tasks.values() if t.parent is None and t.outcome is None}
    assert {t.id for t in forgetful.tasks.values() if t.parent is None} == open_roots
    assert forgetful.top_root == kept.top_root and forgetful.open == kept.open


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_checkpoint_and_the_tail_fold_to_the_full_fold(made: Path, data: st.DataObject) -> None:
    record = Record.open(made)
    rows = record.rows()
    at = data.draw(st.integers(0, len(rows)), label="checkpoint at row")
    head = fold(rows[:at])
    upto = rows[at - 1].seq if at else 0  # seqs have gaps: a batch's signature row is read apart
    snap = head.snapshot(lambda root: record.under(root, "/.", until=upto))
    snap = marshal.loads(marshal.dumps(snap))  # what a file holds
    resumed = fold(rows[at:], State.restore(Budget(POLICY), snap))
    assert describe(resumed) == describe(fold(rows))


def test_the_engine_resumes_from_its_checkpoint(made: Path, tmp_path: Path) -> None:
    org = Org(made, HandClock(), (Scripted("agent"), Scripted("person")), POLICY)
    e = org.engine()
    said: list[str] = []
    store = Checkpoints(Files(e.record.repo.path), said.append)
    written = Checkpointer(e.record, store, {"engine": e}, every_rows=1).tick()
    assert written is not None and written.startswith(f"{e.cursor:012d}-")
    loaded = store.load(e.record)
    assert loaded is not None and said == []
    record = Record.open(made, clock=org.clock, who="org@box:c0ffee00")
    resumed = type(e)(record, e.memory, e.performers, budget=POLICY, resume=loaded.part("engine"))
    assert describe(resumed.state) == describe(e.state)
    assert [a.id for a in resumed.to_reconcile] == [a.id for a in org.engine().to_reconcile]
    other = type(e)(record, e.memory, e.performers, budget=BudgetPolicy("week", 5_000),
                    resume=loaded.part("engine"))  # fmt: skip
    assert other.state.budget.policy.window == "week"  # another policy: folded whole
    assert describe(other.state)["tasks"] == describe(e.state)["tasks"]


def test_a_damaged_checkpoint_is_passed_over_with_one_line(made: Path) -> None:
    org = Org(made, HandClock(), (Scripted("agent"), Scripted("person")), POLICY)
    e = org.engine()
    said: list[str] = []
    store = Checkpoints(Files(e.record.repo.path), said.append)
    name = Checkpointer(e.record, store, {"engine": e}, every_rows=1).tick()
    assert name is not None
    path = store.place.folder / name
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    assert store.load(e.record) is None
    assert said == [f"checkpoint: {path.name} passed over: damaged (its checksum does not match); "
                    "folding the whole record"]  # fmt: skip
    said.clear()
    assert (
        Checkpoints(Files(e.record.repo.path), said.append, made_by="0" * 16).load(e.record) is None
    )
    assert len(said) == 1 and "made by version" in said[0]
    path.unlink()
    said.clear()
    assert store.load(e.record) is None and said == [
        "checkpoint: none written yet; folding the whole record"
    ]


def test_a_failed_round_folds_again_from_the_newest_checkpoint(
    made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round whose store fails folds again from where the newest checkpoint
    stands (a start's cost), not from the record's first row, and holds what
    the record holds."""
    import shutil

    from hale_runtime.engine import engine as engine_module
    from hale_runtime.record.follow import Follower

    made = Path(shutil.copytree(made, tmp_path / "p", symlinks=True))  # it writes rows
    org = Org(made, HandClock(), (Scripted("agent"), Scripted("person")), POLICY)
    e = org.engine()
    store = Checkpoints(Files(e.record.repo.path), print)
    assert Checkpointer(e.record, store, {"engine": e}, every_rows=1).tick() is not None
    at = e.cursor
    e.restart = lambda: (store.load(e.record) or Checkpoint(0, "")).part("engine")
    starts: list[int] = []

    class Watched(Follower):
        def __init__(self, record, since: int = 0):
            starts.append(since)
            super().__init__(record, since)

    e.admit_from(catalog_of(close_month), "close-month", "ask-late", "leader", {"period": "x"})
    memory, e.memory = e.memory, org.engine().memory
    e.memory.close()  # memory goes away mid-round: the claims cannot be taken
    monkeypatch.setattr(engine_module, "Follower", Watched)
    with pytest.raises(Exception):  # noqa: B017 - whichever error the store raises
        e.pump()
    monkeypatch.undo()
    assert starts == [at]  # folded again from the checkpoint's row
    assert describe(e.state) == describe(org.engine().state)  # what the record holds
    e.memory = memory
    assert e.admit_from(catalog_of(close_month), "close-month", "ask-late", "leader",
                        {"period": "x"}).new  # fmt: skip
    e.pump()
    assert describe(e.state) == describe(org.engine().state)


@settings(max_examples=100, deadline=None)
@given(added=st.lists(st.text(max_size=12)), others=st.lists(st.text(max_size=12)))
def test_a_seen_answers_as_a_set_does(added: list[str], others: list[str]) -> None:
    from hale_runtime import seen as seen_module

    seen_module.MERGE_AT, merge_at = 3, seen_module.MERGE_AT  # merge often: both halves serve
    try:
        seen = Seen(added)
    finally:
        seen_module.MERGE_AT = merge_at
    assert len(seen) == len(set(added))
    for text in added + others:
        assert (text in seen) == (text in set(added))
    again = Seen.from_bytes(seen.to_bytes())
    assert again == seen and all(text in again for text in added)


def test_a_postgresql_node_keeps_its_checkpoints_in_memory(
    made: Path, pg_dsn: str, tmp_path: Path
) -> None:
    import shutil

    from pg import fresh_database, shared_postgres

    from hale_runtime.memory import open_memory
    from hale_runtime.node.checkpoint import KEEP, InMemory, place_for

    made = Path(shutil.copytree(made, tmp_path / "p", symlinks=True))  # it writes rows
    dsn = fresh_database(shared_postgres())
    memory = open_memory(dsn)
    assert isinstance(place_for(memory, dsn, made / ".git"), Files)  # not migrated yet
    memory.migrate()
    place = place_for(memory, dsn, made / ".git")
    assert isinstance(place, InMemory)
    org = Org(made, HandClock(), (Scripted("agent"), Scripted("person")), POLICY)
    e = org.engine()
    said: list[str] = []
    store = Checkpoints(place, said.append)
    for every in range(KEEP + 1):
        e.record.append("a.b", f"k{every}", {})
        e.catch_up()
        assert Checkpointer(e.record, store, {"engine": e}, every_rows=1).tick() is not None
    assert len(memory.checkpoint_names()) == KEEP
    other_body = Checkpoints(InMemory(open_memory(dsn)), said.append)  # another body's view
    loaded = other_body.load(Record.open(made))
    assert loaded is not None and loaded.seq == e.cursor and said == []
