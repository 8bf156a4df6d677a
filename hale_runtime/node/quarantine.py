"""Poison quarantined: each row the organization cannot apply answered by one row.

A row is poison when it does not fit its kind (the record marks it as it
reads it: `Record.poison_of`), or when applying it raised anywhere: the
engine's fold, the Scheduler, the intake, the settler, the projection.
Poison is never obeyed (readers skip what does not fit; a part whose
application raised skips that row) and never fatal: the organization
answers it with one `row.quarantined <row id> {"kind", "why"}` and goes on.
The row itself stays in the record, which is append-only.

Quarantine is local judgment: a row is poison by what this reader finds
of it (its kind, its signature, its application), never because a row
says so. A `row.quarantined` row records a verdict, so that no other one
is written for that row; it makes none (`holds` asks only what was found
here), so a forged one naming a good row changes nothing.

`Quarantined` is the fold: fed every row in chain order (poison included),
it knows which rows are poison and which a `row.quarantined` row already
answers, so a restart writes nothing twice. It is fed across the rebases a
sync makes: a poison row another clone pushed can land below rows this
clone already read, and must still be found. `Quarantine` is the writer the
organization ticks: parts report what raised (`report`), and `write`
answers every poison row not yet answered. The host keeps one too, for
what its projection could not apply (`find=False`: the rows that do not
fit their kind are the organization's to answer). Over a shared record two
organizations may find the same row; the one whose claim
`quarantine/<row id>` lands in memory syncs, looks again, and writes. The
claim is left to expire and no claim row is written: nothing but the one
`row.quarantined` is written for a poison row.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from hale_runtime.record import Record, Row
from hale_runtime.record.kinds import ROW_QUARANTINED, shown

CLAIM_TTL_S = 300.0


class Quarantined:
    """Which rows are poison and which are answered, folded from the record."""

    def __init__(self) -> None:
        self.answered: dict[str, str] = {}  # row id -> the kind its row.quarantined names
        self.waiting: dict[str, tuple[str, str]] = {}  # row id -> (kind, why), unanswered
        self.found: set[str] = set()  # the rows this reader found poison

    def fold(self, row: Row, why: str) -> None:
        """One row of the chain, and why it does not fit its kind ("" when it does)."""
        if why:
            self.report(row.id, row.kind, why)
        elif row.kind == ROW_QUARANTINED:
            self.answered[row.key] = str(row.body.get("kind", ""))
            self.waiting.pop(row.key, None)

    def report(self, row_id: str, kind: Any, why: str) -> None:
        """A row found poison (its application raised, or it does not fit)."""
        self.found.add(row_id)
        if row_id not in self.answered and row_id not in self.waiting:
            self.waiting[row_id] = (kind if isinstance(kind, str) else shown(kind), why)


def quarantined(record: Record) -> Quarantined:
    """The fold over the whole record (what `hale dna status` counts)."""
    q = Quarantined()
    fold(q, record, 0, record.cursor(), find=True)
    return q


def fold(q: Quarantined, record: Record, since: int, until: int, find: bool) -> None:
    """Fold the rows after `since` up to `until`: the poison ones (when `find`),
    then the answers, read by kind through the record's index."""
    if find:
        for row, why in record.poison_rows(since, until):
            q.fold(row, why)
    for row in record.scan(since, ROW_QUARANTINED, until=until):
        q.fold(row, "")


class Quarantine:
    """The organization's writer of `row.quarantined` rows."""

    def __init__(
        self,
        record: Record,
        memory: Any,
        holder: str,
        sync: Callable[[Record], Any] | None = None,
        say: Callable[[str], None] | None = None,
        find: bool = True,
        ttl_s: float = CLAIM_TTL_S,
    ):
        self.record, self.memory, self.holder, self.find = record, memory, holder, find
        self.ttl_s = ttl_s  # a claim whose holder died before answering lets another answer then
        self.sync = sync or (lambda _record: None)
        self.say = say or (lambda line: print(f"hale: {line}", file=sys.stderr, flush=True))
        self.fold = Quarantined()
        self.stamped = 0  # the rows up to here are folded for good

    def read(self) -> None:
        """Fold what is new. The stamped prefix never moves, so its rows are
        folded once; the unstamped tail is folded again at each read, since a
        sync's rebase slips rows another clone wrote below any place in it
        (follow.py). The fold takes a row twice as once, and the tail is the
        rows not yet at the remote, a tick's worth."""
        stamped = self.record.stamped_count()
        if stamped > self.stamped:
            fold(self.fold, self.record, self.stamped, stamped, self.find)
            self.stamped = stamped
        end = self.record.cursor()
        if end > self.stamped:
            fold(self.fold, self.record, self.stamped, end, self.find)

    def report(self, row_id: str, kind: Any, why: str) -> None:
        self.fold.report(row_id, kind, why)

    def holds(self, row_id: str) -> bool:
        """Whether this reader found the row poison (answered or not): a verdict of its
        own, never one a `row.quarantined` row makes."""
        return row_id in self.fold.found

    def write(self) -> int:
        """Answer every poison row not answered yet; how many this writer answered."""
        self.read()
        written = 0
        for row_id, (kind, why) in list(self.fold.waiting.items()):
            if self._answer(row_id, kind, why):
                written += 1
        return written

    def _answer(self, row_id: str, kind: str, why: str) -> bool:
        if self.memory is not None:
            if self.memory.take(f"quarantine/{row_id}", self.holder, self.ttl_s) is None:
                return False  # another organization answers it
            self.sync(self.record)
            self.read()
            if row_id in self.fold.answered:
                return False
        self.record.append(ROW_QUARANTINED, row_id, {"kind": kind, "why": why})
        self.say(f"quarantined row {row_id[:12]} ({kind}): {why}")
        self.read()
        self.sync(self.record)
        return True
