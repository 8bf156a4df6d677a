"""A progress bar on stderr for work that can outlast a person's patience.

`progress(label, total)` is a context manager answering a `Progress`; the
work calls `update(done)` as it goes. With a known total the line is a bar
(its share, the time spent, the time left at the pace so far); with `total`
None it says how long the work has run (a sync or an upgrade is one opaque
call). Nothing is drawn unless stderr is a terminal (a pipe or a log gets
nothing, so --json and pipes stay clean) and the work has run `after`
seconds (two by default, HALE_PROGRESS_AFTER to change it: a quick verb
never flickers). A daemon thread redraws the line five times a second, `\\r`
and an erase each time, so opaque work shows it is alive too; on exit the
line is cleared, leaving the verb's own output as it was.

Work inside work (the record read from git while a sync runs) takes the
line while it runs: bars stack, only the innermost draws, and it draws once
the outermost's delay has passed. `install` makes the bar the way lower
layers' long work is shown (hale_runtime/long_work.py: the record's chain
reading many commits, an index rebuilt).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from hale_runtime import long_work

AFTER_S = 2.0
WIDTH = 30  # cells of the bar

_stack: list[Progress] = []  # the bars open now, innermost last
_lock = threading.Lock()


def after_s() -> float:
    """The delay before a bar shows: HALE_PROGRESS_AFTER seconds, else two."""
    try:
        after = float(os.environ.get("HALE_PROGRESS_AFTER", AFTER_S))
    except ValueError:
        return AFTER_S
    return min(max(after, 0.0), 3600.0) if math.isfinite(after) else AFTER_S


class Progress:
    def __init__(self, label: str, total: int | None, stream: TextIO, after: float) -> None:
        self.label, self.total, self.stream, self.after = label, total, stream, after
        self.done = 0
        self.began = time.monotonic()
        self.drawn = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, done: int) -> None:
        self.done = done

    def line(self) -> str:
        """The line as it is drawn now."""
        spent = time.monotonic() - self.began
        if not self.total:
            return f"{self.label}: working, {spent:.0f} s"
        share = min(max(self.done / self.total, 0.0), 1.0)
        full = int(share * WIDTH)
        bar = "█" * full + "░" * (WIDTH - full)
        left = f", {spent / share - spent:.0f} s left" if 0.01 <= share < 1 else ""
        return f"{self.label} {bar} {share:4.0%} {spent:.0f} s{left}"

    def _draw(self) -> None:
        with _lock:
            if not _stack or _stack[-1] is not self:
                return  # work inside this one has the line
            self.stream.write("\r\x1b[2K" + self.line())
            self.stream.flush()
            self.drawn = True

    def _run(self) -> None:
        if self._stop.wait(self.after):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(0.2)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.drawn:
            with _lock:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()


@contextmanager
def progress(
    label: str, total: int | None = None, stream: TextIO | None = None, after: float | None = None
) -> Iterator[Progress]:
    """A Progress drawn on `stream` (stderr) while the block runs, if a terminal."""
    out = stream if stream is not None else sys.stderr
    if after is None:
        after = after_s()
        if _stack:  # inside other work: show once the outermost has waited its delay
            after = max(after - (time.monotonic() - _stack[0].began), 0.0)
    bar = Progress(label, total, out, after)
    tty = getattr(out, "isatty", lambda: False)()
    if tty:
        with _lock:
            _stack.append(bar)
        bar.start()
    try:
        yield bar
    finally:
        if tty:
            bar.stop()
            with _lock:
                _stack.remove(bar)


@contextmanager
def _shown(label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    with progress(label, total) as bar:
        yield bar.update


def install() -> None:
    """Show lower layers' long work (long_work.steps) as a bar on stderr."""
    long_work.show_with(_shown)
