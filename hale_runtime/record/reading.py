"""The Record's reads: rows by place, kind and key, from the index and the tail.

A read brings the chain to the ref's tip (chain.py), then answers from the
index for the settled prefix (a range search by key, kind or place, index.py)
and from the tail in memory for the rest, in chain order. Each row is checked
against its kind as it joins the chain, and one that does not fit is *poison*:
it keeps its place (its seq), but reads leave it out unless asked
(`poison=True`), so no reader applies it; `poison_of` says why, `poison_rows`
lists them. A line that is no row at all is read as a `row.unreadable` row,
poison too. A batch's signature rows are read only when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from hale_runtime.record import kinds as row_kinds
from hale_runtime.record.chain import Chain
from hale_runtime.record.epochs import Epochs
from hale_runtime.record.index import key_ranges, prefix_range
from hale_runtime.record.row import Row
from hale_runtime.record.signing import SIGNED

Ranges = Sequence[tuple[str, str | None]]


class Reading(Chain):
    """The Record's reading half (see the module's comment)."""

    if TYPE_CHECKING:
        _epochs: Epochs | None

    def rows(
        self,
        since: int = 0,
        kind: str | Iterable[str] | None = None,
        key_prefix: str | None = None,
        stamped_only: bool = False,
        key: str | None = None,
        poison: bool = False,
        signatures: bool = False,
    ) -> list[Row]:
        """Rows after cursor `since` (a seq), in chain order, optionally filtered:
        by kind, by the text a key starts with, or by one exact key; rows that
        do not fit their kind only when `poison`."""
        ranges: list[tuple[str, str | None]] = []
        if key is not None:
            ranges.append((key, key + "\x00"))
        elif key_prefix:
            ranges.append(prefix_range(key_prefix))
        return list(
            self.scan(since, kind, ranges, stamped_only, poison=poison, signatures=signatures)
        )

    def under(
        self,
        key: str,
        separators: str,
        kind: str | Iterable[str] | None = None,
        until: int | None = None,
    ) -> list[Row]:
        """The rows of `key` and of every key below it (`key` then one of
        `separators`: `t1` and `t1/wf1/s0`, not `t10`), through the index;
        only those up to seq `until` when given."""
        return list(self.scan(0, kind, key_ranges(key, separators), until=until))

    def scan(
        self,
        since: int = 0,
        kind: str | Iterable[str] | None = None,
        ranges: Ranges = (),
        stamped_only: bool = False,
        until: int | None = None,
        poison: bool = False,
        signatures: bool = False,
    ) -> Iterator[Row]:
        """Rows after `since` (and up to `until`) in chain order, yielded as read
        (a fold over a long record holds one chunk at a time); `ranges` are
        [low, high) of keys. The rows that do not fit their kind or were refused
        only with `poison`; a batch's signature rows only with `signatures` (or
        when `kind` names them)."""
        self.refresh()
        kinds = None if kind is None else ([kind] if isinstance(kind, str) else list(kind))
        end = self.stamped_count() if stamped_only else self._count_rows()
        if until is not None:
            end = min(end, until)
        base_rows = self._base[1]
        if since < base_rows and self._index is not None:
            yield from self._index.scan(
                since, min(end, base_rows), kinds, ranges, poison, signatures
            )
        first = max(since, base_rows) - base_rows
        tail = self._rows[first : max(end - base_rows, 0)]
        if self._poison and not poison:
            bad = self._poison
            tail = [r for r in tail if r.id not in bad]
        if kinds is None and not signatures:
            tail = [r for r in tail if r.kind != SIGNED]
        if kinds is not None:
            wanted = set(kinds)
            tail = [r for r in tail if r.kind in wanted]
        if ranges:
            tail = [r for r in tail if _within(r.key, ranges)]
        yield from tail

    def cursor(self, stamped_only: bool = False) -> int:
        """The seq of the last row (0 when empty): pass it as `since` to read what follows."""
        self.refresh()
        return self.stamped_count() if stamped_only else self._count_rows()

    def stamped_count(self) -> int:
        """How many rows, from the start of the chain, the remote holds (all with no remote)."""
        held = self._stamped_commits()
        return self._end(held - 1) if held else 0

    def stale(self, row: Row) -> str:
        """Why `row` is void under the epoch rule ("" when it counts: epochs.py)."""
        if self._epochs is None:
            self._epochs = Epochs(self)
        return self._epochs.stale(row)

    def poison_of(self, row: Row) -> str:
        """Why `row` does not fit its kind ("" when it does, or is not in the chain)."""
        self.refresh()
        if row.id in self._ids:
            return self._poison.get(row.id, "")
        if self._index is not None and self._base[1]:
            return self._index.poison_of(row.id, self._base[1])
        return ""

    def poison_rows(self, since: int = 0, until: int | None = None) -> Iterator[tuple[Row, str]]:
        """(row, why) of every row after `since` (up to `until`) that does not fit its kind."""
        self.refresh()
        base_rows = self._base[1]
        end = self._count_rows() if until is None else min(until, self._count_rows())
        if since < base_rows and self._index is not None:
            yield from self._index.poison(since, min(end, base_rows))
        for row in self._rows[max(since, base_rows) - base_rows : max(end - base_rows, 0)]:
            why = self._poison.get(row.id)
            if why:
                yield row, why

    def get(self, row_id: str) -> Row | None:
        """The row with this id, if the chain holds it."""
        self.refresh()
        return self._held(row_id)

    def _held(self, row_id: str) -> Row | None:
        """`get` as the chain is held, not refreshed (for the fold, mid-read)."""
        seq = self._ids.get(row_id)
        if seq is not None:  # a row of the commit being joined is not held yet
            at = seq - self._base[1] - 1
            return self._rows[at] if at < len(self._rows) else None
        return self._index.get(row_id, self._base[1]) if self._index is not None else None

    def kinds(self) -> set[str]:
        """Every kind of row the chain holds."""
        self.refresh()
        found = set(self._index.kinds()) if self._index is not None and self._base[1] else set()
        return found | {r.kind for r in self._rows}

    def admission(self, ask: str) -> Row | None:
        """The first `workflow.admitted` row under `ask` (the index keeps them by ask)."""
        self.refresh()
        if self._index is not None and self._base[1]:
            found = self._index.admission(ask, self._base[1])
            if found is not None:
                return found
        for row in self._rows:
            if row.kind == row_kinds.WORKFLOW_ADMITTED and row.body.get("ask") == ask:
                if row.id not in self._poison:
                    return row
        return None

    def open_keys(self, group: str) -> list[tuple[str, int, int]]:
        """(key, seq, at) of each key a row of the group's opening kinds opened
        and none of its closing kinds closed (kinds.OPEN_UNTIL), in the order
        they opened: the index's table, then the tail. What it reads grows with
        the open keys and the tail, not with the record's age."""
        self.refresh()
        opens, closes = row_kinds.OPEN_UNTIL[group]
        base_rows, index = self._base[1], self._index
        found = {k: (seq, at) for k, seq, at in (index.open_keys(group) if index else [])}
        closed: set[str] = set()
        for row in self.scan(base_rows, [*opens, *closes]):
            if row.kind in closes:
                found.pop(row.key, None)
                closed.add(row.key)
            elif row.key not in found and row.key not in closed:
                if not (index and base_rows and index.closed(group, row.key, base_rows)):
                    found[row.key] = (row.seq, row.at)
        return sorted(((k, seq, at) for k, (seq, at) in found.items()), key=lambda t: t[1])

    def row_at(self, seq: int) -> Row | None:
        """The row at place `seq` of the chain (None past its end)."""
        self.refresh()
        base_rows = self._base[1]
        if seq > base_rows:
            at = seq - base_rows - 1
            return self._rows[at] if at < len(self._rows) else None
        return self._index.row_at(seq) if self._index is not None and seq > 0 else None

    def _row(self, seq: int) -> Row:
        base_rows = self._base[1]
        if seq > base_rows:
            return self._rows[seq - base_rows - 1]
        assert self._index is not None
        found = self._index.row_at(seq)
        assert found is not None
        return found

    def rows_past(self, position: int | None) -> list[Row]:
        """The rows of the commits after the one at `position` (None: every row),
        poison included."""
        since = self.rows_through(position) if position is not None else 0
        return list(self.scan(since, poison=True, signatures=True))


def _within(key: str, ranges: Ranges) -> bool:
    for low, high in ranges:
        if key >= low and (high is None or key < high):
            return True
    return False
