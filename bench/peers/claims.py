"""Claims on PostgreSQL: hale's memory against the raw SQL floor and procrastinate.

One operation is a take and its release: hale's `take` + `release` (memory
on PostgreSQL); the raw SQL floor runs the very statements hale runs
(prepared, autocommit, no Python around them); procrastinate's nearest
operation is a worker fetching a job (`fetch_job`, which locks it for that
worker) and finishing it (`finish_job`), from a queue filled beforehand (not
timed). With 1 process, then 8 side by side, each process on its own keys
(procrastinate's workers share one queue, as its workers do). Processes are
forked, open their own connection, wait on a barrier and count operations
for `--seconds`.

PostgreSQL is a throwaway cluster from the installed binaries
(tests/pg.py): durable is its defaults (fsync on, synchronous_commit on);
relaxed is the same with fsync off (`-F`). Sides alternate round by round;
best and median of `--rounds`; ratios over the raw floor on the same server.

    .venv/bin/python bench/peers/claims.py [--seconds 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[2] / "tests"))
from common import alternate, installed, table  # noqa: E402
from pg import fresh_database, start_postgres  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402
from hale_runtime.memory.store import RELEASE, TAKE  # noqa: E402

TTL_MS = 30_000
QUEUE_PER_PROCESS = 5_000  # jobs waiting for each procrastinate worker (it fetches ~100s/s)


def counted(seconds: float, barrier, one: Callable[[int], None]) -> int:
    barrier.wait()
    stop, n = time.monotonic() + seconds, 0
    while time.monotonic() < stop:
        one(n)
        n += 1
    return n


def hale_worker(dsn: str, w: int, seconds: float, barrier, results) -> None:
    memory = open_memory(dsn)
    holder = f"bench{w}"

    def one(n: int) -> None:
        grant = memory.take(f"k{w}/{n % 64}", holder, TTL_MS / 1000)
        assert grant is not None and memory.release(grant.key, holder, grant.token)

    results.put(counted(seconds, barrier, one))
    memory.close()


def raw_worker(dsn: str, w: int, seconds: float, barrier, results) -> None:
    import psycopg

    memory = open_memory(dsn)  # only for its dialect's spelling of the statements
    take, release = memory.q(TAKE), memory.q(RELEASE)
    memory.close()
    conn = psycopg.connect(dsn, autocommit=True)
    holder = f"bench{w}"

    def one(n: int) -> None:
        key = f"k{w}/{n % 64}"
        row = conn.execute(take, (key, holder, TTL_MS), prepare=True).fetchone()
        assert row is not None
        assert conn.execute(release, (key, holder, row[1]), prepare=True).fetchone()

    results.put(counted(seconds, barrier, one))
    conn.close()


def procrastinate_worker(dsn: str, w: int, seconds: float, barrier, results) -> None:
    results.put(asyncio.run(_procrastinate(dsn, seconds, barrier)))


def _app(dsn: str):
    import logging

    import procrastinate

    logging.getLogger("procrastinate").setLevel(logging.ERROR)  # not its warning about __main__

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=dsn))

    @app.task(name="noop")
    def noop() -> None:
        pass

    return app


async def _procrastinate(dsn: str, seconds: float, barrier) -> int:
    from procrastinate.jobs import Status

    app = _app(dsn)
    async with app.open_async():
        manager = app.job_manager
        worker = await manager.register_worker()
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
        stop, n = time.monotonic() + seconds, 0
        while time.monotonic() < stop:
            job = await manager.fetch_job(queues=None, worker_id=worker)
            assert job is not None, "the queue ran dry: raise QUEUE_PER_PROCESS"
            await manager.finish_job(job, status=Status.SUCCEEDED, delete_job=False)
            n += 1
        return n


async def _fill(dsn: str, jobs: int) -> None:
    from procrastinate.jobs import Job

    app = _app(dsn)
    async with app.open_async():
        await app.schema_manager.apply_schema_async()
        for first in range(0, jobs, 1000):
            batch = [
                Job(id=None, queue="default", lock=None, queueing_lock=None, task_name="noop")
                for _ in range(min(1000, jobs - first))
            ]
            await app.job_manager.batch_defer_jobs_async(batch)


WORKERS = {"hale": hale_worker, "raw": raw_worker, "procrastinate": procrastinate_worker}


def measure(server, side: str, processes: int, seconds: float) -> float:
    """Operations per second over `processes`, on a fresh database."""
    dsn = fresh_database(server)
    if side == "procrastinate":
        asyncio.run(_fill(dsn, QUEUE_PER_PROCESS * processes))
    else:
        with open_memory(dsn) as memory:
            memory.migrate()
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    procs = [
        ctx.Process(target=WORKERS[side], args=(dsn, w, seconds, barrier, results))
        for w in range(processes)
    ]
    for proc in procs:
        proc.start()
    total = sum(results.get(timeout=seconds + 120) for _ in procs)
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise RuntimeError(f"a {side} worker failed (exit {proc.exitcode})")
    return total / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("claims on PostgreSQL: take + release")
    peer = installed("procrastinate", "procrastinate")
    servers = {"durable": start_postgres(fsync=True), "relaxed": start_postgres(fsync=False)}
    try:
        for processes in (1, 8):
            for durability, server in servers.items():
                sides = {
                    "raw SQL floor": lambda _r, s=server, p=processes: measure(
                        s, "raw", p, args.seconds
                    ),
                    "hale memory": lambda _r, s=server, p=processes: measure(
                        s, "hale", p, args.seconds
                    ),
                }
                if peer:
                    sides["procrastinate fetch_job + finish_job"] = (
                        lambda _r, s=server, p=processes: measure(
                            s, "procrastinate", p, args.seconds
                        )
                    )
                figures = alternate(sides, args.rounds)
                title = f"{processes} process(es), PostgreSQL {durability}: operations/s"
                table(title, figures, "/s", "raw SQL floor", True)
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
