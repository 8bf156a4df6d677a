"""The Record's authority: signing what it writes, judging what joins its chain.

A Record keeps one `Trust` fold (trust.py) at its tip, made when first
needed: from the index, the accepted rows of the kinds the fold reads
(their verdicts are stored with them, so nothing is verified again), then
the tail held in memory. A cut of the chain (a sync's rebase) forgets it;
the next need makes it again.

- Writing (`seal`): the rows of a batch that would be refused where the
  batch lands are refused at the door (`RowRefused`, nothing written); the
  batch is then signed by the writer's key (signing.py), its signature row
  placed before the rows it covers.
- Reading (`join`): each commit that joins the chain from git is read in
  order; a signature row covers the rows after it in that commit, and each
  row of a kind the fold reads is judged with what its signature proves.
  A refused row is poison, `refused: <why>`: it keeps its place, readers
  never see it, and the organization answers it with `row.quarantined`.

A writer with no usable key (`keys.KeyUnusable`) writes nothing: a row that
cannot be signed is refused at the door, naming why (`RowRefused`). Only a
Record opened with `sign=False` (tools, and records made before signing)
writes unsigned rows: they read as before, and any row of a kind whose
writer must prove itself is refused where a genesis stands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hale_runtime.record import keys, signing
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.row import Row, new_row
from hale_runtime.record.signing import UNSIGNED, Cover, Proof
from hale_runtime.record.trust import KINDS, RULES, STATE_KINDS, Trust

REFUSED = "refused: "
UNSIGNED_ON_PURPOSE = "this record writes unsigned"
_new = tuple.__new__


class Authority:
    """One Record's signer and judge."""

    def __init__(self, signer: keys.SigningKey | None | bool = True):
        self._signer = signer  # True: the user's key, found on first use
        self.unsigned_why = ""  # why rows go unsigned, when they do
        self.trust: Trust | None = None

    @property
    def signer(self) -> keys.SigningKey | None:
        if self._signer is True:
            try:
                self._signer = keys.user_key()
            except keys.KeyUnusable as unusable:
                self._signer, self.unsigned_why = None, str(unusable)
        elif self._signer is False:
            self._signer, self.unsigned_why = None, UNSIGNED_ON_PURPOSE
        return self._signer  # type: ignore[return-value]

    def proof(self) -> Proof:
        """What this writer's own signature proves of the rows it writes."""
        key = self.signer
        if key is None:
            return Proof("", f"is not signed ({self.unsigned_why})")
        return Proof(key.fingerprint)

    # ---- the fold ------------------------------------------------------------------

    def made(self, stored: Iterable[Row], tail: Iterable[Row], poison: dict[str, str],
             row_of: Callable[[str], Row | None],
             signer_of: Callable[[Row, Trust], str] | None = None) -> Trust:  # fmt: skip
        """The fold at the tip, made when there is none: `stored` are the index's
        accepted rows of the fold's kinds, `tail` the rows held in memory, `row_of`
        the chain's rows by id (for the rules that judge a row against another)."""
        if self.trust is None:
            trust = Trust()
            trust.row_of = row_of
            if signer_of is not None:
                trust.signer_of = lambda row: signer_of(row, trust)
            for row in stored:
                trust.take(row)
            for row in tail:
                if row.kind in STATE_KINDS and row.id not in poison:
                    trust.take(row)
            self.trust = trust
        return self.trust

    def forget(self) -> None:
        self.trust = None

    # ---- writing ---------------------------------------------------------------------

    def seal(
        self, trust: Trust, rows: list[Row], who: str, at: int, clone: str
    ) -> tuple[list[Row], dict[str, str]]:
        """(the batch as it is written, the stored lines of its signature rows):
        `rows` judged where the chain stands (the first refused raises
        RowRefused, nothing written), each chunk after its signature row; the
        seqs are the caller's to give."""
        key = self.signer
        if key is None and self.unsigned_why != UNSIGNED_ON_PURPOSE:
            raise RowRefused(f"nothing written: no key signs it ({self.unsigned_why})")
        if any(r.kind in RULES for r in rows):
            proof = self.proof()
            changes = any(r.kind in STATE_KINDS for r in rows)
            scratch = trust.copy() if changes else trust  # judged as the batch lands
            for row in rows:
                why = scratch.judge(row, proof)
                if why:
                    raise RowRefused(REFUSED + why)
                if changes:
                    scratch.take(row)
        if key is None:
            return rows, {}
        batch: list[Row] = []
        lines: dict[str, str] = {}
        for at_row in range(0, len(rows), signing.MOST):
            part = rows[at_row : at_row + signing.MOST]
            body = signing.signature_body(key, trust.record, [r.id for r in part])
            sig, line = new_row(
                signing.SIGNED, signing.key_of(key.fingerprint), body, who, at, clone
            )
            lines[sig.id] = line
            batch.append(sig)
            batch.extend(part)
        return batch, lines

    def took(self, trust: Trust | None, rows: list[Row]) -> None:
        """Rows this writer wrote (judged at the door) join the fold."""
        if trust is not None:
            for row in rows:
                if row.kind in STATE_KINDS:
                    trust.take(row)

    # ---- reading ---------------------------------------------------------------------

    def join(self, trust: Any, rows: list[Row], poison: dict[str, str]) -> None:
        """Judge the rows of one commit joining the chain from git, in order; a
        refused one goes into `poison`. `trust` makes the fold when called (so
        a commit with nothing the fold reads costs nothing)."""
        cover: Cover | None = None
        fold: Trust | None = None
        for row in rows:
            if row.kind == signing.SIGNED:
                fold = fold or trust()
                poisoned = row.id in poison  # not a signature row at all: it covers nothing
                cover = None if poisoned else Cover(row.body, fold.record)
            elif row.kind in KINDS and row.id not in poison:
                fold = fold or trust()
                proof = cover.proof(row.id) if cover is not None else UNSIGNED
                why = fold.judge(row, proof) if row.kind in RULES else ""
                if why:
                    poison[row.id] = REFUSED + why
                else:
                    fold.take(row)


def written(batch: list[Row], base: int) -> tuple[list[Row], dict[str, Row]]:
    """The batch with its seqs from `base` + 1, and each row by id."""
    placed = [_new(Row, (*r[:7], base + n)) for n, r in enumerate(batch, 1)]
    return placed, {r.id: r for r in placed}
