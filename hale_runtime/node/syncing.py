"""One record sync at a time per clone, across the node's processes and verbs.

The host, the organization and any verb run in the clone sync the same
record, and two fetches in one repository fail on each other's lock files
(`shallow.lock`, a ref's `.lock`). Each sync therefore holds an exclusive flock on
`.git/hale/sync.lock` for its duration; the other process waits its turn.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

from hale_runtime.record import Record, SyncReport


def sync(record: Record) -> SyncReport:
    """`record.sync()`, holding this clone's sync lock."""
    lock = Path(record.repo.path) / "hale" / "sync.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            return record.sync()
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
