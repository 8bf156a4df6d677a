"""A progress line on stderr for work that can outlast a person's patience.

`progress(label, total)` is a context manager answering a `Progress`; the
work calls `update(done)` as it goes (with `total` None it only says how
long it has run: a sync or an upgrade is one opaque call). Nothing is drawn
unless stderr is a terminal (a pipe or a log gets nothing, so output stays
parseable) and the work has run `after` seconds (two by default: a quick
verb never flickers). A daemon thread redraws the line five times a second,
`\\r` and an erase each time, so opaque work shows it is alive too; on exit
the line is cleared, leaving the verb's own output as it was.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

AFTER_S = 2.0
WIDTH = 30  # cells of the bar


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
        return f"{self.label} {bar} {share:4.0%} {spent:.0f} s"

    def _draw(self) -> None:
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
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


@contextmanager
def progress(
    label: str, total: int | None = None, stream: TextIO | None = None, after: float = AFTER_S
) -> Iterator[Progress]:
    """A Progress drawn on `stream` (stderr) while the block runs, if a terminal."""
    out = stream if stream is not None else sys.stderr
    bar = Progress(label, total, out, after)
    tty = getattr(out, "isatty", lambda: False)()
    if tty:
        bar.start()
    try:
        yield bar
    finally:
        if tty:
            bar.stop()
