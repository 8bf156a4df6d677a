"""The concerns fold: a second firing within the window raises one concern a
burst; time is the rows' own, from an injected clock; a checkpoint's
snapshot decides as the whole fold does."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hale_runtime.memory import open_memory
from hale_runtime.readings.concerns import Concerns
from hale_runtime.readings.sense import ReadingRefused, from_line, reading
from hale_runtime.record import Record, kinds
from hale_runtime.record.row import make_row

MIN = 60_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_767_225_600_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def setup(tmp_path: Path):
    repo = tmp_path / "p"
    pygit2.init_repository(str(repo)).config["hale.clone"] = "c0ffee00"
    clock = Clock()
    record = Record.open(repo, clock=clock, who="ann@box:c0ffee00")
    memory = open_memory(f"sqlite://{tmp_path / 'm.sqlite3'}")
    memory.migrate()
    yield record, memory, clock
    memory.close()


def fold(record, memory, window_s: float = 600) -> Concerns:
    return Concerns(record, memory, None, None, "ann@box:c0ffee00", window_s, 60, lambda: None)


def fire(record, clock, at_min: float, target: str = "web@n1") -> None:
    clock.now = 1_767_225_600_000 + int(at_min * MIN)
    record.append(kinds.READING_TAKEN, target, {"kind": "unhealthy", "source": "sense"})


def concerns(record) -> list:
    return record.rows(kind=kinds.CONCERN_RAISED)


def test_a_second_firing_within_the_window_is_one_concern_a_burst(setup):
    record, memory, clock = setup
    c = fold(record, memory)
    fire(record, clock, 0)
    c.tick()
    assert concerns(record) == []
    fire(record, clock, 5)
    fire(record, clock, 6, "db")  # another target is its own
    c.tick()
    (raised,) = concerns(record)
    firings = record.rows(kind=kinds.READING_TAKEN, key="web@n1")
    assert raised.key == "web@n1" and raised.body["readings"] == [r.id for r in firings]
    fire(record, clock, 9)  # the same burst: no second concern
    c.tick()
    assert len(concerns(record)) == 1
    fire(record, clock, 25)  # past the window: a new burst starts, alone
    c.tick()
    assert len(concerns(record)) == 1
    fire(record, clock, 26)
    c.tick()
    assert [r.key for r in concerns(record)] == ["web@n1", "web@n1"]
    assert c.pending == {r.id: "web@n1" for r in concerns(record)}  # raised here, to admit


def test_the_window_is_a_setting(setup):
    record, memory, clock = setup
    c = fold(record, memory, window_s=60)
    fire(record, clock, 0)
    fire(record, clock, 2)
    c.tick()
    assert concerns(record) == []
    fire(record, clock, 2.5)
    c.tick()
    assert len(concerns(record)) == 1


def test_a_concern_another_organization_raised_is_not_raised_again(setup):
    record, memory, clock = setup
    other = fold(record, memory)
    fire(record, clock, 0)
    fire(record, clock, 1)
    c = fold(record, memory)
    c.read()
    assert list(c.to_raise) == [record.rows(kind=kinds.READING_TAKEN)[-1].id]
    other.tick()  # raises it first, holding the claim
    c.tick()
    assert len(concerns(record)) == 1 and c.to_raise == {} and c.pending != {}


def test_a_snapshot_decides_as_the_whole_fold(setup):
    record, memory, clock = setup
    first = fold(record, memory)
    fire(record, clock, 0)
    first.tick()
    seq, snap = record.cursor(), first.snapshot()
    fire(record, clock, 3)
    resumed = fold(record, memory)
    resumed.restore(seq, snap)
    whole = fold(record, memory)
    resumed.read()
    whole.read()
    assert resumed.to_raise == whole.to_raise != {}
    assert resumed.targets == whole.targets


@settings(max_examples=200, deadline=None)
@given(target=st.text(max_size=40), kind=st.text(max_size=20), detail=st.text(max_size=50))
def test_any_reading_is_refused_with_why_or_makes_a_row_that_fits(target, kind, detail):
    try:
        found = reading(target, kind, detail)
    except ReadingRefused as refused:
        assert str(refused).startswith("a reading's ")
        return
    assert make_row(kinds.READING_TAKEN, found.target, found.body(), "w", 0, "c").key == target


@settings(max_examples=200, deadline=None)
@given(line=st.text(max_size=80))
def test_any_event_line_is_a_reading_or_refused(line):
    try:
        found = from_line(line, "web@n1")
    except ReadingRefused:
        return
    assert found.source == "application"
    assert make_row(kinds.READING_TAKEN, found.target, found.body(), "w", 0, "c").kind
