"""The practices a new project is seeded with, each up for the Board's Review."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hale_runtime.record import Record, seed_practices


def test_seven_operating_practices_each_with_a_review(record: Record, project: Path) -> None:
    seeded = seed_practices(record)
    assert len(seeded) == 7
    assert all(name.startswith("operating/") for name, _ in seeded)
    reviews = record.rows(kind="review.opened")
    assert [r.key for r in reviews] == [f"k:{digest[:12]}" for _, digest in seeded]
    for (name, digest), review in zip(seeded, reviews, strict=True):
        receipt = record.get_receipt(digest)
        assert review.body == {
            "family": "operating",
            "practice": name,
            "receipt": digest,
            "text": receipt["text"],
        }
    assert len(record.receipts()) == 7


def test_optimize_cadence_carries_the_schedule_fields(record: Record, project: Path) -> None:
    digest = dict(seed_practices(record))["operating/optimize-cadence"]
    printed = subprocess.check_output(
        ["git", "-C", str(project), "cat-file", "-p", f"refs/dna/receipts/{digest}"], text=True
    )
    receipt = json.loads(printed)
    assert sorted(receipt) == [
        "author", "kind", "name", "provenance", "schedule", "target", "text", "toolchain",
    ]  # fmt: skip
    assert receipt["toolchain"] == "0.21.0"
    assert (receipt["author"], receipt["kind"], receipt["provenance"], receipt["target"]) == (
        "org", "practice", "design", "org",
    )  # fmt: skip
    assert receipt["schedule"] == (
        '{"id": "optimize", "every_ms": 86400000, "definition": "optimize-walk", '
        '"args": "{}", "convener": "position:leader"}'
    )
    assert printed.startswith(
        '{"author":"org","kind":"practice","name":"operating/optimize-cadence"'
    )


def test_seeding_twice_opens_nothing_new(record: Record) -> None:
    first = seed_practices(record)
    cursor = record.cursor()
    assert seed_practices(record) == first
    assert record.cursor() == cursor
