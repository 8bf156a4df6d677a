"""The progress line: drawn on a terminal once the work has run a while,
cleared at the end, and never written where stderr is a pipe or a file."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from waiting import wait_for

from hale_runtime import long_work
from hale_runtime.cli import progress as bars
from hale_runtime.cli.progress import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_the_bar_and_then_a_clean_line():
    out = Terminal()
    with progress("simulate", 200, stream=out, after=0) as bar:
        bar.update(100)
        wait_for(lambda: "50%" in out.getvalue(), 60, "the bar at half")
    text = out.getvalue()
    assert text.startswith("\r\x1b[2Ksimulate ") and "█" * 15 in text
    assert text.endswith("\r\x1b[2K")  # cleared: the verb's own output follows on a clean line


def test_opaque_work_says_how_long_it_has_run():
    out = Terminal()
    with progress("sync", stream=out, after=0):
        wait_for(lambda: "sync: working" in out.getvalue(), 60, "the line")


def test_a_pipe_gets_nothing_and_quick_work_draws_nothing():
    pipe, quick = io.StringIO(), Terminal()
    with progress("simulate", 10, stream=pipe, after=0) as bar:
        bar.update(5)
        with progress("sync", stream=quick, after=600):
            pass
    assert pipe.getvalue() == "" and quick.getvalue() == ""


def test_work_inside_work_takes_the_line_while_it_runs():
    out = Terminal()
    with progress("sync", stream=out, after=0):
        wait_for(lambda: "sync: working" in out.getvalue(), 60, "the outer line")
        with progress("reading the record", 40, stream=out, after=0) as inner:
            inner.update(20)
            wait_for(lambda: "reading the record" in out.getvalue(), 60, "the inner bar")
            mark = len(out.getvalue())
            wait_for(lambda: out.getvalue().count("\r", mark) >= 2, 60, "two redraws")
            assert "sync" not in out.getvalue()[mark:]  # the outer one waits meanwhile
        mark = len(out.getvalue())
        wait_for(lambda: "sync: working" in out.getvalue()[mark:], 60, "the outer again")


def test_lower_layers_long_work_is_drawn_once_installed(monkeypatch):
    out = Terminal()
    monkeypatch.setattr("sys.stderr", out)
    monkeypatch.setenv("HALE_PROGRESS_AFTER", "0")
    long_work.show_with(None)  # as a process starts (a verb run in-process installs it)
    with long_work.steps("reading the record", 10) as told:
        told(5)  # nothing installed: nothing drawn
    assert out.getvalue() == ""
    bars.install()
    try:
        with long_work.steps("reading the record", 10) as told:
            told(5)
            wait_for(lambda: "50%" in out.getvalue(), 60, "the bar")
        with long_work.steps("reading the record", 0) as told:  # too little to show
            told(0)
    finally:
        long_work.show_with(None)
    assert out.getvalue().count("reading the record") >= 1


@given(
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=30)
    | st.floats().map(str)
)
def test_any_delay_setting_gives_a_sane_delay(text):
    import os

    os.environ["HALE_PROGRESS_AFTER"] = text
    try:
        after = bars.after_s()
    finally:
        del os.environ["HALE_PROGRESS_AFTER"]
    assert 0.0 <= after <= 3600.0
