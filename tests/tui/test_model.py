"""The debugger's model without a terminal: time travel over the engine's
fold, jumps, filters, search, breakpoints, the budget and schedule panes."""

from __future__ import annotations

import pytest

from hale_runtime.engine.show import fold_root
from hale_runtime.tui.model import DebugModel, parse_filter
from hale_runtime.tui.tree import states, tree_lines

# (seq, task, {part id: state}) at chosen rows of the three executions
EXPECTED = [
    (1, "t1", {"t1": "open", "t1/wf1/s0": "pending"}),
    (3, "t1", {"t1/wf1/s0": "open", "t1/wf1/s0/w": "pending"}),
    (4, "t1", {"t1/wf1/s0/w": "open", "t1/wf1/s0/w/a0": "pending"}),
    (5, "t1", {"t1/wf1/s0/w/a0": "open"}),
    (7, "t1", {"t1/wf1/s0/w/a0": "failed", "t1/wf1/s0/w": "open"}),
    (8, "t1", {"t1/wf1/s0/w/a1": "pending", "t1/wf1/s0/w": "open"}),
    (11, "t1", {"t1/wf1/s0/w/a1": "succeeded", "t1/wf1/s0/w": "open", "t1": "open"}),
    (12, "t1", {"t1/wf1/s0/w": "succeeded", "t1/wf1/s0": "succeeded", "t1": "open"}),
    (13, "t1", {"t1": "succeeded", "t1/wf1/s0/w/a0": "failed"}),
    (14, "t2", {"t2": "open", "t2/wf1/s1": "pending"}),
    (20, "t2", {"t2/wf1/s0/f/a0": "failed", "t2/wf1/s0/f": "open"}),
    (24, "t2", {"t2/wf1/s0/f/a1": "failed", "t2/wf1/s0/f": "open"}),
    (25, "t2", {"t2/wf1/s0/f": "failed", "t2/wf1/s0": "failed", "t2": "open"}),
    (26, "t2", {"t2": "failed", "t2/wf1/s1": "pending", "t2/wf1/s1/never": "pending"}),
    (31, "t3", {"t3/wf1/s0/p/a0": "open", "t3": "open"}),
    (32, "t3", {"t3": "open", "t3/wf1/s0/p/a0": "open"}),
    (33, "t3", {"t3/wf1/s0/p/a0": "fenced", "t3/wf1/s0/p": "open"}),
    (34, "t3", {"t3/wf1/s0/p": "fenced", "t3/wf1/s0": "fenced", "t3": "open"}),
    (35, "t3", {"t3": "fenced", "t3/wf1/s0/p/a0": "fenced"}),
]


def check(m: DebugModel, rows: list) -> None:
    """The tree as of the cursor is the engine's own fold of the rows up to it."""
    task = m.tree_task
    assert task is not None
    oracle = fold_root(rows[: m.cursor + 1], task)
    assert m.tree() == tree_lines(oracle, task)


def test_stepping_back_and_forth_across_three_executions(rows):
    m = DebugModel(rows, every=4)  # a checkpoint every 4 rows
    m.home()
    forward = []
    for _ in range(34):
        check(m, rows)
        forward.append((m.row.seq, m.tree()))
        m.move(1)
    backward = []
    for _ in range(34):
        m.move(-1)
        check(m, rows)
        backward.append((m.row.seq, m.tree()))
    assert backward[::-1] == forward  # the same trees, whichever way the cursor came
    for seq, task, want in EXPECTED + EXPECTED[::-1]:
        m.goto(seq - 1)
        assert m.row.seq == seq and m.tree_task == task
        got = states(m.tree())
        assert {k: got[k] for k in want} == want, f"row {seq}"
    m.goto(31)  # t3 halted by the cancellation: the note says so
    assert m.tree()[0].note == "halted: cancelled"


def test_a_selected_task_stays_in_the_centre_and_next_in_task_walks_it(rows):
    m = DebugModel(rows, task="t2")
    assert m.row.seq == 14  # opens on the task's first row
    seqs = [m.row.seq]
    while m.next_in_task():
        seqs.append(m.row.seq)
    assert seqs == list(range(14, 27))
    assert "no row of t2 after" in m.message
    m.end()
    assert m.tree_task == "t2" and states(m.tree())["t2"] == "failed"
    assert m.next_in_task(forward=False) and m.row.seq == 26


def test_next_failure_and_breakpoints(rows):
    m = DebugModel(rows)
    m.home()
    hits = []
    while m.next_failure():
        hits.append((m.row.seq, m.row.kind))
    assert hits[:6] == [
        (7, "attempt.outcome"), (20, "attempt.outcome"), (24, "attempt.outcome"),
        (25, "work.settled"), (26, "workflow.settled"), (33, "attempt.outcome"),
    ]  # fmt: skip
    m.home()
    assert not m.continue_() and "no breakpoint" in m.message
    m.goto(6)  # row 7, attempt.outcome
    m.toggle_break_kind()
    m.home()
    m.continue_()
    assert m.row.seq == 7
    m.continue_()
    assert m.row.seq == 11
    m.toggle_break_kind()  # cleared
    m.goto(27)  # row 28: task.born t3
    m.toggle_break_key()  # key t3: any key starting with it
    m.home()
    assert m.continue_() and m.row.seq == 27
    m.end()
    assert m.continue_(forward=False) and m.row.seq == 35


def test_filters_narrow_what_stepping_visits(rows):
    m = DebugModel(rows)
    m.goto(20)
    m.set_filter("kind:attempt.outcome,workflow. key:t2")
    assert [rows[i].seq for i in m.visible] == [14, 20, 24, 26]
    assert m.row.seq == 20  # the cursor stays where it was when it still shows
    m.move(1)
    assert m.row.seq == 24 and states(m.tree())["t2/wf1/s0/f/a1"] == "failed"
    m.set_filter("kind:schedule*")
    assert {rows[i].kind for i in m.visible} == {
        "schedule.declared", "schedule.answered", "schedule.skipped", "schedule.missed"
    }  # fmt: skip
    m.set_filter("")
    assert len(m.visible) == len(rows)
    assert parse_filter("t1/ kind:a.,b").text() == "kind:a.,b key:t1/"


def test_search_finds_kind_key_and_body(rows):
    m = DebugModel(rows)
    m.home()
    assert m.search("fenced") and m.row.seq == 33
    assert m.search("SKIPPED") and m.row.seq == 43
    assert m.search() and m.row.seq == 45
    assert not m.search() and "no match" in m.message
    assert m.search("t2/wf1/s0/f/a1", forward=False) and m.row.seq == 24


def test_the_budget_and_the_performer_as_of_the_cursor(rows):
    m = DebugModel(rows)
    m.goto(5)  # row 6: the first model call
    assert m.budget_as_of()["spent_micros"] == 1500 and m.budget_as_of()["calls"] == 1
    assert m.performer() == "agent"
    m.goto(4)
    assert m.budget_as_of()["spent_micros"] == 0
    m.end()
    b = m.budget_as_of()
    assert (b["spent_micros"], b["calls"], b["window"]) == (6000, 4, "day/2025-11-29")


def test_schedule_rows_show_the_schedule_as_of_the_cursor(rows):
    m = DebugModel(rows)
    m.goto(35)  # row 36: declared
    s = m.schedule()
    assert s is not None and (s.occurred, s.skipped, s.missed) == (0, 0, 0)
    m.goto(37)  # row 38: the 01:00 occurrence admitted as t4
    s = m.schedule()
    assert (s.occurred, s.last_task, s.last_open) == (1, "t4", True)
    m.end()
    s = m.schedule()
    assert (s.occurred, s.skipped, s.missed) == (1, 2, 2)
    m.goto(37)  # and back again
    assert m.schedule().skipped == 0
    m.goto(2)
    assert m.schedule() is None


def test_follow_takes_rows_appended_since(rows):
    m = DebugModel(rows[:20])
    assert m.row.seq == 20 and states(m.tree())["t2/wf1/s0/f"] == "open"
    assert m.extend(rows[20:]) == len(rows) - 20
    m.end()
    assert m.row.seq == len(rows)
    m.goto(25)
    assert states(m.tree())["t2"] == "failed"


@pytest.mark.parametrize("every", [1, 3, 1000])
def test_checkpoint_spacing_changes_nothing(rows, every):
    m = DebugModel(rows, every=every)
    for seq in (35, 2, 30, 13, 33, 1, 26):
        m.goto(seq - 1)
        check(m, rows)


def test_the_time_machine_restores_a_checkpoint_when_that_is_cheaper():
    from hale_runtime.tui.timetravel import TimeMachine

    items = list(range(100))
    tm = TimeMachine(list, list.append, items, every=10)
    assert tm.at(95) == items[:95]
    tm.apply_s = 1.0  # re-folding now looks dear: going back restores a copy
    assert tm.at(57) == items[:57] and tm.n == 57
    assert tm._checkpoints[50] == items[:50]  # the checkpoint itself is untouched
    tm.apply_s, tm.copy_s = 1e-9, 1.0  # and now a copy looks dear
    assert tm.at(3) == items[:3]
    assert tm.at(1000) == items  # clamped


def test_a_child_execution_in_the_tree_as_it_is_fenced(tmp_path):
    import scenario

    from hale_runtime.record import Record

    rows = Record.open(scenario.nested(tmp_path / "nested")).rows()
    m = DebugModel(rows, task="t1")
    seen = {}
    while True:
        check(m, rows)
        seen[(m.row.kind, m.row.key)] = states(m.tree())
        if not m.next_in_task():
            break
    admitted = seen[("workflow.admitted", "t1.s0.mid")]
    assert admitted["t1.s0.mid"] == "open" and admitted["t1/wf1/s1"] == "pending"
    before = seen[("workflow.admitted", "t1")]
    assert before["t1/wf1/s0/mid"] == "pending"  # the child, not admitted yet
    end = seen[("workflow.settled", "t1")]
    assert end["t1"] == "fenced" and end["t1.s0.mid"] == "fenced"
    assert end["t1.s0.mid/wf1/s0/w/a0"] == "fenced" and end["t1/wf1/s0/a"] == "succeeded"
    assert end["t1/wf1/s1"] == "pending"  # never started
    m.goto(0)
    assert states(m.tree())["t1/wf1/s0"] == "pending"  # and back to the start


def test_cases_and_fences_have_marks_of_their_own(rows, case_rows):
    from hale_runtime.tui.model import row_mark

    marks = {(r.kind, r.key): row_mark(r) for r in case_rows}
    assert marks[("board.case", "t1/wf1/s1/post/a0")] == "case"
    assert marks[("effect.unresolved", "t2/wf1/s0/reconcile/a0")] == "case"
    assert marks[("attempt.outcome", "t1/wf1/s0/reconcile/a0")] == ""  # resolved succeeded
    fenced = {(r.kind, r.key): row_mark(r) for r in rows if r.key.startswith("t3")}
    assert fenced[("workflow.cancelled", "t3")] == "fence"
    assert fenced[("attempt.outcome", "t3/wf1/s0/p/a0")] == "fence"
    assert fenced[("workflow.settled", "t3")] == "fence"
    failed = [r for r in rows if r.kind == "attempt.outcome" and r.key == "t2/wf1/s0/f/a0"]
    assert row_mark(failed[0]) == "failure"
    m = DebugModel(case_rows, task="t1")
    m.goto(11)  # the board.case row
    assert states(m.tree())["t1/wf1/s1/post/a0"] == "case"
    assert states(m.tree())["t1/wf1/s0/reconcile/a0"] == "succeeded"
    m.goto(5)  # the effect.unresolved row of t1, before the person resolved it
    assert states(m.tree())["t1/wf1/s0/reconcile/a0"] == "case"


def test_readings_and_concerns_have_marks_of_their_own(reading_rows):
    from hale_runtime.tui.model import row_mark

    marks = {r.kind: row_mark(r) for r in reading_rows}
    assert marks["reading.taken"] == marks["reading.acted"] == "reading"
    assert marks["concern.raised"] == "concern"
    assert marks["workflow.admitted"] == ""
