"""Asks: `intent.requested` rows admitted once, planned by the Leader when it plans.

    intake = Intake(record, memory, engine, catalog, leader=True, brief=..., provider=..., holder=...)
    intake.offer(Ask.from_body("i-1a2b", {"objective": "add a health check"}))  # "offered: t1"
    intake.tick()                      # finish plannings whose word came back
    plug(org)                          # on the organization process

See intake.py for the order of checks, leader.py for the Leader's word and
the admission table, request.py for the verb's side.
"""

from hale_runtime.asks.intake import Inline, Intake
from hale_runtime.asks.leader import Ask, Brief, Decision, Word, decide, parse, prompt

__all__ = ["Ask", "Brief", "Decision", "Inline", "Intake", "Word", "decide", "parse", "prompt"]
