"""Every row kind states who may write it: each kind of the one table has a
writer class, every class but `anyone` has a rule in the trust fold, and
docs/authority.md lists each kind under its class."""

from __future__ import annotations

import re
from pathlib import Path

from hale_runtime.record import kinds, trust

DOC = Path(__file__).resolve().parents[2] / "docs" / "authority.md"
CLASSES = {"the organization": kinds.ORGANIZATION, "a node": kinds.NODE, "a leg": kinds.LEG,
           "the Board": kinds.BOARD, "anyone": kinds.ANYONE}  # fmt: skip


def test_every_kind_has_a_writer_and_a_rule() -> None:
    assert set(kinds.WRITERS) == set(kinds.KINDS)
    for name, writer in kinds.WRITERS.items():
        assert (name in trust.RULES) == (writer != kinds.ANYONE), name


def test_the_doc_lists_each_kind_under_its_writer() -> None:
    listed: dict[str, str] = {}
    for row in DOC.read_text().splitlines():
        cells = row.split("|")
        first = next((c for w, c in CLASSES.items() if row.startswith(f"| {w}")), None)
        if first is not None and len(cells) > 3:
            for name in re.findall(r"`([^`]+)`", cells[3]):
                listed[name] = first
    assert listed == kinds.WRITERS


def test_hale_dna_new_makes_the_genesis_the_first_row(project: Path) -> None:
    from hale_runtime.record import Record

    record = Record.open(project)
    first, second = record.rows(signatures=True)[:2]
    assert first.kind == kinds.ROW_SIGNED and second.kind == kinds.KEY_REGISTERED
    assert second.body["bound"] == "genesis" and second.id == record.trust.record
