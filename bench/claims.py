"""Claims taken per second on SQLite and PostgreSQL, side by side in one run.

For each backend: one process taking fresh keys for a few seconds
(uncontended: every take is a grant), then 8 processes hammering the same
16 keys, releasing each grant at once (contended: most takes find the key
taken). Workers are forked, open their own connection, wait on a barrier
and count for a fixed time. PostgreSQL is a throwaway cluster from the
installed binaries with fsync off (`-F`); SQLite runs WAL with
synchronous=NORMAL. Bar: PostgreSQL takes at least 1,000 claims/s
uncontended.

Then the goal of issue 34: 8 processes each taking and releasing its own
keys on PostgreSQL relaxed, hale's memory against the raw SQL floor (the
very statements, prepared, through psycopg; bench/peers/claims.py's sides),
alternating `--rounds` rounds: the median ratio printed beside its goal
(>= 0.95). Prints figures; asserts nothing.

    .venv/bin/python bench/claims.py [--seconds 3] [--rounds 5]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))
import claims as peers  # noqa: E402  (bench/peers/claims.py: the raw SQL floor's side)
from pg import fresh_database, start_postgres  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402

CONTENDERS = 8
CONTENDED_KEYS = 16
GOAL = 0.95  # hale's memory / the raw SQL floor, 8 processes, PostgreSQL relaxed


def worker(dsn: str, n: int, contended: bool, seconds: float, barrier, results) -> None:
    store = open_memory(dsn)
    holder, takes, grants = f"bench{n}", 0, 0
    barrier.wait()
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        key = f"k{random.randrange(CONTENDED_KEYS)}" if contended else f"u{n}/{takes}"
        grant = store.take(key, holder, 30)
        takes += 1
        if grant is not None:
            grants += 1
            if contended:
                store.release(key, holder, grant.token)
    store.close()
    results.put((takes, grants))


def measure(dsn: str, processes: int, contended: bool, seconds: float) -> tuple[float, float]:
    """(takes/s, grants/s) over all `processes`."""
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    procs = [
        ctx.Process(target=worker, args=(dsn, n, contended, seconds, barrier, results))
        for n in range(processes)
    ]
    for proc in procs:
        proc.start()
    counts = [results.get(timeout=seconds + 60) for _ in procs]
    for proc in procs:
        proc.join()
    return sum(t for t, _ in counts) / seconds, sum(g for _, g in counts) / seconds


def fresh(backend: str, folder: Path, server) -> str:
    dsn = f"sqlite://{folder / f'{time.monotonic_ns()}.sqlite3'}"
    if backend == "postgresql":
        dsn = fresh_database(server)
    with open_memory(dsn) as store:
        store.migrate()
    return dsn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    seconds = args.seconds
    server, folder = start_postgres(), Path(tempfile.mkdtemp(prefix="hale-bench-"))
    try:
        print(f"{'backend':<11} {'processes':>13} {'takes/s':>9} {'grants/s':>9}")
        for backend in ("sqlite", "postgresql"):
            for processes, contended in ((1, False), (CONTENDERS, True)):
                dsn = fresh(backend, folder, server)
                takes, grants = measure(dsn, processes, contended, seconds)
                label = f"{processes} {'contending' if contended else 'alone'}"
                print(f"{backend:<11} {label:>13} {takes:>9,.0f} {grants:>9,.0f}", flush=True)
        against_raw(server, seconds, args.rounds)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def against_raw(server, seconds: float, rounds: int) -> None:
    """hale's take + release against the raw SQL floor, CONTENDERS processes, alternating."""
    ratios, seen = [], {"raw SQL floor": [], "hale memory": []}
    for n in range(rounds):
        order = [("raw", "raw SQL floor"), ("hale", "hale memory")]
        for side, name in order[:: -1 if n % 2 else 1]:
            seen[name].append(peers.measure(server, side, CONTENDERS, seconds))
        ratios.append(seen["hale memory"][-1] / seen["raw SQL floor"][-1])
    print(f"\n{CONTENDERS} processes, PostgreSQL relaxed, take + release, {rounds} rounds:")
    for name, figures in seen.items():
        print(f"  {name:<14} median {statistics.median(figures):>9,.0f}/s")
    ratio = statistics.median(ratios)
    verdict = "met" if ratio >= GOAL else "not met"
    print(f"  hale / raw SQL: median {ratio:.2f} (per round {', '.join(f'{r:.2f}' for r in ratios)})"
          f"   goal >= {GOAL}: {verdict}")  # fmt: skip


if __name__ == "__main__":
    main()
