"""Genome stepping: a Scheduler tick re-run from the record with debug hooks,
its statements stepped both ways with the frame's locals."""

from __future__ import annotations

import pytest

from hale_runtime.tui.stepping import Stepper, parse_breakpoint, replay_tick, tick_of

SCHED = "vendor/dna/templates/dna/core/scheduler.hl"


def line_of(trace, text: str) -> int:
    """The line of scheduler.hl holding `text` (so the test survives edits above it)."""
    return next(n for n, s in enumerate(trace.sources[SCHED], 1) if text in s)


def test_a_tick_row_replays_the_tick_that_wrote_it(rows):
    assert tick_of(rows, 42) == (42, rows[42].at)  # the 02:00 skip: its own tick
    assert tick_of(rows, 44) == (43, rows[43].at)  # 05:00: the miss and the skip, one tick
    assert tick_of(rows, 5) == (6, rows[5].at)  # any other row: a tick at its time


def test_the_0500_tick_decides_what_the_record_says(rows, scheduler):
    trace = replay_tick(rows, 44, scheduler)
    assert trace.result == "1" and not trace.error
    assert [(k, key) for k, key, _ in trace.decided] == [
        ("schedule.missed", "hourly"),
        ("schedule.skipped", "hourly"),
    ]
    assert trace.decided[0][2]["count"] == rows[43].body["count"] == 2
    assert trace.frames[0].fn == "tick" and trace.frames[0].path == SCHED
    assert {f.fn for f in trace.frames} >= {"tick", "occur", "previous", "run", "next_of"}


def test_stepping_shows_the_frames_locals(rows, scheduler):
    trace = replay_tick(rows, 44, scheduler)
    st = Stepper(trace)
    f = st.frame
    local = dict(f.locals)
    assert local["now"] == str(rows[43].at) and local["org"] == "<host ScheduleHost>"
    assert 'last_task: "t4"' in local["s"]
    assert st.continue_() is False and "no breakpoint" in st.message
    st.toggle("scheduler.hl", line_of(trace, "last = previous("))
    assert st.continue_()
    f = st.frame
    local = dict(f.locals)
    assert f.fn == "occur" and [s.split(":")[0] for s in f.stack] == ["tick", "occur"]
    assert (local["count"], local["runs"], local["current"]) == ("2", "true", "1764392400000")
    st.step(1)
    assert st.frame.fn == "previous"  # stepping goes into calls
    st.step(-1)
    assert st.frame.fn == "occur"  # and back out
    st.over()
    assert st.frame.line == line_of(trace, "org.missed(sc.id")
    assert dict(st.frame.locals)["last"] == "1764388800000"  # previous() returned it
    st.out()
    assert st.frame.event == "return" and st.frame.fn == "occur"
    assert st.continue_(forward=False) and st.frame.line == line_of(trace, "last = previous(")


def test_a_skipped_occurrence_asks_whether_the_last_task_is_open(rows, scheduler):
    trace = replay_tick(rows, 42, scheduler)
    st = Stepper(trace, [("scheduler.hl", line_of(trace, "org.skipped(sc.id"))])
    assert st.continue_()
    assert dict(st.frame.locals)["at"] == "1764381600000"
    assert trace.decided == [("schedule.skipped", "hourly", rows[42].body)]


def test_breakpoints_are_file_and_line():
    assert parse_breakpoint("scheduler.hl:230") == ("scheduler.hl", 230)
    with pytest.raises(ValueError):
        parse_breakpoint("scheduler.hl")


def test_a_trace_stops_at_its_cap(rows, scheduler):
    trace = replay_tick(rows, 44, scheduler, cap=5)
    assert len(trace.frames) == 5 and trace.error == "stopped after 5 steps"


def test_any_genome_fn_is_recorded_with_its_locals(tmp_path):
    import scenario

    from hale_runtime.tui.stepping import record_fn

    root = scenario.with_sums(tmp_path / "p")
    trace = record_fn(root, "dna/org/sums.hl:total", ["[1, 2, 3]"])
    assert (trace.what, trace.result, trace.error) == ("total", "12", "")
    assert trace.title == "dna/org/sums.hl:total([1, 2, 3])"
    assert trace.sources["dna/org/sums.hl"][1].startswith("fn total(")
    st = Stepper(trace, [("sums.hl", 11)])
    assert st.continue_() and st.frame.fn == "double" and dict(st.frame.locals)["x"] == "1"
    assert [s.split(":")[0] for s in st.frame.stack] == ["total", "double"]
    st.out()
    assert st.frame.event == "return" and st.frame.value == "2"
    st.step(1)
    assert dict(st.frame.locals)["sum"] == "2"  # what double returned, added
    assert st.continue_() and dict(st.frame.locals)["x"] == "2"


def test_a_bad_fn_target_is_refused(tmp_path):
    import scenario

    from hale_lang.diagnostics import HaleError
    from hale_runtime.tui.stepping import parse_target, record_fn

    root = scenario.with_sums(tmp_path / "p")
    assert parse_target("dna/org/sums.hl:total") == ("dna/org/sums.hl", "total")
    for target, args in [("sums.hl", []), ("dna/org/nope.hl:total", []),
                         ("dna/org/sums.hl:total", ["[1"]), ("dna/org/sums.hl:total", [])]:  # fmt: skip
        with pytest.raises(ValueError):
            record_fn(root, target, args)
    with pytest.raises(HaleError):
        record_fn(root, "dna/org/sums.hl:nope")
    assert "must be a `List<Int>`" in record_fn(root, "dna/org/sums.hl:total", ["1"]).error
