"""The Board's Review of practices, and the ratify step's schedule.

A Review is a `review.opened` row (key `k:<12 hex>` of the practice's
receipt); deciding it writes `review.decided`. An approval is carried out
by the organization as an execution of the baseline `practice-ratify`
(ratify.py): its `ratify` step writes `practice.ratified` and declares the
schedule the practice's receipt carries, its `hat` step puts the practice
on its holder's hat.

The Board decides, proven by key: in a record with a genesis a decision
must be signed by the Board's holder, or by genesis while the Board is
unheld (record/trust.py), or by the Leader's holder inside the Board's
grant (record/grants.py); any other is refused at the record's door, and a
forged one is refused as it joins the chain, so the organization never
ratifies it. A record from before signing keeps the old word
(`board_refusal`): once memory's graph names who holds the Board only its
holder decides; while nobody holds it, or no memory is named, whoever runs
the verb decides, the same fallback as who may ask for a schedule
(`may_ask` in dna/core/scheduler.hl).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hale_runtime.record import Record, kinds

OPENED, DECIDED, RATIFIED = kinds.REVIEW_OPENED, kinds.REVIEW_DECIDED, kinds.PRACTICE_RATIFIED
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


def board_refusal(memory: Any | None, record: Record, key: str) -> str:
    """Why this writer may not decide the Review `key`, or "". A signed record
    (one with a genesis) judges by key: only the Board's holder, or genesis
    while the Board is unheld (record/trust.py), or the Leader's holder
    inside its grant (record/grants.py). A record from before
    signing keeps the old word: memory's holder of the Board, or anyone
    while nobody holds it or no memory is named to say."""
    if record.trust.genesis:
        body = {"decision": "approved", "by": record.who, "practice": ""}
        return record.judge(DECIDED, key, body)
    from hale_runtime.schedules.binding import is_holder

    if memory is None:
        return ""
    board = memory.holder_of("board") or ""
    if not board or is_holder(record.who, board):
        return ""
    return (
        f"refused: {record.who} does not hold the Board ({board} does), "
        "and only the Board decides a Review"
    )


def decide(record: Record, review: Review, approve: bool) -> list[str]:
    """Decide one Review; the lines to print. Approving writes the Board's decision;
    the organization carries it out as a practice-ratify execution (ratify.py)."""
    if review.decision is not None:
        return [f"review {review.key} was already {review.decision} (nothing written)"]
    decision = "approved" if approve else "rejected"
    body = {"decision": decision, "by": record.who, "practice": review.practice}
    name = f"the {review.family} practice `{review.practice}`"
    record.append(DECIDED, review.key, body)
    if not approve:
        return [f"review {review.key} rejected: {name} is not ratified (review.decided)"]
    return [f"review {review.key} approved: {name} (review.decided)"]


def ratified(record: Record, review: Review) -> str | None:
    """What the ratify step said for this Review, once its practice.ratified is written."""
    for row in record.rows(kind=RATIFIED):
        if row.key == review.practice and row.body.get("review") == review.key:
            return str(row.body.get("step", ""))
    return None
