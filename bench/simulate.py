"""`hale dna simulate`'s speed: occurrences a second over ten years of a
one-minute schedule (issue 31's bar: at least 100,000 a second).

A project from `hale dna new` gets one schedule, `every-minute`, declared
as the organization declares it (a `schedule.requested` row heard by the
Scheduler locus, on a clock held at the start). Then `Simulation` runs
over the window and the figure is occurrences reported / wall seconds,
best of `--repeat` runs. A shorter window first (`--days`, default one)
shows the cost of the organism's own ticks before its rhythm is steady.

Prints, never asserts. Run: `.venv/bin/python bench/simulate.py [--years 10]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from click.testing import CliRunner  # noqa: E402

START = 1_767_225_600_000  # 2026-01-01T00:00Z
DAY = 86_400_000


def project(folder: Path) -> Path:
    from hale_runtime.catalog import load_catalog
    from hale_runtime.cli import hale
    from hale_runtime.engine import Engine
    from hale_runtime.memory import open_memory
    from hale_runtime.nerves import Message
    from hale_runtime.node.relay import message_of
    from hale_runtime.performers import Performers, plugin_manager
    from hale_runtime.record import Record
    from hale_runtime.schedules.locus import SchedulerLocus
    from hale_runtime.schedules.ratify import OrganismPlugin
    from hale_runtime.schedules.terms import Terms

    root = folder / "project"
    made = CliRunner().invoke(hale, ["dna", "new", str(root)])
    assert made.exit_code == 0, made.output
    clock = lambda: START  # noqa: E731
    record = Record.open(root, clock=clock)
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    organism = OrganismPlugin(record)
    engine = Engine(record, memory, Performers(plugin_manager(organism, entry_points=False)), clock=clock)  # fmt: skip
    locus = SchedulerLocus(root, record, memory, load_catalog(root), engine, clock=clock, organism=organism)  # fmt: skip
    terms = Terms(
        "every-minute", 60_000, "", "ask-edit", '{"objective": "tidy"}', "position:editor"
    )
    row = record.append(
        "schedule.requested", "sr-000000000001", {**terms.as_body(), "by": record.who}
    )
    locus.on_schedule_requested(Message(1, row.kind, message_of(row)))
    assert record.rows(kind="schedule.declared"), record.rows(kind="schedule.refused")
    memory.close()
    record.close()
    return root


def measure(root: Path, days: float, repeat: int) -> tuple[int, float]:
    from hale_runtime.schedules.simulate import Simulation

    best, n = float("inf"), 0
    for _ in range(repeat):
        began = time.perf_counter()
        report = Simulation(root, START, START + int(days * DAY)).run()
        best = min(best, time.perf_counter() - began)
        n = sum(len(s.occurred) for s in report.schedules)
    return n, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=10)
    parser.add_argument("--days", type=float, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = project(Path(folder))
        for label, days in (
            (f"{args.days:g} day(s)", args.days),
            (f"{args.years:g} years", args.years * 365.25),
        ):
            n, s = measure(root, days, args.repeat)
            print(f"simulate, one-minute schedule, {label}: {n:,} occurrences in {s:.2f} s = {n / s:,.0f} occurrences/s")  # fmt: skip
        print("bar: >= 100,000 occurrences/s over ten years")


if __name__ == "__main__":
    main()
