"""Relaying request rows onto the nerves until the record answers them.

A request is a row whose kind ends in `.requested` (or `_requested`, as in
`workflow.cancel_requested`); it is answered by a row with the same key
whose kind is the request's stem with an answering ending after a `.` or
`_` (`intent.requested` -> `intent.offered`, `intent.refused`, …;
`workflow.cancel_requested` -> `workflow.cancel_answered`). The relay keeps the unanswered ones in a dict by (stem, key), fed from
the rows read since the last tick: stamped rows are read once (they never
move), the unstamped tail again each tick (a sync may rebase it). It reads
only rows of request and answer kinds (through the record's index by kind),
and keeps the answers seen as a compact `Seen`, so a node starting on a
record of a million asks reads what it must and holds 8 bytes an answer. Every tick
each unanswered request is published under its kind as subject, so a relay
lost with a dying organization comes back on the next tick; the
organization admits a request once by its id whatever the repeats. A
request that does not fit its kind is never relayed (the record leaves it
out). A `row.quarantined` row changes nothing here: it records a verdict the
organization reached from the rows themselves, and makes none (a row one
names is judged by its own content and signature, as every reader judges it).
A row the epoch rule voids (record/epochs.py) is passed over: an offer or an
outcome's answer a superseded body wrote answers nothing, so the request
goes on being relayed until the body holding the lease answers it.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.nerves import Nerves, check_subject
from hale_runtime.record import Record, Row
from hale_runtime.seen import Seen

REQUESTED = "requested"
ANSWERS = ("answered", "refused", "offered", "admitted", "done", "failed")
SEPARATORS = "._"  # `intent.requested`, and `workflow.cancel_requested` as the seed names it


def stem_of(kind: str, endings: tuple[str, ...]) -> str:
    """The kind's stem when it ends in one of `endings` after a separator, else ""."""
    for ending in endings:
        cut = len(kind) - len(ending) - 1
        if cut > 0 and kind.endswith(ending) and kind[cut] in SEPARATORS:
            return kind[:cut]
    return ""


def request_stem(kind: str) -> str:
    return stem_of(kind, (REQUESTED,))


def answer_stem(kind: str) -> str:
    return stem_of(kind, ANSWERS)


def message_of(row: Row) -> dict[str, Any]:
    """The body a relayed request travels with."""
    return {"row": row.id, "kind": row.kind, "key": row.key, "body": row.body, "who": row.who}


class Relay:
    def __init__(self) -> None:
        self.stable = 0  # rows up to here are stamped and already read
        self.pending: dict[tuple[str, str], Row] = {}
        self.answered = Seen()  # "<stem> <key>" of every answer read
        self.skipped: set[str] = set()  # kinds that are not subjects (reported once)

    def read(self, record: Record) -> None:
        """Take in the rows since the last read."""
        kinds = [k for k in record.kinds() if request_stem(k) or answer_stem(k)]
        for row in record.scan(self.stable, kinds):
            if record.stale(row):
                continue  # void (record/epochs.py): a superseded body's answer answers nothing
            stem = request_stem(row.kind)
            if stem:
                if f"{stem} {row.key}" not in self.answered:
                    self.pending.setdefault((stem, row.key), row)
            else:
                stem = answer_stem(row.kind)
                self.answered.add(f"{stem} {row.key}")
                self.pending.pop((stem, row.key), None)
        self.stable = record.stamped_count()

    def relay(self, record: Record, nerves: Nerves) -> int:
        """Publish every unanswered request; how many were sent."""
        self.read(record)
        sent = 0
        for row in list(self.pending.values()):
            try:
                check_subject(row.kind)
            except ValueError:
                self.skipped.add(row.kind)
                continue
            nerves.publish(row.kind, message_of(row))
            sent += 1
        return sent
