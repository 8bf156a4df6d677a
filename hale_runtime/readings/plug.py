"""Hosting the concerns fold on the organization process.

`plug(org)` makes the fold over the organization's record, memory, engine
and catalog, with the window from the node's settings
(`HALE_DNA_CONCERN_WINDOW`, 600 s), resumes it from the checkpoint when the
organization started from one, and adds its tick.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.readings.concerns import Concerns


def plug(org: Any) -> Concerns:
    settings = org.settings
    concerns = Concerns(
        org.record, org.memory, org.engine, org.catalog, org.holder,
        settings.concern_window_s, settings.claim_ttl_s, org.sync,
    )  # fmt: skip
    resumed = org.resumed("concerns")
    if resumed is not None:
        concerns.restore(*resumed)
    org.folds["concerns"] = concerns
    org.tickers.append(concerns.tick)
    return concerns
