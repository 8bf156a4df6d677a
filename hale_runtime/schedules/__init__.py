"""Schedules: the Scheduler locus and what the verbs read and write.

The Scheduler itself is genome code (`dna/core/scheduler.hl`, toolchain copy
in `vendor/dna/templates/`); this package binds its host types (binding.py),
holds it (scheduler.py), hosts it on the organization (locus.py, plug.py),
folds schedule state from the record (state.py) and prints it (listing.py).

    locus = SchedulerLocus(root, record, memory, catalog, engine, clock)
    locus.tick()                        # once a tick, on the wall clock
    locus.on_schedule_requested(msg)    # the ScheduleRequested subscription
"""

from __future__ import annotations

from typing import Any

__all__ = ["SchedulerLocus"]


def __getattr__(name: str) -> Any:
    """Imported lazily, so the listing verbs load neither the language nor croniter."""
    if name != "SchedulerLocus":
        raise AttributeError(name)
    from hale_runtime.schedules.locus import SchedulerLocus

    return SchedulerLocus
