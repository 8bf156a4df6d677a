"""Hosting the intake, the legs' settlement and cancels on the organization process.

`plugins()` is what this part gives the organization's one engine before it
exists: the agent kind handed to legs (`LegPlugin`), and the HTTP model
provider and the HTTP service (performers/http_service.py) when the
environment configures them. `plug(org, genome)` then builds the intake
(whether the Leader plans, the Leader's brief, the owner) and the Settler
over the organization's record, memory and engine, restores them from the
checkpoint the organization resumed from, and subscribes IntentRequested
(heard in the round, answered as one batch on the intake's tick),
AttemptAllowanceRequested, AttemptOutcomeRequested and
WorkflowCancelRequested (the Canceller, engine/cancel.py). The Leader's
words that come back are finished on each tick.
"""

from __future__ import annotations

import os
from typing import Any

from hale_runtime.asks.genome import OrgGenome, law
from hale_runtime.asks.intake import Intake
from hale_runtime.asks.leader import Brief
from hale_runtime.asks.leg_performer import LegPlugin
from hale_runtime.asks.settle import Settler
from hale_runtime.engine.cancel import Canceller
from hale_runtime.performers.http_provider import model_plugins
from hale_runtime.performers.http_service import service_plugins
from hale_runtime.record.practices import ratified_practices

OWNER_ENV = "HALE_DNA_OWNER"


def plugins() -> list[object]:
    """The performer and provider plugins this part gives the engine."""
    return [LegPlugin(), *model_plugins(), *service_plugins()]


def plug(org: Any, genome: OrgGenome) -> Intake:
    engine = org.engine

    def brief() -> Brief:
        lines = tuple(law(genome, org.catalog))
        return Brief(genome.charter, genome.purpose, lines, tuple(ratified_practices(org.record)))

    owner = os.environ.get(OWNER_ENV, "").strip() or None
    intake = Intake(
        org.record, org.memory, engine, org.catalog,
        leader=genome.leader, brief=brief, provider=engine.performers.provider,
        holder=org.holder, owner=owner, plan_ttl_s=org.settings.claim_ttl_s, sync=org.sync, pull=org.pull,
    )  # fmt: skip
    settler = Settler(org.record, engine, owner=owner)
    for name, fold in (("intake", intake), ("settler", settler)):
        resumed = org.resumed(name)
        if resumed is not None:
            fold.restore(*resumed)
        org.folds[name] = fold
    # a restart takes up only its own owner's attempts: another owner's open attempt
    # is its own live body's, which answers it too (a second editor's call, a second outcome)
    settler.read()
    engine.keep_mine(lambda attempt: not settler.not_ours(attempt))
    org.dispatcher.on("IntentRequested", intake.hear)  # answered in one batch a round (tick)
    org.dispatcher.on("AttemptAllowanceRequested", settler.on_allowance_requested)
    org.dispatcher.on("AttemptOutcomeRequested", settler.on_outcome_requested)
    canceller = Canceller(org.record, engine, not_ours=settler.not_ours)
    org.dispatcher.on("WorkflowCancelRequested", canceller.on_cancel_requested)
    org.tickers.append(intake.tick)
    org.appliers.append(intake)
    return intake
