"""The optimize pass: the `walk` step of optimize-walk, performed by the organism.

One occurrence is one pass, in one attempt. It asks the budget first: on
a spent window the pass is `optimize.refused` and ends, waiting for the
next occurrence. Otherwise it reads the record's structural signals (how
the machinery ran, never what the work was: misses, skips, failed
executions, refused replies, unresolved effects, exhausted windows, builds
that failed), asks the leader through the model provider for one small
proposal or none, and records either as `org.reviewed`. A clean state
(every signal zero) records none, whatever the model said. After a crash,
a pass whose `org.reviewed` or `optimize.refused` is in the record acted.

A proposal asks for a change: beside `org.reviewed` the pass writes an
`intent.requested` in the Leader's name (`by: position:leader`), keyed by
the pass's attempt, written with it. It is relayed and admitted like
any ask (the Board's gate, the owner, the budget, the plan claim), and it
is bound to what the pass found: its `found` names the non-zero signals
only, its target is the genome (`dna`, which the Leader's word cannot
widen: asks/leader.py), and it asks for a change of the organism.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hale_runtime.performers import (
    ACTED,
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    Context,
    ModelCall,
    Pending,
    Reconciled,
    Work,
)
from hale_runtime.performers.shipped import OrganismPerformer
from hale_runtime.readings import escalate
from hale_runtime.record import Record, kinds

WALK = "/walk/"
LEADER = "position:leader"
SCOPE = "dna"  # the machinery a pass walks: a proposal's change stays within the genome
FACTS = (kinds.ORG_REVIEWED, kinds.OPTIMIZE_REFUSED)
SIGNALS = {
    kinds.SCHEDULE_MISSED: "occurrences missed",
    kinds.SCHEDULE_SKIPPED: "occurrences skipped",
    kinds.SCHEDULE_FAILED: "occurrences refused at admission",
    kinds.REPLY_REFUSED: "replies refused",
    kinds.EFFECT_UNRESOLVED: "effects unresolved",
    kinds.BUDGET_EXHAUSTED: "budget windows exhausted",
    kinds.NODE_BUILD_FAILED: "genomes that did not build",
}


def signals(record: Record) -> dict[str, int]:
    """The record's structural signals, by name."""
    counts: Counter[str] = Counter()
    for row in record.rows(kind=(*SIGNALS, kinds.WORKFLOW_SETTLED)):
        if row.kind == kinds.WORKFLOW_SETTLED:
            counts["executions failed"] += row.body.get("outcome") == "failed"
        else:
            counts[SIGNALS[row.kind]] += int(row.body.get("count", 1))
    return {name: counts.get(name, 0) for name in [*SIGNALS.values(), "executions failed"]}


def walk(record: Record, work: Work, ctx: Context) -> Answer:
    """One optimize pass."""
    admission = ctx.admit(work.ceiling_micros)
    if admission.refused:
        fact = (kinds.OPTIMIZE_REFUSED, {"why": admission.refused})
        return Answer(FAILED, f"optimize refused: {admission.refused}", facts=[fact])
    seen = signals(record)
    shown = ", ".join(f"{n} {name}" for name, n in seen.items())
    prompt = (
        "walk the machinery, not the work, and propose one small change or none; "
        f"the record shows {shown}"
    )
    text, micros = ctx.provider.complete(prompt)
    call = ModelCall(f"{work.attempt}#0", ctx.provider.name, micros, text)
    ctx.note_call(call)
    clean = not any(seen.values()) or text.strip().lower().startswith("none")
    body: dict[str, Any] = {"proposal": None if clean else text, "signals": seen}
    detail = "the state is clean" if clean else f"proposed: {text}"
    facts: list[tuple[str, dict[str, Any]]] = [(kinds.ORG_REVIEWED, body)]
    if not clean:
        facts.append((kinds.INTENT_REQUESTED, proposal_ask(text, seen)))
    return Answer(SUCCEEDED, detail, calls=[call], grant=admission.granted, facts=facts)


def proposal_ask(text: str, seen: dict[str, int]) -> dict[str, Any]:
    """The `intent.requested` body of a pass's proposal, bound to what it found."""
    found = {name: n for name, n in seen.items() if n}
    shown = ", ".join(f"{n} {name}" for name, n in found.items())
    objective = f"{text.strip()} (the optimize pass found {shown}; change nothing else)"
    return {"objective": objective, "target": SCOPE, "by": LEADER, "found": found}


class OptimizeOrganism:
    """The organism performer, with the optimize pass's walk step."""

    kind = "organism"

    def __init__(self, record: Record, inner: Any | None = None):
        self.record = record
        self.inner = inner or OrganismPerformer()

    def offers(self, capability: str) -> bool:
        return capability == "organism"

    def deliver(self, work: Work, ctx: Context) -> Answer | Pending:
        if WALK not in work.attempt:
            concern = escalate.concern_of(self.record, work)
            if concern is not None:  # concern-escalate's `raise`: readings/escalate.py
                return escalate.escalate(self.record, concern, work)
            return self.inner.deliver(work, ctx)
        return walk(self.record, work, ctx)

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        if WALK not in work.attempt:
            if escalate.concern_of(self.record, work) is not None:
                return escalate.reconciled(work)
            return self.inner.reconcile(work, ctx)
        done = [body for kind, body in work.facts if kind in FACTS]
        if not done:
            return Reconciled(NOT_ACTED)
        return Reconciled(ACTED, Answer(SUCCEEDED, "the pass was recorded before a restart"))
