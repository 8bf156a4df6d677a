"""Concerns: a second firing for a target within the window, raised once.

A fold over the record, in chain order, hosted by the organization. For
each target it keeps the time of the last firing (`reading.taken`, by the
row's own `at`, so every organization folding the record decides alike)
and whether the burst it belongs to has raised its concern. A firing
within `window_ms` of the target's previous one (either way: clones'
clocks disagree) starts a concern unless its burst already has one; a
firing past the window starts a new burst. So a crash loop raises one
concern per burst, not one per crash.

Raising is an act that must happen once over a shared record: the
organization whose memory claim `concern/<reading id>` lands syncs, reads
again, and writes `concern.raised <target> {"readings": [previous, this]}`
unless the record already holds one for that reading (the claim is left to
expire; no claim row is written, as for the quarantine). Every
`concern.raised` read ends its burst's wait, whoever wrote it.

The organization that raised a concern admits `concern-escalate` for it
under the ask `concern:<row id>`: the engine admits an ask once, and the
concerns raised but not yet seen admitted are kept (and checkpointed)
until their `workflow.admitted` is read, so a restart in between admits
them then. Nothing here asks the Leader or plans: a reading is recorded
and routed, never planned on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hale_runtime.record import kinds
from hale_runtime.record.follow import Follower

DEFINITION = "concern-escalate"
ASK = "concern:"
CONVENER = "org"


class Concerns:
    """The fold and the organization's acts on it."""

    def __init__(self, record: Any, memory: Any, engine: Any, catalog: Any, holder: str,
                 window_s: float, claim_ttl_s: float, sync: Callable[[], None]):  # fmt: skip
        self.record, self.memory, self.engine, self.catalog = record, memory, engine, catalog
        self.holder, self.window_ms = holder, int(window_s * 1000)
        self.claim_ttl_s, self.sync = claim_ttl_s, sync
        self.targets: dict[str, tuple[int, str, bool]] = {}  # target -> (at, reading, raised)
        self.to_raise: dict[str, tuple[str, str]] = {}  # reading id -> (target, previous id)
        self.pending: dict[str, str] = {}  # concern row id raised here -> its target
        self.follower = Follower(record)

    # ---- the fold ------------------------------------------------------------

    @property
    def cursor(self) -> int:
        return self.follower.seq

    def catch_up(self) -> None:
        self.read()

    def snapshot(self) -> dict[str, Any]:
        return {
            "targets": dict(self.targets),
            "to_raise": dict(self.to_raise),
            "pending": dict(self.pending),
        }

    def restore(self, seq: int, data: dict[str, Any]) -> None:
        self.targets = {t: tuple(v) for t, v in data["targets"].items()}  # type: ignore[misc]
        self.to_raise = {r: tuple(v) for r, v in data["to_raise"].items()}  # type: ignore[misc]
        self.pending = dict(data["pending"])
        self.follower = Follower(self.record, seq)

    def read(self) -> None:
        for row in self.follower.new_rows():
            if row.kind == kinds.READING_TAKEN:
                self._firing(row.key, row.at, row.id)
            elif row.kind == kinds.CONCERN_RAISED:
                self._raised(row)
            elif row.kind == kinds.WORKFLOW_ADMITTED:
                ask = str(row.body.get("ask", ""))
                if ask.startswith(ASK):
                    self.pending.pop(ask[len(ASK) :], None)

    def _firing(self, target: str, at: int, reading: str) -> None:
        last = self.targets.get(target)
        raised = False
        if last is not None and abs(at - last[0]) <= self.window_ms:
            raised = True
            if not last[2]:
                self.to_raise[reading] = (target, last[1])
        self.targets[target] = (at, reading, raised)

    def _raised(self, row: Any) -> None:
        for reading in row.body.get("readings", []):
            self.to_raise.pop(reading, None)
        last = self.targets.get(row.key)
        if last is not None:
            self.targets[row.key] = (last[0], last[1], True)
        if row.who == self.holder:
            self.pending[row.id] = row.key

    # ---- the acts --------------------------------------------------------------

    def tick(self) -> None:
        self.read()
        for reading, (target, previous) in list(self.to_raise.items()):
            self._raise(reading, target, previous)
        for concern in list(self.pending):
            self._admit(concern)

    def _raise(self, reading: str, target: str, previous: str) -> None:
        grant = self.memory.take(f"concern/{reading}", self.holder, self.claim_ttl_s)
        if grant is None:
            return  # another organization raises it; its row ends the wait here
        self.sync()
        self.read()
        if reading not in self.to_raise:
            return
        body = {"readings": [previous, reading], "window_s": self.window_ms // 1000}
        self.record.append(kinds.CONCERN_RAISED, target, body)
        self.read()

    def _admit(self, concern: str) -> None:
        if self.engine is None or self.catalog is None:
            return
        admitted = self.engine.admit_from(self.catalog, DEFINITION, f"{ASK}{concern}", CONVENER)
        if admitted.refused:
            self.pending.pop(concern, None)  # said in the organization's log, never retried
            raise RuntimeError(f"concern-escalate was refused for {concern}: {admitted.refused}")
