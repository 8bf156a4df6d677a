"""The record: append-only rows in git under `refs/dna/`, synced between clones.

rec = Record.open(path)                  # the repository at or above path
rec.append("claim.taken", "plan/i7", {"holder": rec.who, "token": 1})
rec.append_many([(kind, key, body), ...])  # one commit, all or none
rec.rows(since=cursor, kind=..., key_prefix=..., stamped_only=..., key=..., poison=False)
rec.poison_of(row), rec.poison_rows(since)  # rows that do not fit their kind (kinds.py)
rec.scan(since, kind, ranges)            # the same, yielded a chunk at a time
rec.under("t7", "/.")                    # a key and every key below it, by the index
rec.admission(ask), rec.row_at(seq), rec.get(row_id)
rec.cursor()                             # the seq to read on from (unstamped rows may move)
Follower(rec).new_rows()                 # each row once, across the rebases a sync makes
rec.sync()                               # fetch, rebase, push (no-op without a remote)
rec.put_receipt(doc) / rec.get_receipt(digest)
"""

from hale_runtime.record.chain import tracking_ref
from hale_runtime.record.errors import RecordError
from hale_runtime.record.follow import Follower
from hale_runtime.record.identity import Clock, wall_clock
from hale_runtime.record.practices import seed_practices
from hale_runtime.record.record import Record
from hale_runtime.record.row import Row, canonical
from hale_runtime.record.store import RECORD_REF
from hale_runtime.record.sync import SyncReport

__all__ = [
    "RECORD_REF",
    "Clock",
    "Follower",
    "Record",
    "RecordError",
    "Row",
    "SyncReport",
    "canonical",
    "seed_practices",
    "tracking_ref",
    "wall_clock",
]
