"""The progress line: drawn on a terminal once the work has run a while,
cleared at the end, and never written where stderr is a pipe or a file."""

from __future__ import annotations

import io

from waiting import wait_for

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
