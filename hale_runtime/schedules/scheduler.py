"""The Scheduler as the runtime holds it: the Hale program and its state value.

`Scheduler` builds `dna/core/scheduler.hl` once (host.load) and keeps the
Hale `Scheduler` value it returns; every method is one call into Hale with
the host objects the program declares. Nothing here decides anything: the
checks, the due computation, skip, overlap and misses are the Hale code's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hale_runtime.schedules.binding import Cron, ScheduleHost, load
from hale_runtime.schedules.terms import Terms


class Scheduler:
    def __init__(self, root: Path | None = None, program: tuple[Any, str] | None = None):
        self.program, self.entry = program or load(root)
        self.cron = Cron()
        self.state = self._call("new_scheduler")

    def _call(self, fn: str, *args: object) -> Any:
        return self.program.call(self.entry, fn, *args)

    def refusal(self, host: ScheduleHost, terms: Terms) -> str:
        """Why `terms` cannot be declared, or ""."""
        return self._call(
            "refusal",
            host,
            self.cron,
            terms.id,
            terms.every_ms,
            terms.cron,
            terms.definition,
            terms.args,
            terms.convener,
        )

    def may_ask(self, host: ScheduleHost, who: str, convener: str) -> str:
        """Why `who` may not ask for a schedule convened by `convener`, or ""."""
        return self._call("may_ask", host, who, convener)

    def hold(self, terms: Terms, overlap: bool, floor: int, paused: bool, last_task: str) -> None:
        self._call(
            "hold", self.state, self.cron, terms.id, terms.every_ms, terms.cron,
            overlap, floor, paused, last_task,
        )  # fmt: skip

    def pause(self, id: str) -> None:
        self._call("pause", self.state, id)

    def resume(self, id: str, at: int) -> None:
        self._call("resume", self.state, self.cron, id, at)

    def tick(self, host: ScheduleHost, now: int) -> int:
        """One tick at `now`; how many schedules had an occurrence come."""
        return self._call("tick", self.state, host, self.cron, now)

    def next_of(self, id: str) -> int | None:
        """When schedule `id` is next due (for tests and `show`)."""
        index = self.state.f_index.get(id)
        return None if index is None else self.state.f_schedules[index].f_next
