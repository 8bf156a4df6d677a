"""Many bodies, one record: does admission throughput add up with the bodies?

Setup, for each N in --bodies (1, 2, 4): a bare remote holding the genome
`hale dna new` writes (its Leader plans, offline), one throwaway PostgreSQL
(a fresh database each N, for memory and nerves), and N owner bodies
(`hale dna run` with HALE_DNA_OWNER o0…) in clones of their own. One asker
clone per owner appends planned asks for its owner at --rate asks a second
in all (--unplanned: `--judgment` asks, admitted without the Leader), and
syncs them every --push-every seconds (1 s: an asker pushing faster than
an organization's round takes wins every push race against it), for
--seconds. The nodes then stop and a fresh clone reads the
record.

Printed per N: asks/s admitted (whole record, and per body), p50/p95 from
the ask's row to its `intent.offered` row (the writers' clocks: one
machine), asks left unanswered, pushes rejected and syncs that gave up
(from the figures the nodes write: hale_runtime/figures.py), nerves
messages (memory's `nerves` table) and the host's tick p95.

    .venv/bin/python bench/bodies.py [--bodies 1,2,4] [--seconds 30] [--rate 150]
                                     [--unplanned] [--push-every 1] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "node")]
from node_helpers import clone, hale, make_dna_forge  # noqa: E402
from pg import start_postgres  # noqa: E402

from hale_runtime.node.children import stop  # noqa: E402
from hale_runtime.record import Record, RecordError  # noqa: E402

HALE = str(Path(sys.executable).parent / "hale")
TIMINGS = {
    "HALE_DNA_GENOME_POLL": "0",
    "HALE_DNA_GIT_TIMEOUT": "10",
    "HALE_DNA_STOP_GRACE": "3",
}
STEP_S = 1.0  # how often each asker writes and pushes its share (--push-every)


@dataclass
class Figures:
    n: int
    seconds: float
    asked: int
    admitted: int
    answered: int
    per_body: dict[str, int]
    p50: float
    p95: float
    rejected: int
    pushes: int
    gave_up: int
    nerves: int
    tick_p95: float
    planned: int


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def start_body(root: Path, owner: str, dsn: str, figures: Path) -> subprocess.Popen:
    env = {**os.environ, **TIMINGS, "HALE_DNA_MEMORY": dsn, "HALE_DNA_OWNER": owner,
           "HALE_DNA_FIGURES": str(figures)}  # fmt: skip
    log = open(root.parent / f"node-{owner}.log", "w")  # noqa: SIM115 (the node's life)
    return subprocess.Popen([HALE, "dna", "run"], cwd=root, stdout=log, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)  # fmt: skip


def wait_running(root: Path, owner: str, timeout_s: float = 180) -> None:
    log = root.parent / f"node-{owner}.log"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = log.read_text() if log.exists() else ""
        if "running;" in text:
            return
        if "stopped:" in text:
            raise SystemExit(f"body {owner} stopped: {text[-800:]}")
        time.sleep(0.2)
    raise SystemExit(f"body {owner} did not start in {timeout_s}s")


def create_database(server_dsn: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_dsn.rsplit("/", 1)[0] + f"/{name}"


def feed(
    askers: dict[str, Record], rate: float, seconds: float, judgment: bool, step_s: float = STEP_S
) -> int:
    """Each asker, on a thread of its own, writes what its share of `rate` owes by
    now every `step_s` and pushes it; how many were asked in all."""
    share, begun = rate / len(askers), time.monotonic()
    asked = dict.fromkeys(askers, 0)

    def ask(owner: str, record: Record) -> None:
        while (now := time.monotonic()) < begun + seconds:
            k = int(share * (now - begun)) - asked[owner]
            body = {"objective": "bench ask", "target": ".", "by": record.who, "owner": owner,
                    **({"judgment": True} if judgment else {})}  # fmt: skip
            items = [("intent.requested", f"i-{os.urandom(6).hex()}", body) for _ in range(k)]
            if items:
                record.append_many(items)
                asked[owner] += k
            try:
                record.sync()
            except RecordError as error:
                print(f"  asker {owner}: {error}", file=sys.stderr)
            time.sleep(step_s)

    threads = [threading.Thread(target=ask, args=item) for item in askers.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(asked.values())


def run(n: int, args: argparse.Namespace, tmp: Path, server_dsn: str) -> Figures:
    forge, src = make_dna_forge(tmp)
    dsn = create_database(server_dsn, f"bodies{n}")
    migrated = hale(src, "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": dsn})
    assert migrated.returncode == 0, migrated.stderr
    owners = [f"o{i}" for i in range(n)]
    figures = tmp / "figures.jsonl"
    roots = {o: clone(forge, tmp / f"body-{o}") for o in owners}
    procs = {o: start_body(roots[o], o, dsn, figures) for o in owners}
    try:
        for o in owners:
            wait_running(roots[o], o)
        askers = {o: Record.open(clone(forge, tmp / f"asker-{o}")) for o in owners}
        began_ms = int(time.time() * 1000)
        asked = feed(askers, args.rate, args.seconds, args.unplanned, args.push_every)
        ended_ms = int(time.time() * 1000)
    finally:
        for proc in procs.values():
            stop(proc, 60.0)  # the node, and its fence and organization with it
    record = Record.open(clone(forge, tmp / "reader"))
    record.sync()
    holders = {
        r.key.removeprefix("node/"): r.body.get("owner") for r in record.rows(kind="node.started")
    }
    asks = {r.key: r.at for r in record.rows(kind="intent.requested")}
    answered = [r for r in record.rows(kind="intent.offered") if r.key in asks]
    offered = [r for r in answered if r.at <= ended_ms]
    waits = [(r.at - asks[r.key]) / 1000 for r in offered]
    per_body = Counter(str(holders.get(r.who, r.who)) for r in offered)
    facts = (
        [json.loads(line) for line in figures.read_text().splitlines()] if figures.exists() else []
    )
    syncs = [f for f in facts if f["what"] == "sync"]
    ticks = [f["ms"] / 1000 for f in facts if f["what"] == "tick"]
    import psycopg

    with psycopg.connect(dsn) as conn:
        nerves = conn.execute("SELECT count(*) FROM nerves").fetchone()[0]
    gave_up = sum(1 for f in syncs if f.get("failed"))
    for o in owners:
        text = (tmp / f"node-{o}.log").read_text()
        gave_up += text.count("refused 60 rounds")
    return Figures(
        n, (ended_ms - began_ms) / 1000, asked, len(offered), len(answered), dict(sorted(per_body.items())),
        pct(waits, 0.5), pct(waits, 0.95), sum(f["rejected"] for f in syncs),
        sum(f["rounds"] for f in syncs if f.get("sent")), gave_up, nerves, pct(ticks, 0.95),
        sum(1 for r in offered if r.body.get("planned")),
    )  # fmt: skip


def show(f: Figures) -> str:
    rate = f.admitted / f.seconds
    bodies = " ".join(f"{o}:{c / f.seconds:.1f}" for o, c in f.per_body.items())
    return (
        f"| {f.n} | {rate:.1f} ({bodies}) | {f.p50:.1f} / {f.p95:.1f} s | "
        f"{f.asked - f.answered} of {f.asked} | {f.rejected} of {f.pushes} ({f.gave_up} gave up) | "
        f"{f.nerves} | {f.tick_p95:.2f} s |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/bodies.py")
    parser.add_argument("--bodies", default="1,2,4")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=150.0, help="asks a second, all askers")
    parser.add_argument("--unplanned", action="store_true", help="--judgment asks (no Leader)")
    parser.add_argument("--push-every", type=float, default=STEP_S,
                        help="seconds between an asker's pushes")  # fmt: skip
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    server = start_postgres()
    kind = "unplanned" if args.unplanned else "planned"
    print(f"{kind} asks at {args.rate:g}/s for {args.seconds:g} s each")
    print("| N | asks/s admitted (per body) | p50 / p95 ask->admission | unanswered at the end "
          "| pushes rejected | nerves messages | host tick p95 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    try:
        for n in [int(x) for x in args.bodies.split(",")]:
            tmp = Path(tempfile.mkdtemp(prefix=f"hale-bodies{n}-"))
            try:
                print(show(run(n, args, tmp, server.dsn)), flush=True)
            finally:
                if args.keep:
                    print(f"  kept {tmp}")
                else:
                    shutil.rmtree(tmp, ignore_errors=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
