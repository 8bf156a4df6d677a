"""The app driven by Textual's pilot: keys move the model, the panes show it."""

from __future__ import annotations

import asyncio
import functools

from textual.widgets import Static

from hale_runtime.tui.app import DebugApp, GenomeScreen, HelpScreen
from hale_runtime.tui.model import DebugModel
from hale_runtime.tui.widgets import Detail, LocalsView, SourceView, Timeline, TreeView

SIZE = (80, 24)


def text(app, widget) -> str:
    return str(app.screen.query_one(widget).content)


def sync(test):
    """Run an async test on a fresh event loop (no async plugin is needed)."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return run


def make(rows, task=None, **kwargs) -> DebugApp:
    return DebugApp(DebugModel(rows, task), **kwargs)


@sync
async def test_stepping_through_the_cancelled_execution_with_keys(rows):
    app = make(rows, "t3")
    async with app.run_test(size=SIZE) as pilot:
        assert app.model.row.seq == 27
        seen = []
        for _ in range(8):
            await pilot.press("n")
            seen.append((app.model.row.seq, text(app, TreeView).splitlines()[0]))
        assert seen[-1] == (35, "⊘ t3 cancel@1 fenced  t3 was cancelled ◀")
        assert seen[4] == (32, "○ t3 cancel@1 open  halted: cancelled ◀")
        assert "⊘ a0 agent fenced  fenced: t3 was cancelled\n" in text(app, TreeView)
        await pilot.press("k", "k", "k")  # back in time: the attempt is out again
        assert app.model.row.seq == 32
        assert "○ a0 agent open  claimed, token 1" in text(app, TreeView)
        assert "32 workflow.cancelled\nt3\n" in text(app, Detail)


@sync
async def test_failure_end_breakpoints_and_the_bar(rows):
    app = make(rows)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "x")
        assert app.model.row.seq == 7 and text(app, Timeline).splitlines()[6].startswith(" ✗  7 ")
        await pilot.press("b", "home", "c", "c")
        assert app.model.row.seq == 11
        assert "row 11/45" in text(app, "#bar")
        await pilot.press("G")
        assert app.model.row.seq == 45
        await pilot.press("c")
        assert "no breakpoint after this row" in text(app, "#status")


@sync
async def test_search_and_filter_prompts(rows):
    app = make(rows)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "slash", *"fenced", "enter")
        assert app.model.row.seq == 33
        await pilot.press("i", *"kind:schedule.", "enter")
        assert "filter kind:schedule." in text(app, "#bar")
        assert app.model.row.kind.startswith("schedule.")
        assert "schedule hourly live" in text(app, Detail)
        await pilot.press("i", *["backspace"] * 20, "enter")
        assert len(app.model.visible) == len(rows)


@sync
async def test_follow_mode_tails_rows_as_they_arrive(rows):
    rows = list(rows)  # rows arrive below: the session's list stays as it is
    have = {"n": 20}

    def source(since: int) -> list:
        return rows[since : have["n"]]

    app = DebugApp(DebugModel(rows[:10]), source=source)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        assert app.following and app.model.row.seq == 20
        have["n"] = len(rows)
        assert app.poll() == len(rows) - 20
        await pilot.pause()
        assert app.model.row.seq == len(rows) and "following" in text(app, "#bar")
        await pilot.press("k", "k")  # stepping back while following: the cursor stays
        await pilot.pause(0.7)  # a poll or more, with nothing new
        assert app.model.row.seq == len(rows) - 2
        rows.append(rows[-1]._replace(seq=len(rows) + 1))  # a row arrives
        have["n"] = len(rows)
        assert app.poll() == 1 and app.model.row.seq == len(rows) - 3
        await pilot.press("G")  # back on the tail: the next row takes it on
        rows.append(rows[-1]._replace(seq=len(rows) + 1))
        have["n"] = len(rows)
        assert app.poll() == 1 and app.model.row.seq == len(rows)
        await pilot.press("f")
        assert not app.following


@sync
async def test_genome_stepping_shows_source_and_locals(rows, scheduler):
    app = make(rows, scheduler=lambda: scheduler)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G", "s")  # the 05:00 tick: a miss and a skip
        assert isinstance(app.screen, GenomeScreen)
        assert "▶" in text(app, SourceView) and "fn tick(" in text(app, SourceView)
        assert f"now = {rows[43].at}" in text(app, LocalsView)
        await pilot.press("n", "n", "n")
        assert "handled = 0" in text(app, LocalsView)
        stepper = app.screen.stepper
        lines = stepper.trace.sources[stepper.frame.path]
        target = next(n for n, s in enumerate(lines, 1) if "occur(sc, org, cron, now)" in s)
        await pilot.press(*["j"] * (target - stepper.frame.line), "b")  # the source cursor's line
        (mark,) = stepper.breakpoints
        await pilot.press("p", "c")
        assert stepper.frame.line == mark[1]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "escape")
        assert app.hl_breaks == {mark}  # kept for the next tick stepped
        await pilot.press("s")
        assert app.screen.stepper.frame.line == mark[1]  # runs to it at once


@sync
async def test_genome_stepping_runs_to_the_end_and_shows_what_it_decided(rows, scheduler):
    app = make(rows, scheduler=lambda: scheduler)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G", "s")
        frames = len(app.screen.stepper.trace.frames)
        for _ in range(frames):
            await pilot.press("o")
        shown = text(app, LocalsView)
        assert "tick returned 1" in shown
        assert "schedule.missed hourly" in shown and "schedule.skipped hourly" in shown


@sync
async def test_help_lists_every_key(rows):
    app = make(rows)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        assert not isinstance(app.screen, HelpScreen)


@sync
async def test_an_empty_record_and_a_genome_that_does_not_build():
    from hale_lang.diagnostics import Diagnostic, HaleError

    def broken():
        raise HaleError([Diagnostic("E0001", "it does not parse", None)])

    app = DebugApp(DebugModel([]), scheduler=broken)
    async with app.run_test(size=SIZE) as pilot:
        assert "no rows" in text(app, Timeline)
        await pilot.press("j", "k", "n", "x", "c", "s", "t", "b")
        assert app.model.row is None and "row 0/0" in text(app, "#bar")


@sync
async def test_the_genome_screen_reports_a_broken_scheduler(rows):
    from hale_lang.diagnostics import Diagnostic, HaleError

    def broken():
        raise HaleError([Diagnostic("E0001", "it does not parse", None)])

    app = make(rows, scheduler=broken)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert "the Scheduler does not build" in text(app, "#status")
        assert not isinstance(app.screen, GenomeScreen)


@sync
async def test_a_genome_fn_opens_on_its_steps_and_escape_goes_to_the_record(tmp_path):
    import scenario

    from hale_runtime.tui.stepping import record_fn

    root = scenario.with_sums(tmp_path / "p")
    trace = record_fn(root, "dna/org/sums.hl:total", ["[1, 2, 3]"])
    app = DebugApp(DebugModel([]), trace=trace, hl_breaks=[("sums.hl", 11)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GenomeScreen)
        assert "sums.hl:11 in double" in text(app, "#bar")  # ran to the breakpoint
        assert "▶●  11     return x * 2;" in text(app, SourceView)
        assert " x = 1\n" in text(app, LocalsView)
        await pilot.press("c", "c")
        assert " x = 3\n" in text(app, LocalsView)
        await pilot.press("u", "o", "o")
        assert "total returned 12" in text(app, LocalsView)
        await pilot.press("question_mark")
        assert "dna/org/sums.hl:total([1, 2, 3])" in str(app.screen.query_one(Static).content)
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, GenomeScreen) and "no rows" in text(app, Timeline)
