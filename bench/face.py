"""Benchmark of the face over a record of 100,000 executions.

The record is bench/longevity.py's (a project made by `hale dna new` whose
record holds one-leaf executions written as the engine writes them, a
thousand to a commit: plain asks, asks from people, a schedule's
occurrences), built once in a child process and kept (`--keep DIR`,
default /tmp/hale-face-<N>). Then, in this process, a face is started over
it (its executions table filled from the record index by kind: the time
is printed) and measured over HTTP on loopback, keep-alive, cookie set:
  - the server time of the executions page (no filter, each state, a
    definition, a schedule, a search of the objective, a page further back)
    and of one execution's page (random executions, some at a row of their
    time travel): p50 and p99 over `--requests` each. Goal p50 < 50 ms,
    p99 < 150 ms;
  - from a row landing (appended by another Record of the clone) to the
    event on an open event stream: p50 and max over 20 rows (the watcher
    ticks every 250 ms: the goal is one tick);
  - the server's memory: peak RSS of this process after the pages.

    nice .venv/bin/python bench/face.py [--executions N] [--keep DIR] [--requests R]
"""

from __future__ import annotations

import argparse
import http.client
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build(root: Path, executions: int) -> None:
    """The record, built by bench/longevity.py's builder in a child process."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import longevity; "
        f"longevity.build(__import__('pathlib').Path({str(root)!r}), {executions})"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def timed_gets(conn: http.client.HTTPConnection, cookie: str, paths: list[str]) -> list[float]:
    """Milliseconds from request to the whole answer read, for each path."""
    out = []
    for path in paths:
        started = time.perf_counter()
        conn.request("GET", path, headers={"Cookie": cookie})
        answer = conn.getresponse()
        answer.read()
        out.append((time.perf_counter() - started) * 1000)
        assert answer.status == 200, (path, answer.status)
    return out


def event_latency(face, root: Path, rows: int = 20) -> list[float]:
    """Milliseconds from a row's append returning to its event on the stream."""
    from hale_runtime.record import Record

    writer = Record.open(root, who="bench@face:0000beef", sign=False)
    conn = http.client.HTTPConnection(face.address.removeprefix("http://"), timeout=60)
    conn.request("GET", "/events", headers={"Cookie": f"{face.cookie}={face.token}"})
    stream = conn.getresponse()

    def next_event() -> str:
        lines = []
        while True:
            line = stream.fp.readline().decode()
            if line == "\n" and lines:
                if any(x.startswith("event: rows") for x in lines):
                    return lines[-1]
                lines = []
            elif line != "\n":
                lines.append(line)

    next_event()  # the stream's first word: where the record stands
    out = []
    for n in range(rows):
        time.sleep(random.uniform(0, 0.25))  # land at any point of the watcher's tick
        writer.append("node.ping.requested", f"face-bench-{n}", {})
        landed = time.perf_counter()
        next_event()
        out.append((time.perf_counter() - landed) * 1000)
    conn.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=100_000)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    root = args.keep or Path(f"/tmp/hale-face-{args.executions}")
    if not (root / ".git").is_dir():
        print(f"building {args.executions:,} executions in {root} …", flush=True)
        build(root, args.executions)

    from hale_runtime.face.server import FaceServer

    face = FaceServer(root)
    started = time.perf_counter()
    face._catch_up()
    print(f"executions table filled from the index over {face.seq:,} rows in "
          f"{time.perf_counter() - started:.1f} s (once, at a first start)")  # fmt: skip
    face.start()
    cookie = f"{face.cookie}={face.token}"
    conn = http.client.HTTPConnection(face.address.removeprefix("http://"), timeout=60)
    n = args.executions
    listing = [
        "/", "/?state=succeeded", "/?state=failed", "/?state=open", "/?definition=bench-one@1",
        "/?schedule=walk", "/?q=ask+7", f"/?before={n // 2}", "/?window=week&state=succeeded",
    ]  # fmt: skip
    rng = random.Random(7)
    timed_gets(conn, cookie, listing + ["/x/t1"])  # warm: templates compiled, genome read
    pages = timed_gets(conn, cookie, [listing[i % len(listing)] for i in range(args.requests)])
    ones = [f"/x/t{rng.randint(1, n)}" + ("?at=3" if i % 4 == 0 else "")
            for i in range(args.requests)]  # fmt: skip
    one = timed_gets(conn, cookie, ones)
    conn.close()
    events = event_latency(face, root)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    face.stop()
    print(
        f"executions page: p50 {statistics.median(pages):.1f} ms, "
        f"p99 {percentile(pages, 99):.1f} ms  (goal p50 < 50, p99 < 150)"
    )
    print(
        f"one execution:   p50 {statistics.median(one):.1f} ms, "
        f"p99 {percentile(one, 99):.1f} ms  (goal p50 < 50, p99 < 150)"
    )
    print(
        f"row -> event:    p50 {statistics.median(events):.0f} ms, "
        f"max {max(events):.0f} ms  (one tick: 250 ms)"
    )
    print(f"server memory:   peak RSS {rss:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
