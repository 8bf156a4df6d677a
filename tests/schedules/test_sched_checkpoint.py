"""The organization's checkpoint: written as its folds go, a restart resumes
from it to the state a whole fold reaches, a damaged one is passed over
with one line; and the schedule fold's snapshot holds at any row."""

from __future__ import annotations

import marshal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedule_helpers import DAY, START, terms

from hale_runtime.memory import open_memory
from hale_runtime.node.organization import Organization
from hale_runtime.record import Row
from hale_runtime.schedules.state import Fold


def organization(project, monkeypatch, clock, said=None) -> Organization:
    memory_file = project / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory_file))
    open_memory(memory_file).migrate()
    if said is not None:
        monkeypatch.setattr("hale_runtime.node.organization._say", said.append)
    org = Organization(project, project, "org@box:c0ffee00")
    org.record.clock = clock
    org.load()
    return org


def folds(org: Organization) -> dict:
    """Every fold's snapshot, with the engine's settled work as the record says."""
    for fold in org.folds.values():
        fold.catch_up()
    return {name: fold.snapshot() for name, fold in org.folds.items()}


def declare_walk(org: Organization) -> None:
    org.record.append("schedule.declared", "walk", {
        **terms(id="walk", every_ms=DAY, definition="optimize-walk", args={},
                convener="position:leader").as_body(),
        "occurrence": START,
    })  # fmt: skip


def run_days(org: Organization, clock, days: int) -> None:
    for _ in range(days):
        clock.advance(DAY)
        for tick in org.tickers[:-1]:  # every ticker but the checkpoint's
            tick()


def test_a_restart_resumes_from_the_checkpoint_to_the_whole_fold(project, monkeypatch, clock):
    org = organization(project, monkeypatch, clock)
    declare_walk(org)
    run_days(org, clock, 3)
    assert sorted(org.folds) == ["concerns", "engine", "intake", "scheduler", "settler"]
    checkpointer = org.tickers[-1].__self__
    checkpointer.every_rows = 1
    path = org.checkpoints.place.folder / checkpointer.tick()
    run_days(org, clock, 2)  # a tail past the checkpoint
    said: list[str] = []
    resumed = organization(project, monkeypatch, clock, said)
    assert said == [] and resumed.engine.cursor == org.engine.cursor
    whole_said: list[str] = []
    path.unlink()
    whole = organization(project, monkeypatch, clock, whole_said)
    assert whole_said == ["checkpoint: none written yet; folding the whole record"]
    assert folds(resumed) == folds(whole) == folds(org)
    assert resumed.engine.state.top_root == 5 and not resumed.engine.state.tasks  # all settled


def test_a_damaged_checkpoint_is_passed_over_and_the_fold_is_the_same(project, monkeypatch, clock):
    org = organization(project, monkeypatch, clock)
    declare_walk(org)
    run_days(org, clock, 2)
    checkpointer = org.tickers[-1].__self__
    checkpointer.every_rows = 1
    path = org.checkpoints.place.folder / checkpointer.tick()
    path.write_bytes(path.read_bytes()[:-10])  # torn
    said: list[str] = []
    again = organization(project, monkeypatch, clock, said)
    assert len(said) == 1 and said[0].startswith(f"checkpoint: {path.name} passed over: damaged")
    assert folds(again) == folds(org)


KINDS = ("schedule.declared", "schedule.paused", "schedule.resumed", "schedule.skipped",
         "schedule.missed", "workflow.admitted", "workflow.settled")  # fmt: skip


@st.composite
def schedule_rows(draw) -> list[Row]:
    rows = []
    for seq in range(1, draw(st.integers(0, 40)) + 1):
        kind = draw(st.sampled_from(KINDS))
        schedule = draw(st.sampled_from(["a", "b"]))
        at = START + seq * 60_000
        occurrence = START + draw(st.integers(0, 50)) * 60_000
        task = f"t{draw(st.integers(1, 6))}"
        if kind == "schedule.declared":
            key, body = schedule, {**terms(id=schedule, every_ms=60_000).as_body(),
                                   "occurrence": occurrence}  # fmt: skip
        elif kind == "workflow.admitted":
            minute = draw(st.integers(0, 50))
            key, body = task, {"ask": f"sched:{schedule}@2025-11-29T00:{minute:02}Z", "plan": {}}
        elif kind == "workflow.settled":
            key, body = task, {"outcome": "succeeded"}
        else:
            key, body = schedule, {"occurrence": occurrence, "last": occurrence, "count": 2}
        rows.append(Row(kind, key, body, "w", at, "c", f"id{seq}", seq))
    return rows


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=schedule_rows(), data=st.data())
def test_the_schedule_fold_from_a_snapshot_is_the_whole_fold(rows, data) -> None:
    at = data.draw(st.integers(0, len(rows)))
    snap = marshal.loads(marshal.dumps(Fold().apply_all(rows[:at]).snapshot()))
    resumed = Fold.restore(snap).apply_all(rows[at:])
    assert resumed.snapshot() == Fold().apply_all(rows).snapshot()
