"""Benchmark of a new body joining: a fresh clone's first read of the record.

A writer holding the record's genesis key writes `--rows` rows (100 a commit,
signed) and syncs them to a bare remote. A fresh clone (a bare repository with
that remote) then runs, in a new process, what `hale dna status` does with the
record: sync (the fetch), then read the node rows through the index. Timed
twice, side by side: with no index snapshot on the remote (the index is built
from git, row by row), and with the snapshot the writer published
(snapshot.py: verified against the chain, then installed). Bars (printed,
not asserted): at most 1 s at 10^5 rows, 2 s at 10^6.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hale_runtime.record import Record
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import KEY_REGISTERED, NODE_STARTED
from hale_runtime.record.signing import key_of

KEY = SigningKey(Ed25519PrivateKey.generate(), Path("bench"))  # never the user's own
FIRST_READ = """
import sys
from hale_runtime.record import Record
record = Record.open(sys.argv[1])
record.sync()
nodes = record.rows(kind=("node.started", "node.stopped"), key_prefix="node/")
print(len(nodes), record.cursor(), record.snapshot_refused or "-")
"""


def written(root: Path, rows: int) -> Record:
    """The remote, holding `rows` rows written by the genesis key's holder."""
    remote = root / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    writer = pygit2.init_repository(str(root / "writer.git"), bare=True)
    writer.remotes.create("origin", str(remote))
    clock = iter(range(1_700_000_000_000, 10**13)).__next__
    record = Record.open(root / "writer.git", clock=clock, who="bench@box:c0", sign=KEY)
    body = {"identity": "bench", "public": encode_public(KEY.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(KEY.fingerprint), body)
    for first in range(0, rows, 100):
        batch = [("claim.taken", f"plan/i{i}", {"holder": "bench@box:c0", "token": i,
                  "until": 1_700_000_000_000 + i}) for i in range(first, first + 100)]  # fmt: skip
        if first % 50_000 == 0:
            batch[0] = (NODE_STARTED, "node/bench@box", {"genome": "g", "token": first})
        record.append_many(batch)
        if first % 100_000 == 99_900:
            record.sync()  # a writer syncs as it goes: one push of 10^6 rows outlasts git's timeout
    record.sync()
    return record


def first_read(root: Path, name: str, fetched: bool = False) -> tuple[float, str]:
    """Seconds for a fresh clone's first read, in a new process; what it printed.
    `fetched`: the clone holds the remote's objects already (a mirror clone), so
    the time is the record's alone, not git's transfer."""
    clone = pygit2.init_repository(str(root / name), bare=True)
    clone.remotes.create("origin", str(root / "remote.git"))
    if fetched:
        spec = "+refs/dna/record*:refs/dna/remotes/origin/record*"
        subprocess.run(
            ["git", f"--git-dir={root / name}", "fetch", "-q", "origin", spec], check=True
        )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", FIRST_READ, str(root / name)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return time.perf_counter() - start, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000])
    args = parser.parse_args()
    os.environ["HALE_DNA_DURABILITY"] = "relaxed"
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            made = time.perf_counter()
            record = written(root, rows)
            made = time.perf_counter() - made
            subprocess.run(
                ["git", f"--git-dir={root / 'remote.git'}", "update-ref", "-d",
                 "refs/dna/record-index"], check=True,
            )  # fmt: skip
            before, said = first_read(root, "before.git")
            before_f, _ = first_read(root, "before-fetched.git", fetched=True)
            shared = time.perf_counter()
            why = record.share_index("origin", force=True)
            shared = time.perf_counter() - shared
            after, said_after = first_read(root, "after.git")
            after_f, _ = first_read(root, "after-fetched.git", fetched=True)
            bar = 1.0 if rows <= 100_000 else 2.0
            print(f"{rows:>9,} rows (written in {made:.1f} s; snapshot published in {shared:.2f} s"
                  f"{': ' + why if why else ''})")  # fmt: skip
            print("  first read (with git's fetch / objects fetched already):")
            print(f"    index built from git:  {before:6.2f} s / {before_f:6.2f} s  ({said})")
            print(f"    from the snapshot:     {after:6.2f} s / {after_f:6.2f} s  ({said_after})")
            verdict = "meets" if after_f <= bar else "PAST"
            print(
                f"  ratio {before_f / after_f:.1f}x; bar {bar:.0f} s (fetched already): {verdict}"
            )


if __name__ == "__main__":
    main()
