"""Deciding a declaration: the rows it writes and what the asker is told.

A declaration (from a request or a ratified practice) is checked first for
its shape (`terms.shape_refusal`: what the runtime needs to hold it, whatever
genome runs), then by the Scheduler's Hale code. Refused, it is one
`schedule.refused` row with the reason (and, when nobody holds the convener,
the hole), keyed by the schedule's id, or by the request's when that id
could key no row. The same terms as
the schedule already holds write nothing; other terms write a new
`schedule.declared` naming the occurrence it was made at, its cadence and
the definition's mode, and put the rhythm in memory's graph (a
`definition:<id>` node and a `convenes` edge carrying the cadence; the
node's projection of the row does the same on every node).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hale_runtime.record import kinds
from hale_runtime.schedules.binding import RowItem, ScheduleHost
from hale_runtime.schedules.scheduler import Scheduler
from hale_runtime.schedules.state import Fold
from hale_runtime.schedules.terms import Terms, cadence, occurrence_at, shape_refusal, when

NOBODY = "nobody holds "


@dataclass
class Decision:
    declared: bool
    why: str = ""
    unchanged: bool = False
    rows: list[RowItem] = field(default_factory=list)

    def line(self, terms: Terms) -> str:
        """What the verb prints for it."""
        if not self.declared:
            return f"schedule declare: refused: {self.why}"
        tail = " (unchanged; nothing written)" if self.unchanged else ""
        return f"schedule {terms.id} declared: {declared_text(terms)}{tail}"


def declared_text(terms: Terms) -> str:
    return f"{terms.definition} on {when(terms)}, convened by {terms.convener}"


def decide(
    scheduler: Scheduler,
    host: ScheduleHost,
    fold: Fold,
    terms: Terms,
    now: int,
    source: dict[str, Any],
) -> Decision:
    """Check `terms` and say which rows declaring them writes."""
    why = shape_refusal(terms, now, inputs=False) or scheduler.refusal(host, terms)
    if why:
        body: dict[str, Any] = {**terms.as_body(), "reason": why, **source}
        if why.startswith(NOBODY):
            body["hole"] = why[len(NOBODY) :].split(": ", 1)[0]
        key = str(source.get("request", "")) if kinds.ID(terms.id) else terms.id
        return Decision(False, why, rows=[(kinds.SCHEDULE_REFUSED, key, body)])
    held = fold.schedules.get(terms.id)
    if held is not None and held.terms.same(terms):
        return Decision(True, unchanged=True)
    body = {
        **terms.as_body(),
        "cadence": cadence(terms),
        "occurrence": occurrence_at(terms, now),
        "mode": "overlap" if host.overlaps(terms.definition) else "skip",
        **source,
    }
    return Decision(True, rows=[(kinds.SCHEDULE_DECLARED, terms.id, body)])


def put_rhythm(memory: Any, terms: Terms) -> None:
    """The rhythm in memory's graph: the definition's node, the convener's edge."""
    if memory is None:
        return
    from hale_runtime.memory import DropVia, Edge, Node

    definition = f"definition:{terms.definition}"
    props = {"schedule": terms.id, "cadence": cadence(terms)}
    edge = Edge(terms.convener, "convenes", definition, props, via=terms.id)
    memory.apply([Node(definition, "definition", {}), DropVia("convenes", terms.id), edge])
