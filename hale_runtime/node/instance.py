"""The instance a node runs: its application kept running, its events read,
the readings that name it acted on.

Each tick (step 7) the host:

1. reads the new whole lines of the application's events file
   (`$HALE_DNA_EVENTS`, from where it stood when the host started: events
   of an instance that is gone are not this one's) and notes whether the
   application exited;
2. records each as a `reading.taken` row, all in one append, durable before
   anything acts on them (an exit is a reading too, `exited`, from the
   host); a line that is no event is said in the application's log and
   recorded as nothing;
3. reads the record for readings that name its instance (`<app>@<holder>`),
   whoever wrote them (`hale dna sense` from any clone arrives by the sync
   of step 3), since the host started;
4. restarts the instance once for all of them (after the grace; one that
   exited is started again when its backoff allows) and writes one
   `reading.acted` row for each reading, saying what was done.

A reading's target is compared whole: `web@ann@box:1a2b3c4d` names this
node's `web`, `web` alone names no node's instance (it is recorded and
counted toward a concern, and nothing is restarted).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

from hale_runtime.node.application import Application
from hale_runtime.readings.sense import Reading, ReadingRefused, as_rows, from_line, reading
from hale_runtime.record import Record, kinds
from hale_runtime.record.follow import Follower

MAX_LINES = 1000  # event lines one tick takes; the rest wait for the next


class Instance:
    """The host's keeper of its application and of the readings naming it."""

    def __init__(self, app: Application, record: Record):
        self.app, self.record = app, record
        self.events_at = _size(app.events_path)
        self.follower = Follower(record, record.stamped_count())
        self.waiting: list[Any] = []  # readings to answer when the exited app starts again

    def tick(self, start: Callable[[], int], grace_s: float) -> None:
        """Record what happened, then act on what names this instance."""
        taken = self._events()
        exit_code = self.app.exited()
        if exit_code is not None:
            detail = f"exited with code {exit_code}" if exit_code >= 0 else f"signal {-exit_code}"
            taken.append(reading(self.app.instance, "exited", detail, "host"))
        if taken:
            self.record.append_many(as_rows(self.record, taken))
        naming = [r for r in self.follower.new_rows() if _names(r, self.app.instance)]
        acted = self._act(naming, start, grace_s)
        if acted:
            self.record.append_many(acted)

    def _events(self) -> list[Reading]:
        lines = self._new_lines()
        found: list[Reading] = []
        for line in lines:
            if not line.strip():
                continue
            try:
                found.append(from_line(line, self.app.instance))
            except ReadingRefused as refused:
                self.app.note(f"an event line recorded as nothing: {refused}")
        return found

    def _new_lines(self) -> list[str]:
        with contextlib.suppress(FileNotFoundError):
            with open(self.app.events_path, "rb") as events:
                if events.seek(0, os.SEEK_END) < self.events_at:
                    self.events_at = 0  # truncated by someone: read it from its start
                events.seek(self.events_at)
                data = events.read(1 << 20)
            whole = data[: data.rfind(b"\n") + 1]
            lines = whole.decode("utf-8", "replace").split("\n")[:-1][:MAX_LINES]
            self.events_at += sum(len(line.encode("utf-8", "replace")) + 1 for line in lines)
            return lines
        return []

    def _act(self, naming: list[Any], start: Callable[[], int], grace_s: float) -> list:
        """Restart once for every reading naming the instance; their `reading.acted` rows."""
        if not naming and not (self.waiting and self.app.pid is not None):
            return []
        before = self.app.pid
        if naming and before is not None:
            self.app.note(f"restarting: {len(naming)} reading(s) name this instance")
            self.app.stop(grace_s)
            after = start()
            did = f"restarted: pid {before} stopped, pid {after} started"
            return [_acted(r, did, after) for r in naming]
        self.waiting.extend(naming)
        if self.app.pid is None:
            return []  # exited: answered when its backoff lets it start again
        done, self.waiting = self.waiting, []
        did = f"started again: pid {self.app.pid} (it had exited)"
        return [_acted(r, did, self.app.pid) for r in done]


def _names(row: Any, instance: str) -> bool:
    return row.kind == kinds.READING_TAKEN and row.key == instance


def _acted(row: Any, did: str, pid: int) -> tuple[str, str, dict]:
    return (kinds.READING_ACTED, row.key, {"reading": row.id, "did": did, "pid": pid})


def _size(path: os.PathLike) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0
