"""Benchmark of the workflow engine on one node with embedded stores.

Measured in fresh projects under a temporary folder, in one run:
  - one-leaf executions admitted and settled per second, end to end
    (admission, registration, attempt, claim in SQLite memory, delivery to
    the organism performer, outcome, settlement; each round one record commit);
  - the same with one admission a round (every execution its own commits);
  - the same for a 3-step definition with a child execution and an analysis
    leaf beside it;
  - the time to rebuild the engine's state from a record of 10,000 settled
    executions (opening the record from its cache, then the fold).
Bars (printed, not asserted): >= 200 one-leaf executions/s; rebuild < 3 s.

    .venv/bin/python bench/engine.py [--one N] [--three N] [--rebuild N] [--per-tick N]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pygit2

from hale_runtime.catalog import WorkflowCatalog
from hale_runtime.catalog.callsite import override
from hale_runtime.engine import Engine, plan_of
from hale_runtime.memory import open_memory
from hale_runtime.performers import Performers, plugin_manager
from hale_runtime.record import Record


def catalog():
    host = WorkflowCatalog()
    with override("bench:1:1"):
        host.define("one", 1, "record", "one leaf")
        host.leaf("one", 1, 0, "plan", {"objective": "plan it", "requires": "organism"}, 1)
        host.define("sub", 1, "record", "a child")
        host.leaf("sub", 1, 0, "w", {"objective": "weigh it", "requires": "analysis"}, 2)
        host.define("three", 1, "record record record", "three steps")
        host.leaf("three", 1, 0, "plan", {"objective": "plan it", "requires": "organism"}, 1)
        host.child("three", 1, 1, "sub", "sub")
        host.leaf("three", 1, 1, "check", {"objective": "check it", "requires": "analysis"}, 2)
        host.leaf("three", 1, 2, "settle", {"objective": "settle it", "requires": "organism"}, 1)
    return host.seal("bench")


def project(folder: Path) -> Path:
    pygit2.init_repository(str(folder))
    return folder


def engine(root: Path) -> Engine:
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    performers = Performers(plugin_manager(entry_points=False))
    return Engine(Record.open(root, who="bench@node:00000000"), memory, performers)


def run(root: Path, definition: str, n: int, per_tick: int) -> float:
    """Executions per second: admit `per_tick` a tick, pump, until all settled."""
    e = engine(root)
    plan = plan_of(catalog().bind(definition))
    started = time.perf_counter()
    admitted = 0
    while admitted < n or e.state.open:
        for _ in range(min(per_tick, n - admitted)):
            e.admit(plan, f"ask-{admitted}", "bench")
            admitted += 1
        e.pump()
    elapsed = time.perf_counter() - started
    e.record.close()  # a clean stop writes the rest of the record's cache
    assert all(t.outcome == "succeeded" for t in e.state.tasks.values())
    return n / elapsed


def rebuild(root: Path) -> tuple[float, float, int]:
    """(seconds to open the record and fold it, of which the fold, rows folded)."""
    started = time.perf_counter()
    record = Record.open(root)
    rows = record.rows()
    opened = time.perf_counter()
    e = Engine(record, open_memory(root / ".git" / "hale" / "memory.sqlite3"), Performers())
    done = time.perf_counter()
    assert not e.state.open
    return done - started, done - opened, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", type=int, default=2000)
    parser.add_argument("--three", type=int, default=500)
    parser.add_argument("--rebuild", type=int, default=10_000)
    parser.add_argument("--per-tick", type=int, default=200)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hale-bench-engine-"))
    try:
        one = run(project(tmp / "one"), "one", args.one, args.per_tick)
        print(f"one-leaf executions admitted and settled: {one:,.0f}/s  (bar >= 200/s)")
        single = run(project(tmp / "single"), "one", args.one // 4, 1)
        print(f"one-leaf executions, admitted one a round: {single:,.0f}/s")
        three = run(project(tmp / "three"), "three", args.three, args.per_tick)
        print(f"3-step executions (a child, retries possible): {three:,.0f}/s")
        root = project(tmp / "rebuild")
        made = run(root, "one", args.rebuild, 1000)
        whole, fold, rows = rebuild(root)
        print(
            f"rebuild from {args.rebuild:,} settled executions ({rows:,} rows): "
            f"{whole:.2f} s, of which the fold {fold:.2f} s  (bar < 3 s; made at {made:,.0f}/s)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
