"""The host's side of the ledger: the requests answered, the body claim held,
the rows carried (see the package's docstring).

The carry goes by signed batch. A head's append is one batch: a signature
row, then the rows it lists by id (one INSERT, so the batch is seen whole or
not at all); its id is the signature row's. Heads of several bodies append
to the one table at once, so their batches' seqs interleave, and a signature
covers rows in its own commit only: cut in seq order, one batch could leave
its signature in one commit and its rows in the next, where they fail to
verify. So the keeper reads a window of the table in seq order, groups each
line with the signature that lists it, and carries whole batches only, in
the order of their first line, packed into commits of at most CARRY_BATCH
lines; a batch the window cut (the window was full) waits for the next read,
which starts before it. A line no signature lists (an unsigned writer's, or
a line that is no row) is a batch of its own. The keeper also follows the
record: an adoption or abandonment another body carried out (`follow`)
reaches this one within its tick."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hale_runtime import errors
from hale_runtime.errors import one_line
from hale_runtime.memory import Fenced
from hale_runtime.record import Record, RecordError, Row, kinds
from hale_runtime.record.row import decode_line

CARRY_BATCH = (
    kinds.SIGNATURE_IDS + 1
)  # rows carried in one commit (at least a whole signed batch); the rest go next tick
WINDOW = 2 * CARRY_BATCH  # lines read at once, so a batch interleaved with others fits
MAX_WINDOW = 16 * CARRY_BATCH
ADOPT, ABANDON = "ledger.adopt", "ledger.abandon"
STEMS = (ADOPT, ABANDON)


class LedgerHeld(errors.HaleRuntimeError):
    """Another live body holds memory's body claim over an adopted ledger."""

    code = errors.EXIT_LEASE_HELD  # the record runs elsewhere, as a held lease says


def claim_key(owner: str | None) -> str:
    """The claims-table row that is the body lease on an adopted ledger."""
    return f"owner/{owner}" if owner else "body"


def adopted(record: Record) -> Row | None:
    """The `ledger.adopt.done` in force (None: no ledger is adopted)."""
    last = None
    for row in record.scan(kind=[kinds.LEDGER_ADOPT_DONE, kinds.LEDGER_ABANDON_DONE]):
        last = row if row.kind == kinds.LEDGER_ADOPT_DONE else None
    return last


class LedgerKeeper:
    def __init__(self, record: Record, memory: Any, holder: str, owner: str | None,
                 lease_s: float, claim_ttl_s: float, warn: Callable[[str], None]):  # fmt: skip
        self.record, self.memory, self.holder = record, memory, holder
        self.key, self.lease_s, self.claim_ttl_s = claim_key(owner), lease_s, claim_ttl_s
        self.warn = warn
        self.epoch: int | None = None  # the body claim's token while a ledger is adopted

    @property
    def fence(self) -> tuple[str, int] | None:
        return (self.key, self.epoch) if self.epoch is not None else None

    def start(self) -> int | None:
        """At the host's start: hold the body claim when a ledger is adopted."""
        return self._take() if adopted(self.record) is not None else None

    def _take(self) -> int:
        grant = self.memory.take_epoch(self.key, self.holder, self.lease_s)
        if grant is None:
            live = self.memory.claim(self.key)
            who = live.holder if live is not None else "another body"
            raise LedgerHeld(f"memory's body claim {self.key} is held by {who}")
        self.epoch = grant.token
        return grant.token

    # ---- step 4 --------------------------------------------------------------------

    def answer(self, requests: list[Row], sync: Callable[[], None]) -> str:
        """Carry out each adoption or abandonment asked; "adopted", "abandoned" or ""."""
        changed = ""
        for row in requests:
            grant = self.memory.take(f"ledger/{row.id}", self.holder, self.claim_ttl_s)
            if grant is None:
                continue  # another node carries it out
            sync()
            stem = row.kind.removesuffix(".requested")
            if self.record.rows(kind=[f"{stem}.done", f"{stem}.refused"], key=row.key):
                continue
            changed = self._adopt(row) if stem == ADOPT else self._abandon(row)
        return changed

    def _adopt(self, row: Row) -> str:
        if adopted(self.record) is not None:
            return self._refuse(kinds.LEDGER_ADOPT_REFUSED, row, "a ledger is adopted already")
        try:
            epoch = self._take()
        except LedgerHeld as held:
            return self._refuse(kinds.LEDGER_ADOPT_REFUSED, row, str(held))
        body = {"epoch": epoch, "request": row.id, "holder": self.holder, "claim": self.key}
        self.record.append(kinds.LEDGER_ADOPT_DONE, row.key, body)
        return "adopted"

    def _abandon(self, row: Row) -> str:
        if adopted(self.record) is None or self.epoch is None:
            return self._refuse(kinds.LEDGER_ABANDON_REFUSED, row, "no ledger is adopted")
        carried = self.carry(everything=True)
        body = {"request": row.id, "carried": carried, "epoch": self.epoch, "holder": self.holder}
        self.record.append(kinds.LEDGER_ABANDON_DONE, row.key, body)
        self.memory.release_epoch(self.key, self.holder, self.epoch)
        self.epoch = None
        return "abandoned"

    def follow(self, switch: Callable[[tuple[str, int] | None], None]) -> str:
        """Step 4, every tick: take up an adoption or abandonment the record holds but
        this body has not acted on (another body carried it out); "adopted",
        "abandoned" or "". `switch` tells the head where the legs' rows go, and
        returns once the head's batch in flight is written: on an adoption after the
        body claim is taken (its epoch fences every append), on an abandonment
        before this body carries the ledger's rows in and gives its claim back, so
        no row goes to both and none is left behind."""
        on = adopted(self.record) is not None
        if on and self.epoch is None:
            try:
                self._take()
            except LedgerHeld as held:
                self.warn(f"the ledger is adopted, but {held}: the legs' rows stay in git")
                return ""
            switch(self.fence)
            return "adopted"
        if not on and self.epoch is not None:
            switch(None)
            self.carry(everything=True)
            epoch, self.epoch = self.epoch, None
            try:
                self.memory.release_epoch(self.key, self.holder, epoch)
            except (Fenced, RecordError) as error:
                self.warn(f"the ledger's body claim was not given back: {one_line(error)}")
            return "abandoned"
        return ""

    def _refuse(self, kind: str, row: Row, why: str) -> str:
        self.record.append(kind, row.key, {"why": why, "request": row.id})
        return ""

    def carry(self, everything: bool = False) -> int:
        """Carry the ledger's rows into the record, whole signed batches, one commit
        for at most CARRY_BATCH lines; how many rows."""
        carried = 0
        while True:
            commits = self._commits()
            if not commits:
                return carried
            for lines in commits:
                carried += self._carry_batch(lines)
            if not everything:
                return carried

    def _commits(self) -> list[list[tuple[str, str]]]:
        """The whole batches the ledger holds from its oldest line, packed into commits."""
        limit = WINDOW
        while True:
            waiting = self.memory.ledger_waiting(limit)
            full = len(waiting) >= limit
            batches = whole_batches(waiting, full)
            if batches or not full or limit >= MAX_WINDOW:
                return pack(batches)
            limit *= 2  # one batch spread past the window: read further

    def _carry_batch(self, waiting: list[tuple[str, str]]) -> int:
        """One commit of these rows; a line that is no row (written into the table by
        hand) is left out and said, and every line is gone from the ledger after."""
        refused: list[tuple[int, str]] = []
        self.record.carry((line for _, line in waiting), refused)
        for at, why in refused:
            self.warn(f"the ledger's row {waiting[at][0][:12]} was not carried: {why}")
        self.memory.ledger_forget([i for i, _ in waiting])
        return len(waiting) - len(refused)

    def stop(self, lost: bool) -> None:
        """Give the body claim back at a clean stop (the ledger stays adopted)."""
        if self.epoch is not None and not lost:
            try:
                self.memory.release_epoch(self.key, self.holder, self.epoch)
            except (Fenced, RecordError) as error:
                self.warn(f"the ledger's body claim was not given back: {one_line(error)}")


def whole_batches(waiting: list[tuple[str, str]], full: bool) -> list[list[tuple[str, str]]]:
    """The lines read, grouped by signed batch (a signature row and the rows it lists),
    in the order of each batch's first line. When the read was `full` (the ledger may
    hold more), a batch with a listed row not read is left for the next read; when not,
    the ledger holds nothing more and every line goes."""
    of: dict[str, str] = {}  # a listed row's id -> its batch (its signature row's id)
    wants: dict[str, set[str]] = {}  # a batch -> the ids its signature lists
    for row_id, line in waiting:
        if f'"kind":"{kinds.ROW_SIGNED}"' not in line:
            continue
        try:
            ids = decode_line(line, 0, "the ledger").body.get("ids")
        except RecordError:
            continue
        if isinstance(ids, list):
            wants[row_id] = {str(i) for i in ids}
            of.update((str(i), row_id) for i in ids)
    batches: dict[str, list[tuple[str, str]]] = {}
    for row_id, line in waiting:
        batches.setdefault(of.get(row_id, row_id), []).append((row_id, line))
    whole = []
    for batch, lines in batches.items():
        if (
            full
            and batch in wants
            and len(wants[batch] & {i for i, _ in lines}) < len(wants[batch])
        ):
            continue  # cut by the read: it goes whole, next time
        whole.append(lines)
    return whole


def pack(batches: list[list[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
    """Whole batches into commits of at most CARRY_BATCH lines (a batch is never split)."""
    commits: list[list[tuple[str, str]]] = []
    for lines in batches:
        if commits and len(commits[-1]) + len(lines) <= CARRY_BATCH:
            commits[-1].extend(lines)
        else:
            commits.append(list(lines))
    return commits
