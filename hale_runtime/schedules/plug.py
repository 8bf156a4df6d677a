"""Hosting the Scheduler locus on the organization process.

The organization gives its one engine the organism performer this part
needs (ratify.py's `OrganismPlugin`: the optimize pass's `walk`,
practice-ratify's `ratify` and `hat`) before the engine exists. `plug(org,
organism)` then builds the locus over the organization's record, memory,
catalog and engine, binds the organism's ratify step to it, subscribes
`ScheduleRequested` (answered once, under the organization's claim on the
request id) and adds the tick. The locus admits an execution for each Board
approval it reads (ratify.py).
"""

from __future__ import annotations

from typing import Any

from hale_runtime.schedules.locus import SchedulerLocus
from hale_runtime.schedules.ratify import OrganismPlugin


def plug(org: Any, organism: OrganismPlugin) -> SchedulerLocus:
    locus = SchedulerLocus(org.genome, org.record, org.memory, org.catalog, org.engine,
                           resume=org.resumed("scheduler"), organism=organism)  # fmt: skip
    org.folds["scheduler"] = locus

    def requested(message: Any) -> None:
        key = str(message.body.get("key", ""))
        locus.read()
        if key and key not in locus.answered:
            org.once(
                f"schedule/{key}", "schedule", key, lambda: locus.on_schedule_requested(message)
            )

    org.dispatcher.on("ScheduleRequested", requested)
    org.tickers.append(locus.tick)
    org.appliers.append(locus)
    return locus
