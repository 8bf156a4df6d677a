"""Following the record as it grows, across the rebases a sync makes.

A sync rebases this clone's unstamped rows onto what another clone pushed,
so a seq read a moment ago may name another row now: our rows move up, and
rows another writer made slip in below a reader's place. A reader going on
from a seq would skip those rows for good (the fold then meets a step of a
task it never saw admitted) and read its own rows twice. Only the stamped
prefix never moves: the remote's chain grows by fast-forward alone.

So a Follower keeps its place as the seq it read to, the stamped count at
that read, and the ids of the rows it read past that count. When those rows
still stand where it read them, what follows them is new, read lazily (a
fold over a long record holds one chunk at a time); otherwise every row past
the stamped mark it has not read is new, in chain order. Each row is handed
out once, even when the reader stops part way (an exception in its fold):
its place moves row by row. The ids kept are only those past the stamped
mark, a tick's worth: a row already stamped when it is read moves the
stamped mark itself, so a fold over a long settled record keeps no ids.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hale_runtime.record.record import Record
    from hale_runtime.record.row import Row


class Follower:
    """One reader's place in `record`; `new_rows()` hands out each row once.

    `since` is a seq whose rows are all stamped (a checkpoint's): reading goes on
    after it. Rows that do not fit their kind (poison) are left out, as every
    read leaves them out; places are the rows' own seqs, so they count too.
    Rows the epoch rule voids (record/epochs.py) are passed over too, unless
    the reader asks for them (`stale=True`: the engine, which quarantines them)."""

    def __init__(self, record: Record, since: int = 0, stale: bool = False) -> None:
        self.record = record
        self.void = not stale  # pass over the rows the epoch rule voids
        self.seq = since  # the seq of the last row passed, in the chain as it stood then
        self.stamped = since  # the stamped prefix at that read (it never moves)
        self.tail: list[str] = []  # ids of the rows passed after `stamped`, in chain order
        self.unread: set[str] = set()  # among those, rows found after a rebase, not yet handed out

    def new_rows(self) -> Iterator[Row]:
        """The rows not handed out before, in chain order."""
        stamped = self.record.stamped_count()  # read before the scan: never past its view
        rows = self.record.scan(self.stamped)  # one refresh: one view of the chain
        head = list(itertools.islice(rows, len(self.tail)))
        if not self.unread and [r.id for r in head] == self.tail:
            new = self._onward(rows, stamped)
        else:
            new = self._after_rebase(head, rows)
        if self.void:
            stale = self.record.stale
            new = (row for row in new if not stale(row))
        yield from new
        self._compact()

    def _onward(self, rows: Iterator[Row], stamped: int) -> Iterator[Row]:
        for row in rows:
            self.seq = row.seq
            if not self.tail and row.seq <= stamped:
                self.stamped = row.seq  # stamped as read: it never moves, no id to keep
            else:
                self.tail.append(row.id)
            yield row

    def _after_rebase(self, head: list[Row], rows: Iterator[Row]) -> Iterator[Row]:
        """Every row past the stamped mark not handed out yet, wherever it now stands."""
        handed = set(self.tail) - self.unread
        everything = head + list(rows)
        new = [r for r in everything if r.id not in handed]
        self.seq = everything[-1].seq if everything else self.stamped
        self.tail = [r.id for r in everything]
        self.unread = {r.id for r in new}
        for row in new:
            self.unread.discard(row.id)
            yield row

    def _compact(self) -> None:
        """Forget the ids of rows that became stamped: they never move again. Only
        when the chain still holds the rows passed where they were passed (a
        sync in between may have rebased it: then next time)."""
        stamped = min(self.record.stamped_count(), self.seq)
        if self.unread or stamped <= self.stamped:
            return
        settled = [r.id for r in self.record.scan(self.stamped, until=stamped)]
        if settled == self.tail[: len(settled)]:
            del self.tail[: len(settled)]
            self.stamped = stamped
