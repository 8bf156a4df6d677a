"""Benchmark of the record: appends against raw pygit2 writes, durability, and replay.

Each figure is measured side by side in one run, in fresh repositories under a
temporary folder. Appends alternate raw and Record over several rounds; each
round gives a ratio of the pair, and the median ratio is reported (a shared
machine's noise hits a pair together more often than apart):
  - raw pygit2: blob + tree + commit (moving one ref), the same JSONL bytes;
  - Record.append_many with 100 rows a commit, and Record.append one a commit;
  - durable appends, one row a commit, four ways side by side: libgit2's
    GIT_OPT_ENABLE_FSYNC_GITDIR, hale's own fsync of each object and the ref
    (store.py), the Record's journal (one fdatasync an append, journal.py),
    and the Record relaxed (no fsync);
  - replay (read + decode) of every row from git alone, then from the index
    (record/index.py).
  - signing: Record appends signed (one Ed25519 signature a batch, the
    signature row before the rows) against the same appends unsigned,
    alternated; and reading every row with its signature verified (what
    `hale dna history --verify` does) against reading it alone.
Bars (printed, not asserted): batched append within 2x of raw; replay of
100,000 rows under 2 s; signed append within 1.3x of unsigned. `--rows N`
changes the replay size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hale_runtime.record import Record, store
from hale_runtime.record.keys import SigningKey
from hale_runtime.record.row import encode_line, make_row
from hale_runtime.record.signing import attribute


def body(i: int) -> dict:
    return {"holder": "bench@host:c0", "token": i, "until": 1_700_000_000_000 + i}


def texts_of(rows: int, per_commit: int) -> list[str]:
    lines = [
        encode_line(make_row("claim.taken", f"plan/i{i}", body(i), "b@h:c0", 1, "c0")) + "\n"
        for i in range(rows)
    ]
    return ["".join(lines[i : i + per_commit]) for i in range(0, rows, per_commit)]


def raw_write(path: Path, rows: int, per_commit: int, fsync: bool = False) -> float:
    """Seconds to write `rows` rows as raw pygit2 commits of `per_commit` rows
    (with libgit2's own fsync option when `fsync`)."""
    repo = pygit2.init_repository(str(path), bare=True)
    texts = texts_of(rows, per_commit)
    sig = pygit2.Signature("b@h:c0", "record@hale", 1, 0)
    store.use_fsync(fsync)
    start = time.perf_counter()
    parent = None
    for text in texts:
        parent = store._write_commit_libgit2(repo, parent, text, sig, "rows\n")
        repo.references.create("refs/bench/raw", parent, force=True)
    elapsed = time.perf_counter() - start
    store.use_fsync(False)
    return elapsed


def own_fsync_write(path: Path, rows: int) -> float:
    """Seconds for one-row commits fsync'd object by object and ref by hale (store.py)."""
    repo = pygit2.init_repository(str(path), bare=True)
    texts = texts_of(rows, 1)
    start = time.perf_counter()
    parent = None
    for text in texts:
        oid = store.write_commit(repo, parent, text, "b@h:c0", 1000, durable=True)
        assert store.move_ref(repo, "refs/bench/own", parent, oid, durable=True)
        parent = oid
    return time.perf_counter() - start


def durable_record_write(path: Path, rows: int, durable: bool) -> float:
    os.environ["HALE_DNA_DURABILITY"] = "full" if durable else "relaxed"
    try:
        return record_write(path, rows, 1)[0]
    finally:
        os.environ["HALE_DNA_DURABILITY"] = "relaxed"


KEY = SigningKey(Ed25519PrivateKey.generate(), Path("bench"))  # never the user's own


def record_write(
    path: Path, rows: int, per_commit: int, sign: SigningKey | bool = KEY
) -> tuple[float, Record]:
    """Seconds to append `rows` rows through Record, `per_commit` a call (signed
    with `sign`, unsigned when False)."""
    pygit2.init_repository(str(path), bare=True)
    clock = iter(range(10**12)).__next__
    record = Record.open(path, clock=clock, who="b@h:c0", sign=sign)
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


def replay(path: Path, drop_index: bool) -> tuple[float, int]:
    """Seconds for a fresh Record to read and decode every row."""
    if drop_index:
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


def durable_table(root: Path, rounds: int, rows: int) -> None:
    """One-row appends, four ways, alternating; min and median rows/s of each."""
    sides = {
        "libgit2 GIT_OPT_ENABLE_FSYNC_GITDIR": lambda p: raw_write(p, rows, 1, fsync=True),
        "hale fsync of each object and the ref": lambda p: own_fsync_write(p, rows),
        "Record.append, durable (the journal)": lambda p: durable_record_write(p, rows, True),
        "Record.append, relaxed (unsafe)": lambda p: durable_record_write(p, rows, False),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for n in range(rounds):
        order = list(enumerate(sides.items()))
        for k, (name, side) in order if n % 2 == 0 else reversed(order):  # alternate who goes first
            times[name].append(side(root / f"durable-{n}-{k}"))
    journal = statistics.median(times["Record.append, durable (the journal)"])
    print(f"durable appends, one row a commit ({rows} rows; best / median of {rounds} rounds)")
    for name, seconds in times.items():
        best, mid = rows / min(seconds), rows / statistics.median(seconds)
        ratio = statistics.median(seconds) / journal
        print(f"  {name:<40} {best:>8,.0f} / {mid:>8,.0f} rows/s  {ratio:5.2f}x the journal's time")


def signed_pair(root: Path, rounds: int, rows: int, per_commit: int) -> tuple[list, list]:
    """Seconds of each round, unsigned and signed, alternating which goes first."""
    plain: list[float] = []
    signed: list[float] = []
    for n in range(rounds):
        sides = [(plain, False, "plain"), (signed, KEY, "signed")]  # False: unsigned on purpose
        for times, key, name in sides if n % 2 == 0 else reversed(sides):
            times.append(record_write(root / f"{name}{per_commit}-{n}", rows, per_commit, key)[0])
    return plain, signed


def signed_lines(label: str, rows: int, plain: list[float], signed: list[float]) -> float:
    """Print both sides (best / median rows/s); the ratio of the medians."""
    for side, times in (("unsigned", plain), ("signed", signed)):
        best, mid = rows / min(times), rows / statistics.median(times)
        print(f"  {label + ', ' + side:<44} {best:>9,.0f} / {mid:>9,.0f} rows/s")
    return statistics.median(signed) / statistics.median(plain)


def verified_read(path: Path, rounds: int) -> tuple[float, float, float, int]:
    """(median read seconds, median read-and-verify seconds, median ratio, rows
    verified): every row of a signed record, its signature checked."""
    plain, checked, ratios, good = [], [], [], 0
    for _ in range(rounds):
        record = Record.open(path)
        start = time.perf_counter()
        list(record.scan(0, signatures=True))
        plain.append(time.perf_counter() - start)
        record = Record.open(path)
        start = time.perf_counter()
        good = sum(
            1 for _, proof in attribute(record.scan(0, signatures=True)) if proof.fingerprint
        )
        checked.append(time.perf_counter() - start)
        ratios.append(checked[-1] / plain[-1])
    return statistics.median(plain), statistics.median(checked), statistics.median(ratios), good


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows to replay")
    parser.add_argument("--batched", type=int, default=20_000, help="rows a batched round")
    parser.add_argument("--single", type=int, default=500, help="rows a one-a-commit round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per figure")
    parser.add_argument("--durable", type=int, default=300, help="rows a durable round")
    args = parser.parse_args()
    os.environ["HALE_DNA_DURABILITY"] = "relaxed"  # the raw comparisons; durable_table sets its own
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        durable_table(root, args.rounds, args.durable)
        print(f"append (medians of {args.rounds} alternating rounds)")
        raw1, rec1, ratio1 = paired(root, args.rounds, args.single, 1)
        line("raw pygit2, one row a commit", args.single, raw1)
        line("Record.append, one row a commit", args.single, rec1)
        raw100, rec100, ratio100 = paired(root, args.rounds, args.batched, 100)
        line("raw pygit2, 100 rows a commit", args.batched, raw100)
        line("Record.append_many, 100 rows a commit", args.batched, rec100)
        print("replay (read + decode, fresh Record)")
        record_write(root / "replay", args.rows, 100)
        from_git, n = replay(root / "replay", drop_index=True)
        from_index, _ = replay(root / "replay", drop_index=False)
        line("from git, 100 rows a commit, no index", n, from_git)
        line("from the index", n, from_index)
        print(f"signing (best / median of {args.rounds} rounds, alternating who goes first)")
        sign1 = signed_lines("Record.append, one row a commit", args.single,
                             *signed_pair(root, args.rounds, args.single, 1))  # fmt: skip
        sign100 = signed_lines("Record.append_many, 100 a commit", args.batched,
                               *signed_pair(root, args.rounds, args.batched, 100))  # fmt: skip
        read, checked, verify, good = verified_read(root / "replay", args.rounds)
        line("read every row (index), 100 a commit", n, read)
        line("read every row and verify its signature", good, checked)
        print("ratios")
        print(f"  append one a commit / raw:   {ratio1:.2f}x")
        print(f"  append 100 a commit / raw:   {ratio100:.2f}x  (bar: within 2x)")
        worst = max(from_git, from_index)
        print(f"  replay of {n:,} rows: {worst:.2f} s at worst  (bar: under 2 s)")
        print(f"  signed / unsigned, one a commit: {sign1:.2f}x  (goal: within 1.3x)")
        print(f"  signed / unsigned, 100 a commit: {sign100:.2f}x  (goal: within 1.3x)")
        print(f"  read and verified / read:        {verify:.2f}x")


if __name__ == "__main__":
    main()
