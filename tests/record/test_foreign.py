"""Commits of shapes hale never writes, under refs/dna/record: read through, never fatal.

Anyone who can push to the record can push any commit. Each shape (tests/
hostile.py's SHAPES) is put on a real chain, locally and through a real bare
remote, and read by a fresh Record and from the index: the chain goes on
through it, a foreign commit is one `row.unreadable` row (poison, so it is
quarantined once), and rows written after it read and sync as any others.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from hostile import GOOD, SHAPES, commit_of, line, push_foreign, raw_commit, rows_tree, tree_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.record import RECORD_REF, Record, kinds, store
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.row import read_line


def keys(record: Record, **filters) -> list[str]:
    return [r.key for r in record.rows(**filters)]


def placeholders(record: Record) -> list:
    return [r for r in record.rows(poison=True) if r.kind == kinds.ROW_UNREADABLE]


ENDS_CHAIN = "parent not a commit"  # the chain starts again at it (only a force push makes one)


def expected(shape: str) -> list[str]:
    """The keys the record reads from one commit of `shape` (poison left out)."""
    foreign = SHAPES[shape][1]
    return [] if foreign or shape == "no rows" else ["foreign/good"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_commit_of_any_shape_is_read_through(project: Path, shape: str) -> None:
    record = Record.open(project, clock=stepping_clock())
    record.append("a.b", "before", {})
    oid = push_foreign(project, shape)
    record.append("a.b", "after", {})
    record.close()  # what is stamped (all of it: no remote) moves into the index
    want = ["before", *expected(shape), "after"][1 if shape == ENDS_CHAIN else 0 :]
    for reader in (record, Record.open(project)):
        assert keys(reader) == want
        found = placeholders(reader)
        if SHAPES[shape][1]:
            assert len(found) == 1 and str(oid) in found[0].body["why"]
            assert reader.poison_of(found[0]).startswith(f"commit {oid} is foreign: ")
        elif shape == "not UTF-8":
            assert [r.body["why"] for r in found] == ["a row is not UTF-8 text"]
        else:
            assert found == []
        every = reader.rows(poison=True, signatures=True)
        assert [r.seq for r in every] == list(range(1, len(every) + 1))
        assert len(reader.rows(poison=True)) == len(want) + len(found)


def test_a_merge_is_read_along_its_first_parent(project: Path) -> None:
    record = Record.open(project, clock=stepping_clock())
    record.append("a.b", "first", {})
    repo = record.repo
    tip = store.read_ref(repo, RECORD_REF)
    side = commit_of(repo, tree_of(repo, rows_tree(line("x.y", "side", {}) + "\n")), [])
    merge = commit_of(repo, tree_of(repo, rows_tree(line("x.y", "merged", {}) + "\n")), [tip, side])
    assert store.move_ref(repo, RECORD_REF, tip, merge)
    record.append("a.b", "last", {})
    assert keys(Record.open(project)) == ["first", "last"]  # neither the side's nor the merge's
    assert len(placeholders(record)) == 1


def test_a_chain_that_comes_back_on_itself_ends_where_it_would_repeat(project: Path) -> None:
    record = Record.open(project, clock=stepping_clock())
    record.append("a.b", "one", {})
    root = store.read_ref(record.repo, RECORD_REF)
    record.append("a.b", "two", {})
    tip = store.read_ref(record.repo, RECORD_REF)
    grafts = Path(record.repo.path) / "info" / "grafts"
    grafts.parent.mkdir(exist_ok=True)
    grafts.write_text(f"{root} {tip}\n")  # git's grafts: the root's parent is now the tip
    looped = Record.open(project, clock=stepping_clock(2_000_000_000_000))
    assert keys(looped) == ["one", "two"]
    looped.append("a.b", "three", {})
    assert keys(Record.open(project)) == ["one", "two", "three"]


def test_a_missing_object_is_damage_named_in_one_line(project: Path) -> None:
    repo = pygit2.Repository(str(project))
    ghost = raw_commit(repo, tree_of(repo, rows_tree(GOOD + "\n")), pygit2.Oid(hex="1" * 40))
    repo.references.create(RECORD_REF, ghost)
    with pytest.raises(store.RecordError, match=f"{RECORD_REF}: commit 1111111111.* is missing"):
        Record.open(project).rows()


def test_a_batch_past_what_a_commit_holds_is_refused(record: Record, monkeypatch) -> None:
    monkeypatch.setattr(store, "MAX_BLOB", (64 << 10) + 4096)
    with pytest.raises(RowRefused, match="a batch is at most 4,096 bytes as stored"):
        record.append_many([("a.b", f"k{n}", {"text": "x" * 100}) for n in range(40)])
    assert record.rows() == []
    record.append("a.b", "k", {"text": "x" * 100})  # a batch within it is written


# ---- through a bare remote ---------------------------------------------------------


def open_clone(path: Path, start: int = 1_767_225_600_000) -> Record:
    return Record.open(path, clock=stepping_clock(start))


def push_to_remote(hostile: Path, shape: str) -> pygit2.Oid:
    """A clone with no hale in it fetches the record, puts a commit on it, pushes."""
    repo = pygit2.Repository(str(hostile))
    git = ["git", f"--git-dir={repo.path}"]
    _run([*git, "fetch", "-q", "origin", f"+{RECORD_REF}:{RECORD_REF}"])
    oid = push_foreign(hostile, shape)
    _run([*git, "push", "-q", "origin", RECORD_REF])
    return oid


def _run(argv: list[str]) -> None:
    import subprocess

    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_sync_goes_on_through_every_shape(make_clone: Callable[[str], Path]) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"), 2_000_000_000_000)
    hostile = make_clone("h")
    a.append("x.a", "start", {})
    a.sync()
    b.sync()
    want = ["start"]
    for n, shape in enumerate(sorted(set(SHAPES) - {ENDS_CHAIN})):
        push_to_remote(hostile, shape)
        want += [key for key in expected(shape) if key not in want]  # one row, read once
        a.append("x.a", f"a{n}", {})  # unpushed when the foreign commit lands: replayed on it
        b.sync()
        a.sync()
        b.append("x.b", f"b{n}", {})
        b.sync()
        a.sync()
        want += [f"a{n}", f"b{n}"]
    assert keys(a) == keys(b) == want
    assert [r.id for r in a.rows(poison=True)] == [r.id for r in b.rows(poison=True)]
    assert a.stamped_count() == b.stamped_count() == a.cursor()
    foreign = sum(1 for name, (_, is_foreign) in SHAPES.items() if is_foreign) - 1
    assert len(placeholders(a)) == foreign + 1  # and the not-UTF-8 line
    fresh = Record.open(make_clone("c"))
    fresh.sync()
    assert keys(fresh) == want


# ---- any shape (hypothesis) -----------------------------------------------------------

entries = st.dictionaries(
    st.sampled_from(["rows.jsonl", "rows.json", "x"]),
    st.one_of(
        st.lists(st.sampled_from([GOOD, "{}", "not json", line("a.b", "k", {"n": 2})]),
                 max_size=4).map(lambda ls: "".join(f"{one}\n" for one in ls).encode()),
        st.binary(max_size=40),
        st.just(None),  # a subtree
    ),
    max_size=3,
)  # fmt: skip
shapes = st.lists(st.tuples(entries, st.integers(0, 3)), min_size=1, max_size=5)


def _made(repo: pygit2.Repository, tip, spec, extra: int, earlier: list) -> pygit2.Oid:
    """A commit on `tip` (first parent) of the tree `spec` says, merging `extra` earlier ones."""
    tree = tree_of(repo, {
        name: value if value is not None else tree_of(repo, {"a": b"a"})
        for name, value in spec.items()
    })  # fmt: skip
    return commit_of(repo, tree, [tip, *earlier[:extra]])


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(commits=shapes)
def test_any_chain_of_commits_reads_and_goes_on(tmp_path_factory, commits) -> None:
    project = make_project(tmp_path_factory.mktemp("shapes") / "p")
    record = Record.open(project, clock=stepping_clock())
    repo = record.repo
    record.append("a.b", "first", {})
    made = [store.read_ref(repo, RECORD_REF)]
    readable = [(record.rows()[0].id, "first")]
    for spec, extra in commits:
        tip = made[-1]
        oid = _made(repo, tip, spec, extra, made[:-1])
        assert store.move_ref(repo, RECORD_REF, tip, oid)
        made.append(oid)
        readable += _readable(repo, oid)
    last = record.append("a.b", "last", {})
    readable.append((last.id, "last"))
    first = [(r.kind, r.key, r.id) for r in record.rows(poison=True)]
    record.close()
    again = Record.open(project)
    assert [(r.kind, r.key, r.id) for r in again.rows(poison=True)] == first
    seen: set[str] = set()
    once = [key for row_id, key in readable if not (row_id in seen or seen.add(row_id))]
    assert [r.key for r in again.rows()] == once
    foreign = [r for r in again.rows(poison=True) if r.kind == kinds.ROW_UNREADABLE]
    assert all(again.poison_of(r) for r in foreign)


def _readable(repo: pygit2.Repository, oid: pygit2.Oid) -> list[tuple[str, str]]:
    """(id, key) of the rows that fit, as the record should read one commit."""
    commit = repo[oid]
    tree = commit.tree
    if len(commit.parent_ids) > 1 or len(tree) != 1 or tree[0].name != "rows.jsonl":
        return []
    if tree[0].type_str != "blob":
        return []
    out = []
    for raw in repo[tree[0].id].data.split(b"\n"):
        try:
            row = read_line(raw.decode(), 0, "x")
        except UnicodeDecodeError:
            continue
        if row.kind != kinds.ROW_UNREADABLE and not kinds.check_row(*row[:6]):
            out.append((row.id, row.key))
    return out
