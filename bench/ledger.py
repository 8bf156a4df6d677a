"""Rows appended per second: an adopted ledger on PostgreSQL against the git
record, durable against durable, side by side in one run.

Each side appends one row per append, from W writers at once (forked
processes, each with its own store; they wait on a barrier and count for a
fixed time), and every append is durable (committed, flushed) before it
returns:

- git record: `Record.append` with HALE_DNA_DURABILITY=full, one
  fdatasync an append through the record's journal (docs/record.md);
- ledger, fenced: what a node's head runs for a leg's call: the row made,
  judged and signed (`Record.sealed`: its signature row and the row), then
  `memory.ledger_append` under the body claim's epoch, one statement in its
  own transaction with the claim row checked (an epoch ends behind a lock
  on the ledger table, so appends take no row lock), on a throwaway
  PostgreSQL cluster with fsync on and synchronous_commit on;
- bare INSERT: the same rows in one autocommit `INSERT` with no epoch
  check: the bound any fenced append on this cluster can reach (a commit
  and its WAL flush; with one writer nothing shares the flush).

Both sides sign every batch with a throwaway key, as a user's writers do
(`--unsigned`: neither does, to see what signing costs each side).

The goal (the fenced ledger at least 10x the git record for one-row
appends) is judged at 8 writers: the legs' rows come from many legs at
once, where PostgreSQL shares one WAL flush among the commits waiting on
it and the git record's appends in one clone take its journal's lock in
turn. One writer is printed beside it with its bound. Sides alternate
which goes first, `--rounds` rounds (min and median). Prints figures and
ratios; asserts nothing.

    .venv/bin/python bench/ledger.py [--seconds 3] [--rounds 5] [--writers 1,8] [--unsigned]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pg import fresh_database, start_postgres  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402
from hale_runtime.record import Record, kinds  # noqa: E402

CLAIM = "body"
GOAL, GOAL_WRITERS = 10.0, 8  # the fenced ledger against the git record, at 8 writers
SIGN = True  # the writers sign their batches (--unsigned: neither side does); set before forking


def git_worker(root: str, n: int, seconds: float, barrier, results) -> None:
    os.environ["HALE_DNA_DURABILITY"] = "full"
    record = Record.open(root, who=f"leg{n}@bench:c0ffee00", sign=SIGN)
    count = 0
    barrier.wait()
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        record.append(kinds.NODE_PING_REQUESTED, f"w{n}/{count}", {})
        count += 1
    record.close()
    results.put(count)


def ledger_worker(dsn: str, n: int, seconds: float, roots: list[str], fenced: bool, barrier,
                  results) -> None:  # fmt: skip
    """What a node's head does for a leg's call: the row made, judged and signed
    (`Record.sealed`: a signature row and the row), then appended in one statement."""
    record = Record.open(roots[n], who=f"leg{n}@bench:c0ffee00", sign=SIGN)
    memory = open_memory(dsn)
    epoch = memory.claim(CLAIM).token
    bare = "INSERT INTO ledger (id, line, epoch) VALUES {}"
    count = 0
    barrier.wait()
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        rows = record.sealed([(kinds.NODE_PING_REQUESTED, f"w{n}/{count}/{time.time_ns()}", {})])
        if fenced:
            memory.ledger_append(rows, (CLAIM, epoch))
        else:
            values = ", ".join(["(%s, %s, %s)"] * len(rows))
            memory._write_one(bare.format(values), tuple(p for r in rows for p in (*r, epoch)))
        count += 1
    memory.close()
    record.close()
    results.put(count)


def measure(target, args: tuple, writers: int, seconds: float) -> float:
    """Rows a second over all writers (a writer that fails stops the bench, saying why)."""
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(writers, timeout=120), ctx.Queue()
    procs = [
        ctx.Process(
            target=_counted, args=(target, (args[0], n, seconds, *args[1:], barrier), results)
        )  # fmt: skip
        for n in range(writers)
    ]
    for proc in procs:
        proc.start()
    counts = [results.get(timeout=seconds + 180) for _ in procs]
    for proc in procs:
        proc.join()
    failed = [c for c in counts if isinstance(c, str)]
    if failed:
        raise SystemExit(f"bench/ledger.py: a writer failed: {failed[0]}")
    return sum(counts) / seconds


def _counted(target, args: tuple, results) -> None:
    """Run one writer; its count, or why it failed, goes on `results` either way."""
    try:
        target(*args, results)
    except BaseException as error:
        results.put(f"{type(error).__name__}: {error}")
        args[-1].abort()  # the others stop waiting at the barrier
        raise


def signing_key(base: Path) -> str:
    """A throwaway Ed25519 key for the writers (a batch is signed on both sides)."""
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = base / "id_ed25519"
    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.OpenSSH,
                                       ser.NoEncryption()))  # fmt: skip
    path.chmod(0o600)
    return str(path)


def git_project(base: Path) -> str:
    root = base / f"git-{time.monotonic_ns()}"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "dna" / "org").mkdir(parents=True)
    (root / "dna" / "org" / "main.hl").write_text("// bench\n")
    return str(root)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--writers", default="1,8")
    parser.add_argument("--unsigned", action="store_true", help="neither side signs its batches")
    args = parser.parse_args()
    global SIGN
    SIGN = not args.unsigned
    base = Path(tempfile.mkdtemp(prefix="bench-ledger-"))
    os.environ["HALE_DNA_KEY"] = signing_key(base)  # both sides sign, as a user's do
    server = start_postgres(fsync=True)
    try:
        dsn = fresh_database(server)
        memory = open_memory(dsn)
        memory.migrate()
        memory.take(CLAIM, "bench@host:c0ffee00", 3600)
        # each writer's record (a head's: its clock, writer and trust), for the ledger sides
        roots = [git_project(base) for _ in range(max(int(w) for w in args.writers.split(",")))]
        sides = {
            "git record": lambda w: measure(git_worker, (git_project(base),), w, args.seconds),
            "ledger, fenced": lambda w: measure(ledger_worker, (dsn, roots, True), w, args.seconds),
            "bare INSERT": lambda w: measure(ledger_worker, (dsn, roots, False), w, args.seconds),
        }
        print(f"one-row appends, durable, {'unsigned' if args.unsigned else 'signed'}; "
              f"{args.seconds:g} s a side, {args.rounds} rounds; "
              f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
        for writers in (int(w) for w in args.writers.split(",")):
            seen: dict[str, list[float]] = {name: [] for name in sides}
            names = list(sides)
            for round_no in range(args.rounds):
                order = names[round_no % len(names) :] + names[: round_no % len(names)]
                for name in order:
                    seen[name].append(sides[name](writers))
            report(writers, seen)
        print(f"\nload {os.getloadavg()[0]:.1f}")
        memory.close()
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def report(writers: int, seen: dict[str, list[float]]) -> None:
    git = statistics.median(seen["git record"])
    print(f"\n{writers} writer(s)      rows/s min    rows/s median    x git (median)")
    for name, figures in seen.items():
        median = statistics.median(figures)
        print(f"  {name:<18} {min(figures):>10,.0f}    {median:>10,.0f}    {median / git:>8.1f}x")
    fenced = statistics.median(seen["ledger, fenced"]) / git
    if writers == GOAL_WRITERS:
        verdict = "met" if fenced >= GOAL else "not met"
        print(f"  goal (fenced >= {GOAL:g}x git at {GOAL_WRITERS} writers): {verdict}")
    else:
        bound = statistics.median(seen["bare INSERT"]) / git
        print(f"  (the goal is judged at {GOAL_WRITERS} writers; here a commit's flush bounds "
              f"PostgreSQL at {bound:.1f}x git)")  # fmt: skip


if __name__ == "__main__":
    main()
