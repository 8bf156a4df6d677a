"""Hosting the Scheduler locus on the organization process.

`plug(org)` builds the locus over the organization's record, memory,
catalog and workflow engine (the engine the organization hosts when one is
attached as `org.engine`, else one of its own, pumped each tick), gives the
organism its optimize pass, subscribes `ScheduleRequested` (answered once,
under the organization's claim on the request id) and adds the tick. The
locus itself wraps the organism once more with practice-ratify's `ratify`
and `hat` steps, and admits an execution for each Board approval it reads
(ratify.py).
"""

from __future__ import annotations

from typing import Any

from hale_runtime.schedules.locus import SchedulerLocus
from hale_runtime.schedules.optimize import OptimizeOrganism, OptimizePlugin


def plug(org: Any) -> SchedulerLocus:
    engine = getattr(org, "engine", None)
    own = engine is None
    if own:
        from hale_runtime.engine import Engine
        from hale_runtime.performers import Performers, plugin_manager

        engine = Engine(
            org.record, org.memory, Performers(plugin_manager(OptimizePlugin(org.record)))
        )
        org.appliers.append(engine)
    else:
        inner = engine.performers.by_kind.get("organism")
        engine.performers.by_kind["organism"] = OptimizeOrganism(org.record, inner)
    resumed = getattr(org, "resumed", None)
    resume = resumed("scheduler") if resumed is not None else None
    locus = SchedulerLocus(org.genome, org.record, org.memory, org.catalog, engine, resume=resume)
    if hasattr(org, "folds"):
        org.folds["scheduler"] = locus

    def requested(message: Any) -> None:
        key = str(message.body.get("key", ""))
        locus.read()
        if key and key not in locus.answered:
            org.once(
                f"schedule/{key}", "schedule", key, lambda: locus.on_schedule_requested(message)
            )

    def tick() -> None:
        locus.tick()
        if own:
            engine.pump()

    org.dispatcher.on("ScheduleRequested", requested)
    org.tickers.append(tick)
    org.appliers.append(locus)
    return locus
