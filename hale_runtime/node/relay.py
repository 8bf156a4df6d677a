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
record of a million asks reads what it must and holds 8 bytes an answer.
Each unanswered request is published under its kind as subject when first
read, and again every `resend_s` while it stays unanswered (the host: every
RESEND_S), so a relay lost with a dying organization, or one it could not
answer yet (a claim held elsewhere), comes back, while a queue of asks is
not sent again on every tick; the organization admits a request once by its
id whatever the repeats. A
request that does not fit its kind is never relayed (the record leaves it
out). A `row.quarantined` row changes nothing here: it records a verdict the
organization reached from the rows themselves, and makes none (a row one
names is judged by its own content and signature, as every reader judges it).

Over a shared record each body relays what is its own, on its owner's
subject (`owner.<name>.<kind>`, `owner_subject`), and its organization
hears only that prefix: an ask (`intent.requested`) goes out from the body
of the organization that admits it (the owner the record names for the
position it is for, else the asker's: owners.py), and from no other body;
an ask owned by no organization is relayed by none. A request the relay
cannot place (an attempt's, a cancel's) each body relays to its own
organization only, which answers or leaves it by the task's owner. So each
message is heard once: nerves traffic grows with the asks, not with the
bodies squared (every host relaying every ask to every organization).

A row the epoch rule voids (record/epochs.py) is passed over: an offer or an
outcome's answer a superseded body wrote answers nothing, so the request
goes on being relayed until the body holding the lease answers it.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from typing import Any

from hale_runtime.nerves import Nerves, check_subject
from hale_runtime.owners import filled_position
from hale_runtime.record import Record, Row, kinds
from hale_runtime.seen import Seen

REQUESTED = "requested"
ANSWERS = ("answered", "refused", "offered", "admitted", "done", "failed")
SEPARATORS = "._"  # `intent.requested`, and `workflow.cancel_requested` as the seed names it
WORD = re.compile(r"[a-z0-9]+(?:[_-][a-z0-9]+)*")
LEADER = "position:leader"
RESEND_S = 5.0  # how long an unanswered request waits before it is relayed again


def owner_subject(owner: str | None) -> str:
    """The subject prefix of an owner's relays ("" for a body without an owner): its
    name when it is one subject word, else a digest of it."""
    if not owner:
        return ""
    word = owner if WORD.fullmatch(owner) else "x" + hashlib.sha256(owner.encode()).hexdigest()[:16]
    return f"owner.{word}."


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
    def __init__(self, owner: str | None = None, resend_s: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.owner = owner or None  # the body's owner over a shared record
        self.resend_s, self.clock = resend_s, clock
        self.sent: dict[str, float] = {}  # row id -> when it was last relayed
        self.prefix = owner_subject(owner)
        self.stable = 0  # rows up to here are stamped and already read
        self.pending: dict[tuple[str, str], Row] = {}
        self.answered = Seen()  # "<stem> <key>" of every answer read
        self.positions: dict[str, str] = {}  # position -> the owner the record names
        self.skipped: set[str] = set()  # kinds that are not subjects (reported once)

    def read(self, record: Record) -> None:
        """Take in the rows since the last read."""
        wanted = [k for k in record.kinds() if request_stem(k) or answer_stem(k)]
        for row in record.scan(self.stable, [*wanted, kinds.POSITION_FILLED]):
            if row.kind == kinds.POSITION_FILLED:
                if row.body.get("owner"):
                    self.positions[filled_position(row.key, row.body)] = str(row.body["owner"])
                continue
            if record.stale(row):
                continue  # void (record/epochs.py): a superseded body's answer answers nothing
            stem = request_stem(row.kind)
            if stem:
                if f"{stem} {row.key}" not in self.answered:
                    self.pending.setdefault((stem, row.key), row)
            else:
                stem = answer_stem(row.kind)
                self.answered.add(f"{stem} {row.key}")
                done = self.pending.pop((stem, row.key), None)
                if done is not None:
                    self.sent.pop(done.id, None)
        self.stable = record.stamped_count()

    def ours(self, row: Row) -> bool:
        """Whether this body relays the request: without an owner, every one; with
        one, an ask only when its owner is this body's (the intake's rule)."""
        if self.owner is None or row.kind != kinds.INTENT_REQUESTED:
            return True
        to = str(row.body.get("to") or "")
        position = (to if to.startswith("position:") else f"position:{to}") if to else LEADER
        return (self.positions.get(position) or str(row.body.get("owner") or "")) == self.owner

    def relay(self, record: Record, nerves: Nerves) -> int:
        """Publish every unanswered request that is this body's; how many were sent."""
        self.read(record)
        sent, now = 0, self.clock()
        for row in list(self.pending.values()):
            if now - self.sent.get(row.id, -1e18) < self.resend_s:
                continue
            try:
                check_subject(row.kind)
            except ValueError:
                self.skipped.add(row.kind)
                continue
            if self.ours(row):
                nerves.publish(self.prefix + row.kind, message_of(row))
                self.sent[row.id] = now
                sent += 1
        return sent
