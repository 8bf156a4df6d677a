"""The open keys (kinds.OPEN_UNTIL): kept by the index as rows go in, folded
over the tail, made again after a cut; always what a fold over every row
says, and read without reading what closed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pygit2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.record import RECORD_REF, Record
from hale_runtime.record.index import Index

CASE, UNSURE, OUTCOME = "board.case", "effect.unresolved", "attempt.outcome"
DONE = {"outcome": "succeeded", "performer": "person"}
_fresh = itertools.count()


def row(kind: str, key: str) -> tuple[str, str, dict]:
    return (kind, key, DONE if kind == OUTCOME else {})


def folded(rows: list[tuple[str, str, dict]]) -> list[str]:
    """The open keys as a fold over every row says, in the order they opened."""
    opened: dict[str, int] = {}
    closed: set[str] = set()
    for n, (kind, key, _) in enumerate(rows):
        if kind == OUTCOME:
            closed.add(key)
            opened.pop(key, None)
        elif key not in closed:
            opened.setdefault(key, n)
    return sorted(opened, key=opened.get)


def keys(record: Record) -> list[str]:
    return [key for key, _, _ in record.open_keys("case")]


def test_open_keys_in_the_index_and_the_tail(project: Path) -> None:
    first = Record.open(project, clock=stepping_clock(), who="w")
    written = [row(CASE, "a"), row(UNSURE, "b"), row(CASE, "c"), row(OUTCOME, "a")]
    first.append_many([*written, ("other.kind", "d", {})])
    first.close()  # into the index
    assert [k for k, _, _ in Index(project / ".git").open_keys("case")] == ["b", "c"]
    record = Record.open(project, clock=stepping_clock(10**9), who="w")
    assert keys(record) == ["b", "c"]
    record.append_many([row(OUTCOME, "b"), row(CASE, "e"), row(UNSURE, "a")])  # the tail
    assert keys(record) == ["c", "e"]  # a closed in the index stays closed
    (c,) = [t for t in record.open_keys("case") if t[0] == "c"]
    (opened,) = record.rows(kind=CASE, key="c")
    assert c[1:] == (opened.seq, opened.at)  # where and when it opened
    record.close()
    assert keys(Record.open(project)) == ["c", "e"]


def test_a_replaced_chain_opens_again_what_it_no_longer_closes(project: Path) -> None:
    first = Record.open(project, clock=stepping_clock(), who="w")
    first.append(*row(CASE, "a"))
    kept = pygit2.Repository(str(project)).references[RECORD_REF].target
    first.append(*row(OUTCOME, "a"))
    first.close()
    assert keys(Record.open(project)) == []
    repo = pygit2.Repository(str(project))
    repo.references[RECORD_REF].set_target(kept)  # someone rewrote the record's end
    second = Record.open(project, clock=stepping_clock(10**9), who="w")
    second.append(*row(CASE, "b"))
    second.close()
    assert keys(second) == keys(Record.open(project)) == ["a", "b"]


OPS = st.lists(st.tuples(st.sampled_from([CASE, UNSURE, OUTCOME]), st.sampled_from("abcd")),
               max_size=12)  # fmt: skip


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS, cut=st.integers(0, 12), batch=st.integers(1, 4))
def test_open_keys_are_what_a_fold_over_every_row_says(tmp_path, ops, cut, batch):
    project = make_project(tmp_path / f"p{next(_fresh)}")
    rows = [row(kind, key) for kind, key in ops]
    record = Record.open(project, clock=stepping_clock(), who="w")
    for at in range(0, min(cut, len(rows)), batch):
        record.append_many(rows[at : min(at + batch, cut)])
    record.close()  # the first `cut` rows go into the index
    record = Record.open(project, clock=stepping_clock(10**9), who="w")
    for at in range(cut, len(rows), batch):
        record.append_many(rows[at : at + batch])  # the rest stays in the tail
    assert keys(record) == folded(rows)
