"""Benchmark of the record: appends against raw pygit2 writes, and full replay.

Each figure is measured side by side in one run, in fresh repositories under a
temporary folder. Appends alternate raw and Record over several rounds; each
round gives a ratio of the pair, and the median ratio is reported (a shared
machine's noise hits a pair together more often than apart):
  - raw pygit2: blob + tree + commit (moving one ref), the same JSONL bytes;
  - Record.append_many with 100 rows a commit, and Record.append one a commit;
  - replay (read + decode) of every row from git alone, then from the cache.
Bars (printed, not asserted): batched append within 2x of raw; replay of
100,000 rows under 2 s. `--rows N` changes the replay size.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pygit2

from hale_runtime.record import Record
from hale_runtime.record.row import encode_line, make_row
from hale_runtime.record.store import write_commit


def body(i: int) -> dict:
    return {"holder": "bench@host:c0", "token": i, "until": 1_700_000_000_000 + i}


def raw_write(path: Path, rows: int, per_commit: int) -> float:
    """Seconds to write `rows` rows as raw pygit2 commits of `per_commit` rows."""
    repo = pygit2.init_repository(str(path), bare=True)
    lines = [
        encode_line(make_row("claim.taken", f"plan/i{i}", body(i), "b@h:c0", 1, "c0"))
        for i in range(rows)
    ]
    texts = ["".join(lines[i : i + per_commit]) for i in range(0, rows, per_commit)]
    texts = [t.replace("}{", "}\n{") + "\n" for t in texts]
    start = time.perf_counter()
    parent = None
    for text in texts:
        parent = write_commit(repo, parent, text, "b@h:c0", 1000)
        repo.references.create("refs/bench/raw", parent, force=True)
    return time.perf_counter() - start


def record_write(path: Path, rows: int, per_commit: int) -> tuple[float, Record]:
    """Seconds to append `rows` rows through Record, `per_commit` a call."""
    pygit2.init_repository(str(path), bare=True)
    clock = iter(range(10**12)).__next__
    record = Record.open(path, clock=clock, who="b@h:c0")
    start = time.perf_counter()
    for first in range(0, rows, per_commit):
        batch = [("claim.taken", f"plan/i{i}", body(i)) for i in range(first, first + per_commit)]
        if per_commit == 1:
            record.append(*batch[0])
        else:
            record.append_many(batch)
    elapsed = time.perf_counter() - start
    record.close()
    return elapsed, record


def replay(path: Path, drop_cache: bool) -> tuple[float, int]:
    """Seconds for a fresh Record to read and decode every row."""
    if drop_cache:
        shutil.rmtree(path / "hale", ignore_errors=True)
    start = time.perf_counter()
    count = len(Record.open(path).rows())
    return time.perf_counter() - start, count


def line(label: str, rows: int, seconds: float) -> None:
    print(f"  {label:<44} {rows:>7} rows {seconds * 1000:>9.1f} ms {rows / seconds:>11,.0f} rows/s")


def paired(root: Path, rounds: int, rows: int, per_commit: int) -> tuple[float, float, float]:
    """(median raw seconds, median Record seconds, median per-round ratio)."""
    raw, rec = [], []
    for n in range(rounds):
        raw.append(raw_write(root / f"raw{per_commit}-{n}", rows, per_commit))
        rec.append(record_write(root / f"rec{per_commit}-{n}", rows, per_commit)[0])
    ratios = [b / a for a, b in zip(raw, rec, strict=True)]
    return statistics.median(raw), statistics.median(rec), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows to replay")
    parser.add_argument("--batched", type=int, default=20_000, help="rows a batched round")
    parser.add_argument("--single", type=int, default=500, help="rows a one-a-commit round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"append (medians of {args.rounds} alternating rounds)")
        raw1, rec1, ratio1 = paired(root, args.rounds, args.single, 1)
        line("raw pygit2, one row a commit", args.single, raw1)
        line("Record.append, one row a commit", args.single, rec1)
        raw100, rec100, ratio100 = paired(root, args.rounds, args.batched, 100)
        line("raw pygit2, 100 rows a commit", args.batched, raw100)
        line("Record.append_many, 100 rows a commit", args.batched, rec100)
        print("replay (read + decode, fresh Record)")
        record_write(root / "replay", args.rows, 100)
        from_git, n = replay(root / "replay", drop_cache=True)
        from_cache, _ = replay(root / "replay", drop_cache=False)
        line("from git, 100 rows a commit, no cache", n, from_git)
        line("from the cache", n, from_cache)
        print("ratios")
        print(f"  append one a commit / raw:   {ratio1:.2f}x")
        print(f"  append 100 a commit / raw:   {ratio100:.2f}x  (bar: within 2x)")
        worst = max(from_git, from_cache)
        print(f"  replay of {n:,} rows: {worst:.2f} s at worst  (bar: under 2 s)")


if __name__ == "__main__":
    main()
