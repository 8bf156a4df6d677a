"""The table of row kinds, checked at both doors: writing refuses, reading marks poison."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hostile import append_lines, line, row_id

from hale_runtime.record import Record
from hale_runtime.record import kinds as k
from hale_runtime.record.errors import RowRefused


@pytest.mark.parametrize(
    "kind,key,body,why",
    [
        ("attempt.outcome.requested", "t1/wf1/s0/j/a0", {"calls": [{"micros": "lots"}]},
         "calls[0].micros is a whole number, 0 or more, not 'lots'"),
        ("attempt.outcome", "t1/wf1/s0/e/a0", {"performer": "editor"}, "body lacks outcome"),
        ("attempt.outcome", "t1/wf1/s0/e/a0", {"outcome": "maybe", "performer": "editor"},
         "outcome is succeeded or failed or cancelled, not 'maybe'"),
        ("claim.taken", "plan/i7", {"token": True}, "token is a whole number, not True"),
        ("model.called", "t1", {"micros": 2**64}, "micros is a whole number, 0 or more, not"),
        ("schedule.requested", "sr-1", {"every_ms": "100"}, "every_ms is a whole number"),
        ("intent.requested", "i-1", {"by": "a\nb"}, "by is an id (one line of printable text)"),
        ("workflow.admitted", "t1", {"definition": "d@1"}, "body lacks plan, or parent"),
        ("workflow.admitted", "t2/wf1/s0/j/a0", {"definition": "d@1", "plan": {}},
         "key is a task's id (t1, or a child's t1.s0.b), not 't2/wf1/s0/j/a0'"),
        ("task.born", "t1/wf1/s0", {}, "key is a task's id"),
        ("a.b", "a\nb", {}, "key is an id (one line of printable text), not 'a\\nb'"),
        ("a.b", "x" * 600, {}, "key is an id of at most 512 characters, not 600"),
        ("a b", "k", {}, "kind is one word with no space, not 'a b'"),
        ("a.b", "k", [1], "body is a JSON object, not [1]"),
    ],
)  # fmt: skip
def test_a_row_that_does_not_fit_its_kind_says_which_field(kind, key, body, why) -> None:
    assert k.check(kind, key, body).startswith(why)


@pytest.mark.parametrize(
    "kind,key,body",
    [
        ("attempt.outcome.requested", "t1/wf1/s0/j/a0",
         {"leg": "leg:a", "token": 3, "outcome": "failed", "calls": [{"micros": 7}]}),
        ("a.b", "k", {"anything": [1.5, None]}),  # a kind the table does not name: its envelope
        ("claim.taken", "plan/i7", {"holder": "h", "token": 1, "until": 5, "more": "fields"}),
        ("a.b", "kéy with spaces\u00a0and\u3000widths", {}),
    ],
)  # fmt: skip
def test_a_row_that_fits_passes(kind, key, body) -> None:
    assert k.check(kind, key, body) == ""


def test_the_table_names_each_kind_once_and_refuses_a_second_entry() -> None:
    assert k.KINDS[k.WORKFLOW_ADMITTED].name == "workflow.admitted"
    with pytest.raises(ValueError, match="twice"):
        k.kind("workflow.admitted")


def test_writing_a_row_that_does_not_fit_writes_nothing(record: Record) -> None:
    record.append("a.b", "first", {})
    with pytest.raises(RowRefused, match="calls\\[0\\].micros is a whole number"):
        record.append_many(
            [("a.b", "k", {}), ("attempt.outcome.requested", "a0", {"calls": [{"micros": "x"}]})]
        )
    assert [r.key for r in record.rows()] == ["first"]


def test_a_poison_row_keeps_its_place_but_no_reader_sees_it(record: Record, project: Path):
    record.append("a.b", "before", {})
    bad = [
        line("claim.taken", "plan/i7", {"token": "one"}),
        line("a.b", "two\nlines", {}),
        line("a.b", "k", {}, at="yesterday"),
        '{"not": "a row"}',
        "not json at all",
        line("a.b", "k", {"n": 1}).replace('"n":1', '"n":2'),  # its id no longer matches
        line("a.b", "k", {"text": "a\u0000b"}),  # memory and the nerves carry no NUL
    ]
    append_lines(project, bad)
    record.append("a.b", "after", {})
    for reader in (record, Record.open(project)):  # this one, and a cold one from the cache
        assert [r.key for r in reader.rows()] == ["before", "after"]
        every = reader.rows(poison=True)
        assert [r.seq for r in every] == list(range(1, 10))
        assert [r.id for r in every[1:8]] == [row_id(text) for text in bad]
        whys = [reader.poison_of(r) for r in every[1:8]]
        assert whys[0] == "token is a whole number, not 'one'"
        assert whys[1].startswith("key is an id")
        assert "time not a number" in whys[2]
        assert "record's fields" in whys[3] and "not JSON" in whys[4]
        assert "id does not match" in whys[5] and "NUL" in whys[6]
        assert every[4].kind == k.ROW_UNREADABLE and reader.poison_of(every[8]) == ""


def test_verdicts_made_under_another_table_are_made_again(record: Record, project: Path):
    append_lines(project, [line("claim.taken", "plan/i7", {"token": "one"})])
    record.append("a.b", "after", {})
    record.close()  # every stamped row moves into the index, with its verdict
    index = sqlite3.connect(Path(record.repo.path) / "hale" / "record.index")
    assert index.execute("SELECT count(*) FROM rows WHERE poison IS NOT NULL").fetchone() == (1,)
    with index:
        index.execute("UPDATE meta SET value = 'hale-record-index 2 another-table'")
    index.close()
    again = Record.open(project)
    assert [r.key for r in again.rows()] == ["after"]
    assert again.poison_of(again.rows(poison=True)[0]).startswith("token is")
    assert [why for _, why in again.poison_rows()] == ["token is a whole number, not 'one'"]
