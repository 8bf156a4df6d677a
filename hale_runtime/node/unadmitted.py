"""Asks an organization with no catalog answers: refused as rows, never left waiting.

When no genome loads (the one served fails its checks or its limits, or has
no catalog, and no last good genome loads either: node/fallback.py) there is
no engine and no intake. The organization still hears every relayed
`intent.requested`, and `Unadmitted` answers each once, in the round it is
heard, with `intent.refused` whose reason says why: `refused: no genome
loads: <the genome's first diagnostic line>`. It answers under the intent's
claim `plan/<intent>` through `Organization.once` (the intake's claim, so two
bodies never answer one intent at once; `once` syncs and looks for an answer
another body wrote first). Over a shared record an ask is answered only by
the organization that owns it, by the intake's rule (owners.py: the owner
the record names for the position, else the asker's). A genome that lands
later is a pull: the node restarts on it and the intake admits as usual.
"""

from __future__ import annotations

import os
from typing import Any

from hale_runtime.asks.leader import Ask
from hale_runtime.owners import Owners
from hale_runtime.record import kinds
from hale_runtime.record.follow import Follower

OWNER_ENV = "HALE_DNA_OWNER"  # the asks' own (asks/plug.py)
WHY_CHARS = 300  # of the genome's diagnostic a reason quotes


def reason(diagnostic: str) -> str:
    """The refusal's reason: no genome loads, and the first line of why (cut short)."""
    lines = [line.strip() for line in diagnostic.splitlines() if line.strip()]
    first = "".join(c if c.isprintable() else " " for c in (lines[0] if lines else ""))
    if len(first) > WHY_CHARS:
        first = first[: WHY_CHARS - 3] + "..."
    return f"refused: no genome loads: {first or 'the genome gave no diagnostic'}"


class Unadmitted:
    """The IntentRequested handler of an organization that has no catalog."""

    def __init__(self, org: Any, diagnostic: str):
        self.org, self.reason = org, reason(diagnostic)
        self.owner = os.environ.get(OWNER_ENV, "").strip() or None
        self.owners = Owners()
        self.follower = Follower(org.record)

    def on_intent_requested(self, message: Any) -> str:
        """Refuse the relayed ask once; what became of it."""
        body = message.body if isinstance(message.body, dict) else {}
        asked = body.get("body") if isinstance(body.get("body"), dict) else {}
        ask = Ask.from_body(str(body.get("key") or ""), asked, str(body.get("who") or ""))
        if not ask.intent:
            return "no intent"
        if self.owner:
            for row in self.follower.new_rows():
                self.owners.note(row.kind, row.key, row.body)
            owner = self.owners.positions.get(ask.position) or ask.owner
            if owner != self.owner:
                return f"not ours: {ask.position} is {owner or 'owned by no organization'}'s"

        def refuse() -> None:
            self.org.record.append(kinds.INTENT_REFUSED, ask.intent, {"reason": self.reason})

        ran = self.org.once(f"plan/{ask.intent}", "intent", ask.intent, refuse)
        return self.reason if ran else "answered before, or elsewhere"


def plug(org: Any, diagnostic: str) -> Unadmitted:
    """Subscribe the refusal on `org`'s dispatcher, in place of the intake."""
    unadmitted = Unadmitted(org, diagnostic)
    org.dispatcher.on("IntentRequested", unadmitted.on_intent_requested)
    return unadmitted
