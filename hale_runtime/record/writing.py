"""The Record's writes: rows made, checked, signed and appended by compare-and-swap.

An append is one commit and one journal frame, so a batch costs one
fdatasync however many rows it holds (journal.py): the engine's round, the
head's batch and the host's tick each call `append_many` once. `append`
returns only once its rows are on disk, and before the ref shows them to
anyone, unless HALE_DNA_DURABILITY=relaxed (tests and benches only). A row
whose id the chain holds is not written again: the call returns it as it
stands. Inside a hold (record.py's `held`) the rows join the pending commit
instead, journalled and so durable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from hale_lang.gc_pause import collector_paused
from hale_runtime.record import kinds as row_kinds
from hale_runtime.record import store
from hale_runtime.record.authority import written
from hale_runtime.record.epochs import stamp
from hale_runtime.record.errors import RecordError, RowRefused
from hale_runtime.record.reading import Reading
from hale_runtime.record.row import Row, decode_line, new_row

if TYPE_CHECKING:
    from hale_runtime.record.trust import Trust

MAX_APPEND_TRIES = 500
_new = tuple.__new__  # a Row from a full tuple, without NamedTuple's argument parsing


class Writing(Reading):
    """The Record's writing half (see the module's comment)."""

    if TYPE_CHECKING:  # the Record's
        durable: bool
        epoch: tuple[str, int] | None
        guard: Callable[[], None] | None
        _holding: float | None

        def trust_now(self) -> Trust: ...

        def publish(self) -> None: ...

        def _held_write(self, new: list[Row], text: str) -> None: ...

    def append(self, kind: str, key: str, body: dict[str, Any]) -> Row:
        """Write one row in one commit; the same row written before is returned as it stands."""
        return self.append_many([(kind, key, body)])[0]

    def append_many(
        self, items: Iterable[tuple[str, str, dict[str, Any]]], checked: bool = False
    ) -> list[Row]:
        """Write rows as one commit (all or none), stamped with one time; one Row per item.
        Each is checked against its kind (RowRefused, nothing written) unless the
        caller `checked` kind, key and body already."""
        with collector_paused():
            return self._append_many(items, checked)

    def _append_many(
        self, items: Iterable[tuple[str, str, dict[str, Any]]], checked: bool
    ) -> list[Row]:
        if self.guard is not None:
            self.guard()
        at = self.clock()
        why = row_kinds.check_writer(self.who, at, self.clone) if checked else ""
        if why:
            raise RowRefused(f"this record's writer is refused: {why}")
        epoch = self.epoch
        made = [
            new_row(kind, key, stamp(body, epoch), self.who, at, self.clone, checked)
            for kind, key, body in items
        ]
        return self._write(made, at)

    def sealed(self, items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, str]]:
        """Rows made, judged and signed as `append_many` would write them, but not
        written: (id, stored line) each, every signature row before the rows it
        covers. What a writer hands to a store the record adopted (the ledger),
        so the rows keep their writer's proof when they are carried here."""
        at = self.clock()
        made = [
            new_row(kind, key, stamp(body, self.epoch), self.who, at, self.clone)
            for kind, key, body in items
        ]
        lines = {row.id: line for row, line in made}
        store.refuse_past_max(lines.values())
        self.refresh()
        batch, signatures = self._authority.seal(
            self.trust_now(), [row for row, _ in made], self.who, at, self.clone
        )
        lines.update(signatures)
        return [(row.id, lines[row.id]) for row in batch]

    def carry(
        self, lines: Iterable[str], refused: list[tuple[int, str]] | None = None
    ) -> list[Row]:
        """Write rows made elsewhere (an adopted ledger's: ledger/), each exactly as it
        was made, so its id, writer and time stay; one commit, as an append is.
        Nothing is signed here: a row keeps the signature row its writer made
        with it (`sealed`), carried in the same commit, and each joins the chain
        as a row read from git does, judged by what that signature proves (an
        authority row it does not prove is poison, for the organization to
        quarantine). A line that is no row, or does not fit its kind, is
        RowRefused with nothing written; or, given `refused`, left out and
        listed there as (its place among `lines`, why)."""
        made = []
        for n, line in enumerate(lines):
            try:
                row = decode_line(line, 0, "a carried row")
                why = row_kinds.check_row(*row[:6])
                if why:
                    raise RowRefused(f"a {row_kinds.shown(row.kind)} row is refused: {why}")
            except (RecordError, RowRefused) as error:
                if refused is None:
                    raise RowRefused(str(error)) from None
                refused.append((n, str(error)))
                continue
            made.append((row, line))
        with collector_paused():
            return self._write(made, self.clock(), carried=True)

    def _write(self, made: list[tuple[Row, str]], at: int, carried: bool = False) -> list[Row]:
        """One commit of these rows (ids already known ones dropped), durable; signed
        by this writer, or, `carried`, as they came (judged as rows read from git).
        Held (`held`), they join the pending commit instead; a carry publishes first."""
        fresh = [row for row, _ in made]
        lines = {row.id: line for row, line in made}
        store.refuse_past_max(lines.values())
        with self._journal.locked() if self.durable else contextlib.nullcontext():
            hold = self._holding is not None and not carried
            if not hold:
                self.publish()
            for _ in range(MAX_APPEND_TRIES):
                tip = self.refresh()
                out, new = self._place(fresh)
                if not new:
                    return out
                if carried:
                    batch, signatures = new, {}
                else:
                    batch, signatures = self._authority.seal(
                        self.trust_now(), new, self.who, at, self.clone
                    )
                lines.update(signatures)
                if len(batch) != len(new):
                    new, placed = written(batch, self._count_rows())
                    out = [placed.get(r.id, r) for r in out]
                text = "".join([lines[r.id] + "\n" for r in new])
                if hold:
                    self._held_write(new, text)
                    return out
                oid = store.write_commit(self.repo, tip, text, self.who, at, durable=False)
                store.pause_for_tests(oid, store.PAUSE_ENV)
                if self.durable:
                    self._journal.write(text)  # durable from here, before the ref shows it
                    store.pause_for_tests(oid, store.JOURNALLED_PAUSE_ENV)
                if store.move_ref(self.repo, store.RECORD_REF, tip, oid, durable=False):
                    self._add(str(oid), str(tip) if tip else None, new, checked=not carried)
                    self._tip = oid
                    self._persist()
                    if self.durable and self._journal.full():
                        self._journal.settle(str(oid))
                    return out
        raise RecordError(f"{store.RECORD_REF} kept moving; {len(fresh)} row(s) not written")

    def _place(self, fresh: list[Row]) -> tuple[list[Row], list[Row]]:
        """(each item as it will read, the rows that are new) after dropping known ids."""
        base = self._count_rows()
        known = self._known(r.id for r in fresh)
        if len({r.id for r in fresh}) == len(fresh) and not known:
            new = [_new(Row, (*r[:7], base + n)) for n, r in enumerate(fresh, 1)]
            return new, new
        out: list[Row] = []
        placed: dict[str, Row] = {}
        for row in fresh:
            seq = known.get(row.id)
            if seq is None and row.id not in placed:
                placed[row.id] = row._replace(seq=base + len(placed) + 1)
            out.append(self._row(seq) if seq is not None else placed[row.id])
        return out, list(placed.values())
