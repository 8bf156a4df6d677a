"""Schedules, hale against APScheduler 3 and croniter, side by side in one run.

1. A tick over 10,000 schedules, half cron and half interval, every one due
   (an hour unticked): hale's Scheduler running as Hale code
   (`dna/core/scheduler.hl`), the same algorithm written in Python
   (bench/schedules.py's `PyScheduler`), and APScheduler 3's
   `_process_jobs` over the same 10,000 jobs in its memory job store (its
   executor takes a job and does nothing, as hale's bench host admits in
   place; `coalesce` on, so an hour of missed runs is one run, as hale
   writes them as one row).
2. Compiling 5,000 distinct cron expressions: hale's `compile_cron` (check
   and compile in one pass, its shared cache emptied first), croniter
   (`croniter.expand`, what parses an expression) and APScheduler's
   `CronTrigger.from_crontab`.

Sides alternate round by round; best and median of `--rounds`; setup (holding
the schedules, adding the jobs) is not timed. A tick is one pass of a few
tens of milliseconds, which a neighbour on a shared machine can double, so
each round of the tick keeps the best of `--ticks` ticks, each over freshly
held schedules, on every side alike.

    .venv/bin/python bench/peers/schedules.py [--rounds 7] [--ticks 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1]))
from common import alternate, installed, table  # noqa: E402
from schedules import (  # noqa: E402  (bench/schedules.py: hale's own tick bench)
    HOUR,
    NOW,
    BenchHost,
    N,
    held_hale,
    held_python,
    schedule_terms,
)

from hale_runtime.schedules import cron  # noqa: E402

CRONS = 5_000


def tick_of(make) -> float:
    """Milliseconds of one busy tick over freshly held schedules."""
    scheduler, host = make(NOW - HOUR - 1), BenchHost()
    started = time.perf_counter()
    handled = scheduler.tick(host, NOW)
    elapsed = (time.perf_counter() - started) * 1000
    assert handled == N, handled
    return elapsed


def apscheduler_tick() -> float:
    """Milliseconds of one `_process_jobs` over 10,000 due jobs."""
    from apscheduler.executors.base import BaseExecutor
    from apscheduler.schedulers.base import BaseScheduler
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    class Taken(BaseExecutor):
        def _do_submit_job(self, job, run_times) -> None:
            self.taken = getattr(self, "taken", 0) + 1

    class Bench(BaseScheduler):
        def wakeup(self) -> None:
            pass

        def shutdown(self, wait: bool = True) -> None:
            super().shutdown(wait)

    scheduler = Bench(timezone=dt.UTC, job_defaults={"coalesce": True})
    executor = Taken()
    scheduler.add_executor(executor)
    scheduler.start(paused=True)
    due = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    for i in range(N):
        t = schedule_terms(i)
        if t.cron:
            trigger = CronTrigger.from_crontab(t.cron, timezone=dt.UTC)
        else:
            trigger = IntervalTrigger(seconds=t.every_ms // 1000, timezone=dt.UTC)
        scheduler.add_job(noop, trigger, id=t.id, next_run_time=due)
    scheduler.resume()
    started = time.perf_counter()
    scheduler._process_jobs()
    elapsed = (time.perf_counter() - started) * 1000
    assert executor.taken == N, executor.taken
    scheduler.shutdown(wait=False)
    return elapsed


def noop() -> None:
    pass


def distinct_crons(n: int) -> list[str]:
    """`n` distinct expressions in the shapes people write."""
    out: dict[str, None] = {}
    i = 0
    while len(out) < n:
        m, h, d = i % 60, (i // 60) % 24, 1 + (i // 1440) % 28
        shapes = (
            f"{m} {h} * * *",
            f"{m} {h} {d} * *",
            f"*/{1 + m % 30} {h}-23 * * mon-fri",
            f"{m},{(m + 30) % 60} */{1 + h % 12} * jan-jun *",
            f"{m} {h} {d},{d + 1} */{1 + d % 6} 0-{1 + h % 6}",
        )
        out[shapes[i % 5]] = None  # a repeat is dropped: every expression is distinct
        i += 1
    return list(out)


def compile_hale(exprs: list[str]) -> float:
    cron._shared.clear()
    started = time.perf_counter()
    for e in exprs:
        cron.compile_cron(e)
    return (time.perf_counter() - started) * 1000


def compile_croniter(exprs: list[str]) -> float:
    from croniter import croniter

    started = time.perf_counter()
    for e in exprs:
        croniter.expand(e)
    return (time.perf_counter() - started) * 1000


def compile_apscheduler(exprs: list[str]) -> float:
    from apscheduler.triggers.cron import CronTrigger

    started = time.perf_counter()
    for e in exprs:
        CronTrigger.from_crontab(e, timezone=dt.UTC)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ticks", type=int, default=3, help="ticks a round, the best kept")
    args = parser.parse_args()
    aps = installed("apscheduler", "APScheduler 3")

    def best_of(tick: Callable[[], float]) -> Callable[[int], float]:
        return lambda _r: min(tick() for _ in range(args.ticks))

    sides = {
        "hale, Hale code (dna/core/scheduler.hl)": best_of(lambda: tick_of(held_hale)),
        "the same algorithm in Python": best_of(lambda: tick_of(held_python)),
    }
    if aps:
        sides["APScheduler 3, _process_jobs"] = best_of(apscheduler_tick)
    figures = alternate(sides, args.rounds)
    base = "the same algorithm in Python"
    title = f"a tick over {N:,} schedules (half cron, half interval), all due: ms"
    table(title, figures, "ms", base, False)
    exprs = distinct_crons(CRONS)
    sides = {"hale, compile_cron": lambda _r: compile_hale(exprs)}
    sides["croniter, expand"] = lambda _r: compile_croniter(exprs)
    if aps:
        sides["APScheduler 3, CronTrigger.from_crontab"] = lambda _r: compile_apscheduler(exprs)
    figures = alternate(sides, args.rounds)
    table(f"compiling {CRONS:,} distinct crons: ms", figures, "ms", "croniter, expand", False)


if __name__ == "__main__":
    main()
