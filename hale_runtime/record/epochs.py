"""Epochs: which rows written under a body lease still count.

A body lease (node/lease.py) is one holder's until it expires; its token
rises by one on every take, and that token is the body's *epoch*. Every row
a body writes while it holds the lease carries `"epoch": {"of": <lease
ref>, "n": <token>}` in its body (`stamp`), and a body that takes the lease
writes one `body.epoch` row (key: the lease ref, body: `{"n": token}`) and
syncs it to the remote before it acts (node/host.py).

The rule, one for every reader: a row whose epoch is `n` under lease ref
`of` is *stale* when the chain holds, before it, a `body.epoch` row of the
same ref with a higher `n`. A stale row is void: folds skip it and the
organization quarantines it ("stale: ..."), never fatal. Since it depends
only on the order of rows in the chain, every clone that folds the same
chain voids the same rows, however late a stale row arrives. A stale
`model.called` row is void as an outcome but its spend is still counted
(`SPEND_KINDS`): a call a superseded body made was paid for.

`Epochs(record)` answers `stale(row)` from the `body.epoch` rows, read by
kind whenever the chain's tip moved: those the remote holds are kept (they
never move), those after them are read again, since a sync's rebase moves
this clone's unsent rows after the remote's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hale_runtime.record import kinds

FIELD = "epoch"
STALE = "stale"
SPEND_KINDS = frozenset({kinds.MODEL_CALLED})  # counted (the budget) even when stale


def stamp(body: dict[str, Any], epoch: tuple[str, int] | None) -> dict[str, Any]:
    """`body` with `epoch` (lease ref, token) in it, unless it carries one or there is none."""
    if epoch is None or FIELD in body:
        return body
    return {**body, FIELD: {"of": epoch[0], "n": epoch[1]}}


def epoch_of(body: Any) -> tuple[str, int] | None:
    """(lease ref, n) a row's body carries, or None (no epoch, or not one of the right form)."""
    value = body.get(FIELD) if type(body) is dict else None
    if type(value) is not dict:
        return None
    of, n = value.get("of"), value.get("n")
    if type(of) is not str or type(n) is not int:
        return None
    return of, n


class Epochs:
    """The `body.epoch` rows of one record, and the rule they give."""

    def __init__(self, record: Any):
        self.record = record
        self.tip: Any = object()  # the chain's tip the marks were read at
        self.stable = 0  # rows the remote holds, whose epoch rows are in `held`
        self.held: dict[str, list[tuple[int, int]]] = {}  # ref -> [(seq, n)], seq order
        self.marks: dict[str, list[tuple[int, int]]] = {}  # `held` and the tail's

    def _load(self) -> None:
        """Read the epoch rows again when the chain moved: those the remote holds
        once (they never move), those after them every time (a sync's rebase may
        have moved them, and put the remote's rows before them)."""
        record = self.record
        record.refresh()
        self.tip = record._tip
        stable = record.stamped_count()
        if stable < self.stable:  # the remote's history was rewritten: read it all again
            self.stable, self.held = 0, {}
        for row in record.rows(since=self.stable, kind=kinds.BODY_EPOCH):
            if row.seq > stable:
                break
            self._mark(self.held, row)
        self.stable = max(self.stable, stable)
        self.marks = {of: list(seqs) for of, seqs in self.held.items()}
        for row in record.rows(since=self.stable, kind=kinds.BODY_EPOCH):
            self._mark(self.marks, row)

    @staticmethod
    def _mark(marks: dict[str, list[tuple[int, int]]], row: Any) -> None:
        n = row.body.get("n")
        if type(n) is int:
            marks.setdefault(row.key, []).append((row.seq, n))

    def floor(self, of: str, before: int) -> tuple[int, int]:
        """(highest epoch declared for `of` before seq `before`, its row's seq); (0, 0) if none."""
        best = (0, 0)
        for seq, n in self.marks.get(of, ()):
            if seq >= before:
                break
            if n > best[0]:
                best = (n, seq)
        return best

    def stale(self, row: Any) -> str:
        """Why `row` is void under the epoch rule ("" when it counts)."""
        epoch = epoch_of(row.body)
        if epoch is None or not row.seq:
            return ""
        if self.record._tip != self.tip:
            self._load()
        of, n = epoch
        newer, at = self.floor(of, row.seq)
        if newer > n:
            return f"{STALE}: written under epoch {n} of {of}, superseded by epoch {newer} at #{at}"
        return ""


def stale_rows(rows: Iterable[Any]) -> dict[str, str]:
    """{row id: why} of the stale rows of a whole chain, `rows` in chain order
    (the same rule as `Epochs.stale`, for a reader holding every row: bench's checker)."""
    floors: dict[str, tuple[int, int]] = {}
    found: dict[str, str] = {}
    for place, row in enumerate(rows, 1):
        epoch = epoch_of(row.body)
        if epoch is not None:
            of, n = epoch
            newer, at = floors.get(of, (0, 0))
            if newer > n:
                found[row.id] = (
                    f"{STALE}: written under epoch {n} of {of}, superseded by epoch {newer} at #{at}"
                )
        if row.kind == kinds.BODY_EPOCH and type(row.body.get("n")) is int:
            if row.body["n"] > floors.get(row.key, (0, 0))[0]:
                floors[row.key] = (row.body["n"], getattr(row, "seq", 0) or place)
    return found
