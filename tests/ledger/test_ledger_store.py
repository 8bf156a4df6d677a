"""Memory's ledger on each backend: appends under the body's epoch, refused
(fenced, nothing written) under one taken over, released or expired; rows
carried into a real git record keep their ids, once."""

from __future__ import annotations

import time
from pathlib import Path

import pygit2
import pytest

from hale_runtime.memory import Fenced
from hale_runtime.record import Record, kinds
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.row import new_row


def lines(n: int, tag: str = "x") -> list[tuple[str, str]]:
    out = []
    for i in range(n):
        row, line = new_row(kinds.NODE_PING_REQUESTED, f"{tag}/{i}", {}, "leg@h:c", 1000 + i, "c")
        out.append((row.id, line))
    return out


def test_appends_stand_only_under_the_live_epoch(store):
    first = store.take_epoch("body", "ann@h:c1", 30)
    store.ledger_append(lines(2), ("body", first.token))
    assert store.ledger_count() == 2
    store.ledger_append(lines(2), ("body", first.token))  # the same rows again: one each
    assert store.ledger_count() == 2
    assert store.take_epoch("body", "bob@h:c2", 30) is None  # held: no new epoch
    assert store.release_epoch("body", "ann@h:c1", first.token)
    with pytest.raises(Fenced, match="was released"):
        store.ledger_append(lines(1, "r"), ("body", first.token))
    second = store.take_epoch("body", "bob@h:c2", 30)
    assert second.token == first.token + 1  # the next epoch
    with pytest.raises(Fenced, match="taken over by bob@h:c2"):
        store.ledger_append(lines(1, "t"), ("body", first.token))
    short = store.take_epoch("owner/acme", "bob@h:c2", 0.05)
    time.sleep(0.1)
    with pytest.raises(Fenced, match="expired"):
        store.ledger_append(lines(1, "e"), ("owner/acme", short.token))
    assert not store.release_epoch("owner/acme", "bob@h:c2", short.token)  # nothing to give
    assert store.ledger_count() == 2  # nothing a fenced append carried was written
    store.ledger_append(lines(3, "b"), ("body", second.token))
    assert [i for i, _ in store.ledger_waiting(10)] == [i for i, _ in lines(2) + lines(3, "b")]


def test_carried_rows_keep_their_ids_and_are_read_once(store, tmp_path: Path):
    repo = tmp_path / "p"
    pygit2.init_repository(str(repo)).config["hale.clone"] = "c0ffee00"
    record = Record.open(repo, who="host@h:c0ffee00")
    made = lines(3)
    carried = record.carry(line for _, line in made)
    assert [r.id for r in carried] == [i for i, _ in made]
    assert [r.who for r in record.rows()] == ["leg@h:c"] * 3  # as made, not as carried
    record.carry(line for _, line in made)  # carried twice (a crash before the delete)
    assert len(record.rows()) == 3
    with pytest.raises(RowRefused):
        record.carry(['{"not": "a row"}'])
    assert len(record.rows()) == 3
