"""Hosting the intake and the legs' settlement on the organization process.

`plug(org)` reads the genome (planned, the Leader's brief, the budget),
uses the workflow engine the organization hosts (`org.engine`) or makes it
(handing the agent kind to legs, with the genome's budget policy and the
HTTP model provider when the environment configures one, pumped each tick), and subscribes IntentRequested, AttemptAllowanceRequested and
AttemptOutcomeRequested. The Leader's words that come back are finished on
each tick.
"""

from __future__ import annotations

import os
from typing import Any

from hale_runtime.asks.genome import law, ratified_practices, read_genome
from hale_runtime.asks.intake import Intake
from hale_runtime.asks.leader import Brief
from hale_runtime.head.performer import LegPerformer, LegPlugin
from hale_runtime.head.settle import Settler
from hale_runtime.performers.http_provider import model_plugins

OWNER_ENV = "HALE_DNA_OWNER"


def plug(org: Any) -> Intake:
    genome = read_genome(org.genome)
    engine = getattr(org, "engine", None)
    if engine is None:
        from hale_runtime.engine import Engine
        from hale_runtime.performers import Performers, plugin_manager

        performers = Performers(plugin_manager(LegPlugin(), *model_plugins()))
        engine = Engine(org.record, org.memory, performers, budget=genome.budget,
                        resume=_resumed(org, "engine"))  # fmt: skip
        org.engine = engine
        _folds(org)["engine"] = engine
        org.tickers.append(engine.pump)
        org.appliers.append(engine)
    else:
        engine.performers.by_kind["agent"] = LegPerformer()

    def brief() -> Brief:
        lines = tuple(law(genome, org.catalog))
        return Brief(genome.charter, genome.purpose, lines, tuple(ratified_practices(org.record)))

    owner = os.environ.get(OWNER_ENV, "").strip() or None
    intake = Intake(
        org.record, org.memory, engine, org.catalog,
        leader=genome.leader, brief=brief, provider=engine.performers.provider,
        holder=org.holder, owner=owner, plan_ttl_s=org.settings.claim_ttl_s,
        sync=org.sync,
    )  # fmt: skip
    settler = Settler(org.record, engine, owner=owner)
    for name, fold in (("intake", intake), ("settler", settler)):
        resumed = _resumed(org, name)
        if resumed is not None:
            fold.restore(*resumed)
        _folds(org)[name] = fold
    org.dispatcher.on("IntentRequested", intake.on_intent_requested)
    org.dispatcher.on("AttemptAllowanceRequested", settler.on_allowance_requested)
    org.dispatcher.on("AttemptOutcomeRequested", settler.on_outcome_requested)
    org.tickers.append(intake.tick)
    return intake


def _resumed(org: Any, fold: str) -> tuple[int, Any] | None:
    """The checkpoint's part for `fold`, when the organization resumed from one."""
    resumed = getattr(org, "resumed", None)
    return resumed(fold) if resumed is not None else None


def _folds(org: Any) -> dict[str, Any]:
    """Where the organization keeps the folds it checkpoints (a dict of its own if none)."""
    if not hasattr(org, "folds"):
        org.folds = {}
    return org.folds
