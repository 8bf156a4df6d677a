"""Reads by key through the index answer what a scan of the whole record answers.

`hale dna show`, `history`, `effect` and the head read one root's rows by key
(`under`, `rows(key=…)`, `rows(key_prefix=…)`) so they cost the same at any
age; a scan of every row is the definition they must agree with. Hypothesis
writes any record: keys near each other in every order git, SQLite and
Python compare text (`t1`, `t10`, `t1.s0.b`, NUL, past the BMP), rows of
any kind, poison among them, in batches that land in the index, in the tail
past it, or both, and an unstamped tail when a remote exists.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
from hostile import append_lines, line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.engine.ids import root_of
from hale_runtime.record import Record, kinds

KEY_PARTS = ["t1", "t10", "t2", "t", "1", "/", ".", "wf1", "s0", "x", "\x00", "é", "\U0001f600"]
keys = st.lists(st.sampled_from(KEY_PARTS), min_size=1, max_size=6).map("".join)
rows = st.tuples(st.sampled_from(["a.b", "note.made", "workflow.admitted"]), keys)
batches = st.lists(
    st.tuples(
        st.lists(rows, min_size=1, max_size=6),
        st.sampled_from(["append", "hostile", "close"]),  # close: the stamped rows move in
    ),
    min_size=1,
    max_size=8,
)


def _write(root: Path, record: Record, batch: list, how: str) -> Record:
    if how == "hostile":  # written past the door: a kind's wrong body is poison
        append_lines(root, [line(kind, key, {}) for kind, key in batch])
        return record
    fits = [(kind, key, {"n": n}) for n, (kind, key) in enumerate(batch)
            if not kinds.check_row(kind, key, {"n": n}, record.who, 1, "c0ffee00")]  # fmt: skip
    record.append_many(fits or [("a.b", "t1", {})])
    if how == "close":
        record.close()
        return Record.open(root, clock=stepping_clock(record.clock() + 1000))
    return record


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written=batches, remote=st.booleans(), probes=st.lists(keys, min_size=1, max_size=4))
def test_a_read_by_key_is_the_scans_answer(
    tmp_path_factory, written: list, remote: bool, probes: list[str]
) -> None:
    root = make_project(tmp_path_factory.mktemp("bykey") / "p")
    if remote:  # what is not pushed stays in the tail, unstamped
        bare = root.parent / "remote.git"
        pygit2.init_repository(str(bare), bare=True)
        pygit2.Repository(str(root)).remotes.create("origin", str(bare))
    record = Record.open(root, clock=stepping_clock())
    for n, (batch, how) in enumerate(written):
        record = _write(root, record, batch, how)
        if remote and n % 3 == 1:
            record.sync()
    for reader in (record, Record.open(root)):
        scan = reader.rows()
        every = reader.rows(poison=True, signatures=True)
        assert [r.seq for r in every] == list(range(1, len(every) + 1))
        wanted = {r.key for r in scan} | set(probes) | {root_of(k) for k in probes}
        for key in sorted(wanted):
            at = root_of(key)
            assert reader.under(at, "/.") == [r for r in scan if root_of(r.key) == at]
            assert reader.rows(key=key) == [r for r in scan if r.key == key]
            assert reader.rows(key_prefix=key) == [r for r in scan if r.key.startswith(key)]
            by_kind = reader.rows(kind="note.made", key=key)
            assert by_kind == [r for r in scan if r.key == key and r.kind == "note.made"]


# ---- the index's compact form ------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(body=st.dictionaries(st.text(), json_values, max_size=6))
def test_a_body_reads_back_from_the_index_as_it_was_written(body: dict) -> None:
    from hale_runtime.record.index import _packed, _unpacked

    assert _unpacked(_packed(body)) == body


def test_names_another_process_gave_are_read(project: Path) -> None:
    """Kinds, writers and clones are numbers in the index; an index opened
    before another writer named new ones reads them by their names."""
    from hale_runtime.record.index import Index

    first = Record.open(project, clock=stepping_clock())
    first.append("a.b", "k1", {"n": 1})
    first.close()
    index = Index(first.repo.path)
    upto = index.end()[1]
    assert [r.key for r in index.scan(0, upto, ["a.b"])] == ["k1"]  # names read: a.b, who, …
    other = Record.open(project, clock=stepping_clock(2_000_000_000_000), who="bo@desk:c2")
    other.append_many([("c.d", "k2", {"text": "é" * 300}), ("a.b", "k3", {})])
    other.close()
    upto = index.end()[1]
    assert [(r.kind, r.key, r.who) for r in index.scan(0, upto, ["c.d", "a.b"])] == [
        ("a.b", "k1", first.who), ("c.d", "k2", "bo@desk:c2"), ("a.b", "k3", "bo@desk:c2"),
    ]  # fmt: skip
    assert list(index.scan(0, upto, ["e.f"])) == [] and {"a.b", "c.d"} <= set(index.kinds())
    (two,) = index.scan(0, upto, ["c.d"])
    assert index.row_at(two.seq) == two and index.get(two.id, upto) == two
    assert two.body == {"text": "é" * 300}
    assert index.known([two.id, "0" * 64], upto) == {two.id: two.seq}


def test_an_index_of_another_version_is_made_anew_and_gives_back_its_space(
    project: Path, monkeypatch
) -> None:
    from hale_runtime.record import index as index_module

    record = Record.open(project, clock=stepping_clock())
    record.append_many([("a.b", f"k{n}", {"text": f"row {n} " * 20}) for n in range(3000)])
    record.close()
    path = Path(record.repo.path) / "hale" / "record.index"

    def size() -> int:
        return sum(p.stat().st_size for p in path.parent.glob("record.index*"))

    before = size()
    monkeypatch.setattr(index_module, "VERSION", "hale-record-index 0 another")
    fresh = index_module.Index(record.repo.path)
    assert fresh.end() == (0, 0, "") and size() < before / 4
    fresh.close()
    assert [r.key for r in Record.open(project).rows(key="k2999")] == ["k2999"]
