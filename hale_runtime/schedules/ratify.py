"""The Board's decision carried out: a `practice-ratify` execution.

The organization reacts to an approving `review.decided` row (read from
the record on its tick, from whichever clone wrote it) by admitting the
baseline definition `practice-ratify` under the ask `review:<k-id>`; the
engine admits an ask once, so a decision read twice, or again after a
restart, is one execution. The definition takes no inputs: the ask names
the Review, and the Review its practice and receipt.

Its steps are performed by the organism. `OrganismPlugin` gives the engine
its one organism performer, composed once before the engine exists:
`RatifyOrganism` over the optimize pass's `OptimizeOrganism` over the
shipped organism; each answers its own steps and hands the rest inward. The
locus the ratify step declares through is built on that engine, so it is
bound afterwards (`SchedulerLocus(..., organism=plugin)`):

- `ratify` writes `practice.ratified` (keyed by the practice) and, when the
  practice's receipt carries a `schedule` (a JSON string of the terms),
  declares it through the Scheduler's own checks, exactly as a request
  would be: `schedule.declared`, or its own `schedule.refused` row. The
  ratification stands whatever the declaration becomes; the step says
  what happened (`step` on the row, and the attempt's detail).
- `hat` notes the ratified practice is worn by its target (org).
"""

from __future__ import annotations

import json
from typing import Any

from hale_runtime.performers import (
    ACTED,
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    Context,
    Reconciled,
    Work,
    hookimpl,
)
from hale_runtime.record import Record, kinds
from hale_runtime.schedules.review import DECIDED, RATIFIED, Review, ratified, reviews

DEFINITION = "practice-ratify"
ASK = "review:"
CONVENER = "position:board"
RATIFY, HAT = "/ratify/", "/hat/"


def ask_of(review_key: str) -> str:
    return f"{ASK}{review_key}"


def approved(row: Any) -> bool:
    return row.kind == DECIDED and row.body.get("decision") == "approved"


def review_of(record: Record, attempt: str) -> Review | None:
    """The Review an attempt of a practice-ratify execution carries out."""
    from hale_runtime.engine import ids

    task = ids.root_of(attempt)
    admitted = record.rows(kind=kinds.WORKFLOW_ADMITTED, key=task)
    ask = str(admitted[-1].body.get("ask", "")) if admitted else ""
    if not ask.startswith(ASK):
        return None
    key = ask[len(ASK) :]
    return next((r for r in reviews(record) if r.key == key), None)


def decided_by(record: Record, review: Review) -> str:
    rows = record.rows(kind=DECIDED, key=review.key)
    return str(rows[-1].body.get("by", rows[-1].who)) if rows else ""


class OrganismPlugin:
    """The organism performer the Scheduler's part gives the engine (see above)."""

    def __init__(self, record: Record):
        from hale_runtime.schedules.optimize import OptimizeOrganism

        self.performer = RatifyOrganism(None, OptimizeOrganism(record))

    def bind(self, locus: Any) -> None:
        """The locus the ratify step declares through, once it exists."""
        self.performer.locus = locus

    @hookimpl
    def hale_performers(self) -> list:
        return [self.performer]


class RatifyOrganism:
    """The organism performer, with practice-ratify's `ratify` and `hat` steps."""

    kind = "organism"

    def __init__(self, locus: Any, inner: Any):
        self.locus = locus  # the SchedulerLocus (bound by OrganismPlugin.bind)
        self.inner = inner

    def offers(self, capability: str) -> bool:
        return capability == "organism"

    def _mine(self, work: Work) -> Review | None:
        if RATIFY not in work.attempt and HAT not in work.attempt:
            return None
        return review_of(self.locus.record, work.attempt)

    def deliver(self, work: Work, ctx: Context) -> Answer:
        review = self._mine(work)
        if review is None:
            return self.inner.deliver(work, ctx)
        if HAT in work.attempt:
            target = self.locus.record.get_receipt(review.receipt).get("target", "org")
            return Answer(SUCCEEDED, f"the practice {review.practice} is worn by {target}")
        done = self._ratified(review)
        if done is not None:
            return Answer(SUCCEEDED, _detail(review, done))
        return Answer(SUCCEEDED, _detail(review, self.ratify(review)))

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        review = self._mine(work)
        if review is None:
            return self.inner.reconcile(work, ctx)
        if HAT in work.attempt:
            return Reconciled(NOT_ACTED)
        done = self._ratified(review)
        if done is None:
            return Reconciled(NOT_ACTED)
        return Reconciled(ACTED, Answer(SUCCEEDED, _detail(review, done)))

    def _ratified(self, review: Review) -> str | None:
        return ratified(self.locus.record, review)

    def ratify(self, review: Review) -> str:
        """Write practice.ratified, declaring the receipt's schedule with it; what the step says."""
        from hale_runtime.schedules.declare import decide, declared_text, put_rhythm
        from hale_runtime.schedules.terms import Terms

        locus, record = self.locus, self.locus.record
        locus.read()
        by = decided_by(record, review)
        receipt = record.get_receipt(review.receipt)
        rows: list[Any] = []
        step, terms, decision = "", None, None
        if "schedule" in receipt:
            terms = Terms.from_body(json.loads(receipt["schedule"]))
            source = {"practice": review.practice, "review": review.key, "by": by}
            decision = decide(locus.scheduler, locus.host, locus.fold, terms, locus.clock(), source)
            rows = list(decision.rows)
            if not decision.declared:
                step = f"its schedule was refused ({decision.why})"
            else:
                verb = "stands unchanged" if decision.unchanged else "declared"
                step = f"schedule {terms.id} {verb}: {declared_text(terms)}"
        body = {"receipt": review.receipt, "review": review.key, "by": by, "step": step}
        record.append_many([*rows, (RATIFIED, review.practice, body)])
        if terms is not None and decision is not None:
            if decision.declared and not decision.unchanged:
                put_rhythm(locus.memory, terms)
        locus.read()
        return step


def _detail(review: Review, step: str) -> str:
    said = f"practice {review.practice} ratified (practice.ratified)"
    return f"{said}; {step}" if step else said
