"""The host's part in an adopted ledger: hold memory's claim, fence it, keep it.

A mixin of Host (node/host.py), split along its seam. On an adopted ledger
the body lease is memory's claim too: taken at start (its epoch), told to
the fence (which renews it with the lease), and, in step 4 of each tick,
the adoptions and abandonments the record asks for are carried out (each
claimed by the row that asked), one another body carried out is followed,
and the ledger's rows are carried into the record (ledger/keeper.py).
"""

from __future__ import annotations

from typing import Any

from hale_runtime.ledger.keeper import STEMS as LEDGER_STEMS
from hale_runtime.ledger.keeper import LedgerHeld, LedgerKeeper
from hale_runtime.node import children
from hale_runtime.node.stopping import EXIT_LEASE_HELD, NodeStop


class LedgerSteps:
    """Host's ledger steps (the attributes are Host's)."""

    record: Any
    memory: Any
    holder: str
    owner: Any
    settings: Any
    fence: Any
    head: Any
    relay: Any
    ledger: Any
    say: Any

    def _hold_ledger(self) -> None:
        """On an adopted ledger the body lease is memory's claim too: take it (the epoch)."""
        self.ledger = LedgerKeeper(self.record, self.memory, self.holder, self.owner,
                                   self.settings.lease_s, self.settings.claim_ttl_s, self._warn)  # fmt: skip
        try:
            epoch = self.ledger.start()
        except LedgerHeld as held:
            self._release()
            raise NodeStop(EXIT_LEASE_HELD, f"{held}; this record runs elsewhere") from None
        if epoch is not None:
            self.say(f"ledger: adopted; memory's {self.ledger.key} claim is ours (epoch {epoch})")

    def _fence_ledger(self) -> None:
        fence = self.ledger.fence
        children.tell(self.fence, f"memory {fence[0]} {fence[1]}" if fence else "memory")

    def _keep_ledger(self) -> None:
        """Step 4: carry out the adoptions and abandonments the record asks for (each
        claimed by the row that asked), and carry the ledger's rows into the record."""
        asked = [row for (stem, _), row in self.relay.pending.items() if stem in LEDGER_STEMS]
        if asked:
            if any(r.kind.startswith("ledger.abandon") for r in asked) and self.head is not None:
                self.head.use_ledger(None)  # the legs' rows go to the git record again
            changed = self.ledger.answer(asked, self._sync)
            self._fence_ledger()
            if self.head is not None:
                self.head.use_ledger(self.ledger.fence)
            if changed:
                self.say(
                    f"ledger: {changed}"
                    + (f" (epoch {self.ledger.epoch})" if self.ledger.epoch else "")
                )
            self.relay.read(self.record)
        # another body carried an adoption or abandonment out: this one follows, now
        followed = self.ledger.follow(self.head.use_ledger if self.head else lambda fence: None)
        if followed:
            self._fence_ledger()
            epoch = f" (epoch {self.ledger.epoch})" if self.ledger.epoch else ""
            self.say(f"ledger: {followed} by another body; followed{epoch}")
        if self.ledger.fence is not None:
            self.ledger.carry()
