"""Benchmark of the head: attempts claimed and settled per second by concurrent legs.

In a fresh project under a temporary folder (embedded SQLite memory), the
engine admits N one-judgment asks (ask-judge of the generated genome), so N
attempts wait for legs. Then the head is served on loopback and L legs, each
a thread with its own kept-alive HTTP connection and its own credential
(registered once, sent with every call), loop `dna.attempt.claim` then
`dna.attempt.outcome` until no attempt is left. Measured: the legs' calls
answered per second and attempts claimed and settled per second (wall time
of the legs' loop), with the record commits the head made. The
organization's own settlement (a relay later) is not part of it.
Bar (printed, not asserted): >= 500 calls/s with 8 legs, per-leg credentials.

    .venv/bin/python bench/head.py [--attempts N] [--legs L]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pygit2

from hale_runtime.asks.leg_performer import LegPlugin
from hale_runtime.catalog import load_catalog
from hale_runtime.catalog.layout import layout
from hale_runtime.engine import Engine
from hale_runtime.head import HeadClient, HeadServer, open_head_for
from hale_runtime.memory import open_memory
from hale_runtime.performers import Performers, plugin_manager
from hale_runtime.record import Record

BAR = 500.0  # legs' calls a second


def project(tmp: Path) -> Path:
    root = tmp / "p"
    for rel, data in layout().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    pygit2.init_repository(str(root)).config["hale.clone"] = "bench000"
    return root


def admit(root: Path, n: int) -> None:
    """n ask-judge executions, their attempts delivered to the legs' performer."""
    catalog = load_catalog(root)
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    engine = Engine(
        Record.open(root, who="org@bench"), memory, Performers(plugin_manager(LegPlugin()))
    )
    for i in range(n):
        inputs = {"objective": f"judge thing {i}"}
        engine.admit(catalog.bind("ask-judge", None, inputs), f"i-{i}", "bench", inputs)
        if i % 200 == 199:
            engine.pump()
    engine.pump()
    memory.close()


def leg(url: str, token: str, name: str, done: list[int], errors: list[str]) -> None:
    client = HeadClient(url, token)
    client.register(name)
    while True:
        got = client.call("dna.attempt.claim", leg=name)
        done.append(0)
        if not got.get("attempt"):
            break
        lease = {"leg": name, "attempt": got["attempt"], "token": got["token"]}
        try:
            client.call("dna.attempt.outcome", outcome="succeeded", **lease)
            done.append(1)  # a claim and an outcome: two calls
        except Exception as error:  # counted, reported below
            errors.append(str(error))
    client.close()


def run(n: int, legs: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hale-bench-head-"))
    try:
        root = project(tmp)
        started = time.perf_counter()
        admit(root, n)
        print(f"setup: {n} attempts waiting for legs ({time.perf_counter() - started:.1f}s)")
        commits_before = sum(1 for _ in pygit2.Repository(str(root)).walk(
            pygit2.Repository(str(root)).references["refs/dna/record"].target))  # fmt: skip
        server = HeadServer(
            open_head_for(root, str(root / ".git/hale/memory.sqlite3"), "org@bench")
        )
        server.start()
        done: list[int] = []
        errors: list[str] = []
        threads = [
            threading.Thread(target=leg, args=(server.url, server.token, f"leg:{i}", done, errors))
            for i in range(legs)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        server.stop()
        repo = pygit2.Repository(str(root))
        commits = (
            sum(1 for _ in repo.walk(repo.references["refs/dna/record"].target)) - commits_before
        )
        settled, calls = sum(done), len(done) + sum(done) + legs  # + each leg's registration
        rate = calls / elapsed
        verdict = "meets" if rate >= BAR else "BELOW"
        print(f"head: {settled} attempts claimed and settled by {legs} legs in {elapsed:.2f}s")
        print(
            f"  {rate:.0f} calls/s ({verdict} the bar of {BAR:.0f}/s), "
            f"{settled / elapsed:.0f} attempts/s; {commits} record commits"
        )
        if errors:
            print(f"  {len(errors)} refused: {errors[0]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=2000)
    parser.add_argument("--legs", type=int, default=8)
    args = parser.parse_args()
    run(args.attempts, args.legs)


if __name__ == "__main__":
    main()
