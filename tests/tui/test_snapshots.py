"""Screenshots of the main views at 80x24, pinned with pytest-textual-snapshot.
`docs/debugger.md` shows these SVGs (copied from __snapshots__)."""

from __future__ import annotations

from hale_runtime.tui.app import DebugApp
from hale_runtime.tui.model import DebugModel

SIZE = (80, 24)


def app_at(rows, seq: int, task: str | None = None, **kwargs) -> DebugApp:
    m = DebugModel(rows, task)
    m.goto(seq - 1)
    return DebugApp(m, **kwargs)


def test_retried_execution(rows, snap_compare):
    assert snap_compare(app_at(rows, 8), terminal_size=SIZE)


def test_failed_execution(rows, snap_compare):
    assert snap_compare(app_at(rows, 26), terminal_size=SIZE)


def test_cancelled_execution_fenced(rows, snap_compare):
    assert snap_compare(app_at(rows, 33, "t3"), terminal_size=SIZE)


def test_schedule_row(rows, snap_compare):
    assert snap_compare(app_at(rows, 44), terminal_size=SIZE)


def test_filtered_with_a_breakpoint(rows, snap_compare):
    press = ["i", *"kind:attempt.,work.", "enter", "home", "b", "c"]
    assert snap_compare(app_at(rows, 1), press=press, terminal_size=SIZE)


def test_genome_stepping(rows, scheduler, snap_compare):
    app = app_at(rows, 45, scheduler=lambda: scheduler)
    press = ["s", *["n"] * 8]
    assert snap_compare(app, press=press, terminal_size=SIZE)


def test_help(rows, snap_compare):
    assert snap_compare(app_at(rows, 1), press=["question_mark"], terminal_size=SIZE)


def test_monochrome(rows, snap_compare, monkeypatch):
    """NO_COLOR: states still read by their glyphs, the cursor by reverse video."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app_at(rows, 33, "t3"), terminal_size=SIZE)


def test_a_case_on_the_boards_queue(case_rows, snap_compare):
    """◇ in the tree and beside the rows: the post handed to a person."""
    assert snap_compare(app_at(case_rows, 12, "t1"), terminal_size=SIZE)


def test_an_effect_nobody_could_vouch_for_is_a_case(case_rows, snap_compare):
    assert snap_compare(app_at(case_rows, 18, "t2"), terminal_size=SIZE)


def test_readings_and_the_concern_they_raise(reading_rows, snap_compare):
    """`≈` beside each reading and what its node did, `‼` beside the concern."""
    seq = next(r.seq for r in reading_rows if r.kind == "concern.raised")
    assert snap_compare(app_at(reading_rows, seq), terminal_size=SIZE)
