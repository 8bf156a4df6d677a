"""The leg performer: the generated organization hands the agent kind to legs.

Delivering an attempt answers later: it records `leg.offered` (the work a
leg will see) and waits for a leg to claim it through the head and settle
it. After a restart the attempt is still the legs' to claim, so it says it
acted, with its answer still to come. `LegPlugin` provides it as a pluggy
plugin registered after the shipped one, so it wins the agent kind.
"""

from __future__ import annotations

from hale_runtime.performers import ACTED, Context, Pending, Reconciled, Work, hookimpl
from hale_runtime.performers.shipped import FIXED_KINDS
from hale_runtime.record import kinds


class LegPerformer:
    inline = True  # at once; a leg learns of the work from the `leg.offered` row in git
    kind = "agent"

    def offers(self, capability: str) -> bool:
        return capability not in FIXED_KINDS

    def deliver(self, work: Work, ctx: Context) -> Pending:
        offer = {"objective": work.objective, "requires": list(work.requires)}
        return Pending([(kinds.LEG_OFFERED, offer)])

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        return Reconciled(ACTED)


class LegPlugin:
    @hookimpl
    def hale_performers(self) -> list:
        return [LegPerformer()]
