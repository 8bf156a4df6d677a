"""Time that moves only when a test moves it: the clock every store and
engine takes (milliseconds), so schedules and leases step through minutes
without sleeping."""

from __future__ import annotations

START_MS = 1_764_374_400_000  # 2025-11-29 00:00 UTC, a Saturday


class HandClock:
    def __init__(self, now: int = START_MS):
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms
