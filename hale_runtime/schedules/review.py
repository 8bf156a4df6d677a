"""The Board's Review of practices, and the ratify step's schedule.

A Review is a `review.opened` row (key `k:<12 hex>` of the practice's
receipt); deciding it writes `review.decided`, and approving it also
`practice.ratified`. The ratify step then reads the practice's receipt:
when it carries a `schedule` (a JSON string of the terms), it declares it
through the Scheduler's own checks, exactly as a request would be. The
ratification stands whatever the declaration becomes; the step says what
happened on the `practice.ratified` row and on the verb's output, and a
refusal is its own `schedule.refused` row.

The Board decides. Once memory's graph names who holds the Board, a Review
is decided only by its holder (`board_refusal`); while nobody holds it, or
no memory is named, whoever runs the verb decides: the same fallback as
who may ask for a schedule (`may_ask` in dna/core/scheduler.hl).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hale_runtime.record import Record

OPENED, DECIDED, RATIFIED = "review.opened", "review.decided", "practice.ratified"
CUT = 72  # characters of a practice's text the listing shows


@dataclass
class Review:
    key: str
    family: str
    practice: str
    receipt: str
    text: str
    decision: str | None = None


def reviews(record: Record) -> list[Review]:
    """Every Review, in the order opened, with its decision if any."""
    found: dict[str, Review] = {}
    for row in record.rows(kind=(OPENED, DECIDED)):
        b = row.body
        if row.kind == OPENED and row.key not in found:
            found[row.key] = Review(
                row.key, b.get("family", ""), b.get("practice", ""), b.get("receipt", ""),
                b.get("text", ""),
            )  # fmt: skip
        elif row.kind == DECIDED and row.key in found:
            found[row.key].decision = b.get("decision")
    return list(found.values())


def cut(text: str, width: int = CUT) -> str:
    return text if len(text) <= width else text[:width] + "…"


def review_lines(record: Record) -> list[str]:
    """`hale dna review`: the open Reviews, grouped by family."""
    waiting = [r for r in reviews(record) if r.decision is None]
    if not waiting:
        return ["reviews: none open"]
    lines = [f"reviews: {len(waiting)} open, waiting for the Board"]
    families = list(dict.fromkeys(r.family for r in waiting))
    for family in families:
        mine = [r for r in waiting if r.family == family]
        lines.append(f"  {family} — {len(mine)} seeded practice(s), each its own Review:")
        for r in mine:
            lines.append(
                f"      {r.key} — ratify the {family} practice `{r.practice}`: {cut(r.text)}"
            )
    lines.append(
        "decide one with `hale dna review <id> approve|reject`, "
        "or a family with `hale dna review <family> approve`"
    )
    return lines


def targets(record: Record, target: str) -> list[Review]:
    """The Reviews `target` names: one `k:<id>`, or a family's open ones."""
    every = reviews(record)
    if target.startswith("k:"):
        return [r for r in every if r.key == target]
    return [r for r in every if r.family == target and r.decision is None]


def board_refusal(root: Path, who: str) -> str:
    """Why `who` may not decide a Review, or "" (the Board's holder, or nobody's yet)."""
    from hale_runtime.schedules.ask import project_memory
    from hale_runtime.schedules.host import is_holder

    memory = project_memory(root)
    if memory is None:
        return ""
    try:
        board = memory.holder_of("board") or ""
    finally:
        memory.close()
    if not board or is_holder(who, board):
        return ""
    return f"{who} does not hold the Board ({board} does), and only the Board decides a Review"


def decide(root: Path, record: Record, review: Review, approve: bool) -> list[str]:
    """Decide one Review; the lines to print."""
    if review.decision is not None:
        return [f"review {review.key} was already {review.decision} (nothing written)"]
    decision = "approved" if approve else "rejected"
    body = {"decision": decision, "by": record.who, "practice": review.practice}
    name = f"the {review.family} practice `{review.practice}`"
    if not approve:
        record.append(DECIDED, review.key, body)
        return [f"review {review.key} rejected: {name} is not ratified (review.decided)"]
    step = ratify_step(root, record, review)
    ratified = {"receipt": review.receipt, "review": review.key, "by": record.who, "step": step}
    record.append_many([(DECIDED, review.key, body), (RATIFIED, review.practice, ratified)])
    lines = [f"review {review.key} approved: {name} is ratified (practice.ratified)"]
    return [*lines, f"  ratify: {step}"] if step else lines


def ratify_step(root: Path, record: Record, review: Review) -> str:
    """Declare the practice's schedule, if its receipt carries one; what the step says."""
    receipt = record.get_receipt(review.receipt)
    if "schedule" not in receipt:
        return ""
    from hale_runtime.schedules.terms import Terms

    terms = Terms.from_body(json.loads(receipt["schedule"]))
    source = {"practice": review.practice, "review": review.key, "by": record.who}
    decision = _declare(root, record, terms, source)
    if not decision.declared:
        return f"its schedule was refused ({decision.why})"
    verb = "stands unchanged" if decision.unchanged else "declared"
    return f"schedule {terms.id} {verb}: {_text(terms)}"


def _text(terms: Any) -> str:
    from hale_runtime.schedules.declare import declared_text

    return declared_text(terms)


def _declare(root: Path, record: Record, terms: Any, source: dict[str, Any]) -> Any:
    from hale_runtime.catalog import GenomeError, load_catalog
    from hale_runtime.schedules.ask import project_memory
    from hale_runtime.schedules.declare import Decision, decide, put_rhythm
    from hale_runtime.schedules.host import ScheduleHost
    from hale_runtime.schedules.listing import fold_of
    from hale_runtime.schedules.scheduler import Scheduler

    try:
        catalog = load_catalog(root)
    except GenomeError as error:
        why = f"the genome does not build: {error.text.splitlines()[0]}"
        record.append("schedule.refused", terms.id, {**terms.as_body(), "reason": why, **source})
        return Decision(False, why)
    memory = project_memory(root)
    try:
        host = ScheduleHost(catalog, memory)
        decision = decide(Scheduler(root), host, fold_of(record), terms, record.clock(), source)
        if decision.rows:
            record.append_many(decision.rows)
        if decision.declared and not decision.unchanged:
            put_rhythm(memory, terms)
    finally:
        if memory is not None:
            memory.close()
    return decision
