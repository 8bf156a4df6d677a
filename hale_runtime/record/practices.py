"""The practices every new project starts with, each put up for the Board's Review.

`seed_practices` writes each practice as a receipt (author, kind, name,
provenance, target, text, toolchain; `operating/optimize-cadence` also carries
its schedule as a JSON string) and opens one Review per practice as a
`review.opened` row keyed `k:<first 12 hex of the receipt>`. It is idempotent:
a Review already open for a receipt is not opened again.
`ratified_practices` reads back those the Board has ratified for org (the
Leader's brief, a Work's hat).
"""

from __future__ import annotations

import json
from typing import Any

from hale_runtime.record import kinds
from hale_runtime.record.errors import RecordError
from hale_runtime.record.record import Record

FAMILY = "operating"
REVIEW_OPENED = kinds.REVIEW_OPENED

# the optimize pass's cadence; key order and separators are part of the receipt
OPTIMIZE_SCHEDULE = json.dumps(
    {
        "id": "optimize",
        "every_ms": 86400000,
        "definition": "optimize-walk",
        "args": "{}",
        "convener": "position:leader",
    }
)

PRACTICES: tuple[tuple[str, str], ...] = (
    (
        "operating/record-first",
        "state lives in the record: an act becomes real when its row is written, and "
        "what the organism reports is read back from rows, never from a process's memory.",
    ),
    (
        "operating/claim-before-acting",
        "an act that must happen once is claimed by id before it is taken; whoever finds "
        "the claim held leaves the act to its holder and writes nothing.",
    ),
    (
        "operating/one-gate-for-spend",
        "every model call asks the budget first and is recorded with its price; an "
        "exhausted window refuses as a row and waits for the next one.",
    ),
    (
        "operating/changes-through-review",
        "a change to the genome is a candidate until the Board, or the Leader inside its "
        "grant, has reviewed it; nothing is applied on a proposal alone.",
    ),
    (
        "operating/fail-as-rows",
        "a refusal or a failure is a row that says why and what would fix it; nothing is "
        "dropped quietly and nothing is retried forever.",
    ),
    (
        "operating/stop-without-lease",
        "a node that cannot prove its body lease, or has lost its nerves, stops and leaves "
        "the work to a node that can; two bodies never act for one owner.",
    ),
    (
        "operating/optimize-cadence",
        "once a day the leader convenes optimize-walk, a look at how the organism itself "
        "runs rather than at its work, which ends in at most one small proposal or a row "
        "saying nothing needs changing. Changing how often is an amendment for the Board.",
    ),
)


def toolchain_version() -> str:
    """The version of the hale toolchain writing the receipts."""
    from importlib import metadata  # only a seeding needs it: 17 ms of every verb's start

    return metadata.version("hale")


def practice_receipt(name: str, text: str) -> dict[str, Any]:
    """The receipt of one seeded practice."""
    receipt: dict[str, Any] = {
        "author": "org",
        "kind": "practice",
        "name": name,
        "provenance": "design",
        "target": "org",
        "text": text,
        "toolchain": toolchain_version(),
    }
    if name == "operating/optimize-cadence":
        receipt["schedule"] = OPTIMIZE_SCHEDULE
    return receipt


def seed_practices(record: Record) -> list[tuple[str, str]]:
    """Write the seeded practices and open their Reviews; [(practice name, receipt digest)]."""
    seeded: list[tuple[str, str]] = []
    opened = {row.key for row in record.rows(kind=REVIEW_OPENED)}
    batch: list[tuple[str, str, dict[str, Any]]] = []
    for name, text in PRACTICES:
        digest = record.put_receipt(practice_receipt(name, text))
        seeded.append((name, digest))
        key = f"k:{digest[:12]}"
        if key not in opened:
            body = {"family": FAMILY, "practice": name, "receipt": digest, "text": text}
            batch.append((REVIEW_OPENED, key, body))
    if batch:
        record.append_many(batch)
    return seeded


def ratified_practices(record: Record) -> list[str]:
    """The text of every practice the Board has ratified for org, in ratification order."""
    out: list[str] = []
    for row in record.rows(kind=kinds.PRACTICE_RATIFIED):
        try:
            receipt = record.get_receipt(str(row.body.get("receipt", "")))
        except RecordError:
            continue
        if receipt.get("target") == "org":
            out.append(f"{row.key}: {receipt.get('text', '')}")
    return out
