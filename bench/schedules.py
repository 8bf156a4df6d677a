"""The Scheduler's tick and rebuild, measured side by side in one run.

1. One tick over 10,000 held schedules (half cron, half interval), with the
   Scheduler running as Hale code (`dna/core/scheduler.hl`), and the same
   due computation written directly in Python (`PyScheduler`, below, a
   line-for-line port), on the same host objects. Two ticks are timed: a
   busy one where every schedule has an occurrence come (after an hour
   unticked: misses and runs for all 10,000), and a quiet one where none
   has. The bar: the tick under 100 ms; Hale within 3x of Python.
2. Rebuilding schedule state from a record of 100,000 schedule rows: a
   cold `Record.open` and read, the fold, and holding every schedule in
   the Hale Scheduler.

Prints, never asserts. Run: `.venv/bin/python bench/schedules.py`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hale_runtime.schedules.binding import Cron, ScheduleHost  # noqa: E402
from hale_runtime.schedules.scheduler import Scheduler  # noqa: E402
from hale_runtime.schedules.terms import Terms  # noqa: E402

N = 10_000
MINUTE, HOUR = 60_000, 3_600_000
NOW = 1_764_374_400_000 + 5 * HOUR + 30_000  # 05:00:30 UTC
FAR = 2**63 - 1


class BenchHost(ScheduleHost):
    """The host the tick runs against, with admission answered in place."""

    def __init__(self) -> None:
        super().__init__(None, None)
        self.n = 0

    def admit(self, schedule: str, at: int) -> str:
        self.n += 1
        return f"t{self.n}"

    def is_open(self, task: str) -> bool:
        return False


def schedule_terms(i: int) -> Terms:
    if i % 2:
        expr = f"{i % 60} {'*' if i % 3 else '*/2'} * * *"
        return Terms(f"s{i}", 0, expr, "ask-edit", "{}", "position:editor")
    return Terms(f"s{i}", MINUTE * (1 + i % 30), "", "ask-edit", "{}", "position:editor")


# --- the same due computation, in Python ----------------------------------------------


class PySchedule:
    __slots__ = ("id", "every_ms", "cron", "overlap", "floor", "next", "paused", "last_task")


class PyScheduler:
    def __init__(self, cron: Cron):
        self.cron, self.schedules, self.soonest = cron, [], FAR

    def hold(self, t: Terms, floor: int) -> None:
        sc = PySchedule()
        sc.id, sc.every_ms, sc.overlap, sc.floor = t.id, t.every_ms, False, floor
        sc.cron = self.cron.compile(t.cron) if t.cron else -1
        sc.paused, sc.last_task = False, ""
        sc.next = self.next_of(sc, floor)
        self.schedules.append(sc)
        self.soonest = min(self.soonest, sc.next)

    def next_of(self, sc: PySchedule, after: int) -> int:
        if sc.cron < 0:
            return after - after % sc.every_ms + sc.every_ms
        return self.cron.next_after(sc.cron, after)

    def tick(self, host: ScheduleHost, now: int) -> int:
        if now < self.soonest:
            return 0
        handled, soonest = 0, FAR
        for sc in self.schedules:
            if sc.paused:
                continue
            if sc.next <= now:
                self.occur(sc, host, now)
                handled += 1
            if sc.next < soonest:
                soonest = sc.next
        self.soonest = soonest
        return handled

    def occur(self, sc: PySchedule, host: ScheduleHost, now: int) -> None:
        runs = True
        if sc.cron < 0:
            current = now - now % sc.every_ms
            count = (current - sc.next) // sc.every_ms
        else:
            current = self.cron.latest(sc.cron, now)
            runs = now < current + MINUTE
            count = self.cron.count(sc.cron, sc.next, current) - 1 + (0 if runs else 1)
        if count > 0:
            last = current
            if runs:
                last = (
                    current - sc.every_ms if sc.cron < 0 else self.cron.latest(sc.cron, current - 1)
                )
            host.missed(sc.id, sc.next, last, count)
        if runs:
            if not sc.overlap and sc.last_task and host.is_open(sc.last_task):
                host.skipped(sc.id, current, sc.last_task)
            else:
                task = host.admit(sc.id, current)
                if not task.startswith("refused: "):
                    sc.last_task = task
        sc.floor = current
        sc.next = self.next_of(sc, current)


# --- measuring ------------------------------------------------------------------------


def held_hale(floor: int) -> Scheduler:
    s = Scheduler(None)
    for i in range(N):
        s.hold(schedule_terms(i), False, floor, False, "")
    return s


def held_python(floor: int) -> PyScheduler:
    s = PyScheduler(Cron())
    for i in range(N):
        s.hold(schedule_terms(i), floor)
    return s


def time_tick(make, floor: int, now: int, runs: int = 5) -> tuple[float, int]:
    times, handled = [], 0
    for _ in range(runs):
        s, host = make(floor), BenchHost()
        t = time.perf_counter()
        handled = s.tick(host, now)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, handled


def bench_tick() -> None:
    busy_floor = NOW - HOUR - 1
    hale_busy, n1 = time_tick(held_hale, busy_floor, NOW)
    py_busy, n2 = time_tick(held_python, busy_floor, NOW)
    quiet_floor = NOW - NOW % HOUR  # 05:00: nothing due before 05:01
    hale_quiet, _ = time_tick(held_hale, quiet_floor, NOW)
    py_quiet, _ = time_tick(held_python, quiet_floor, NOW)
    print(f"tick, {N} schedules (half cron, half interval), every one due ({n1}/{n2} handled):")
    print(
        f"  Hale {hale_busy:8.2f} ms   Python {py_busy:8.2f} ms   ratio {hale_busy / py_busy:.2f}x"
    )
    print(f"tick, {N} schedules, none due:")
    print(f"  Hale {hale_quiet:8.4f} ms   Python {py_quiet:8.4f} ms")
    steady = held_hale(NOW - 1)
    for minute in range(1, 4):  # warm, then a tick at the next minute boundaries
        steady.tick(BenchHost(), NOW + minute * MINUTE)
    t = time.perf_counter()
    handled = steady.tick(BenchHost(), NOW + 4 * MINUTE)
    print(f"tick at a minute boundary in steady state ({handled} due): "
          f"Hale {(time.perf_counter() - t) * 1000:.2f} ms")  # fmt: skip


def bench_rebuild(rows: int = 100_000) -> None:
    import subprocess

    from hale_runtime.record import Record
    from hale_runtime.schedules.state import KINDS, Fold

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "p"
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        record = Record.open(root, who="bench@box:00000000")
        batch, written, i = [], 0, 0
        t0 = time.perf_counter()
        while written < rows:
            t = schedule_terms(i % N)
            body = {**t.as_body(), "occurrence": NOW - HOUR, "cadence": "", "mode": "skip"}
            kind = ("schedule.declared", "schedule.paused", "schedule.resumed",
                    "schedule.skipped", "schedule.missed")[(i // N) % 5]  # fmt: skip
            if kind != "schedule.declared":
                body = {
                    "occurrence": NOW - HOUR,
                    "first": NOW - HOUR,
                    "last": NOW - HOUR,
                    "count": 1,
                }
            batch.append((kind, t.id, body))
            written, i = written + 1, i + 1
            if len(batch) == 1000:
                record.append_many(batch)
                batch = []
        record.close()
        write_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        fresh = Record.open(root)
        read = fresh.rows(kind=KINDS)
        t2 = time.perf_counter()
        fold = Fold().apply_all(read)
        t3 = time.perf_counter()
        s = Scheduler(None)
        for st in fold.schedules.values():
            s.hold(st.terms, False, st.floor, st.paused, st.last_task)
        t4 = time.perf_counter()
        print(f"rebuild from {len(read)} schedule rows ({len(fold.schedules)} schedules; "
              f"written in {write_s:.1f} s):")  # fmt: skip
        print(f"  read {(t2 - t1) * 1000:.0f} ms, fold {(t3 - t2) * 1000:.0f} ms, "
              f"hold in Hale {(t4 - t3) * 1000:.0f} ms, total {(t4 - t1) * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    bench_tick()
    bench_rebuild()
