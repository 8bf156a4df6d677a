"""One record sync at a time per clone, across the node's processes and verbs.

The host, the organization and any verb run in the clone sync the same
record, and two fetches in one repository fail on each other's lock files
(`shallow.lock`, a ref's `.lock`). Each sync therefore holds an exclusive flock on
`.git/hale/sync.lock` for its duration; the other process waits its turn.
`pull` is the same without the push: the remote's rows in, rebased under
this clone's own (what the organization reads before it answers a batch).
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hale_runtime.record import Record, SyncReport
from hale_runtime.record import sync as record_sync


@contextmanager
def _locked(record: Record) -> Iterator[None]:
    lock = Path(record.repo.path) / "hale" / "sync.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def sync(record: Record) -> SyncReport:
    """`record.sync()`, holding this clone's sync lock."""
    with _locked(record):
        return record.sync()


def pull(record: Record) -> SyncReport:
    """Fetch and rebase, no push, holding this clone's sync lock."""
    with _locked(record):
        record.publish()
        return record_sync.sync(record, push=False)
