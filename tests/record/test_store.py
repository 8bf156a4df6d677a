"""The record in one clone: append, read, compare-and-swap, cache, damage."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pygit2
import pytest
from record_helpers import ids, run_python, stepping_clock

from hale_runtime.record import RECORD_REF, Record, RecordError, store


def test_rows_read_back_in_order_and_filter(record: Record) -> None:
    record.append("claim.taken", "plan/i7", {"holder": record.who, "token": 1, "until": 9})
    record.append_many(
        [("schedule.requested", "sched/nightly", {"n": 1}), ("claim.released", "plan/i7", {})]
    )
    assert [r.kind for r in record.rows()] == [
        "claim.taken",
        "schedule.requested",
        "claim.released",
    ]
    assert [r.seq for r in record.rows()] == [1, 2, 3]
    assert [r.kind for r in record.rows(since=1)] == ["schedule.requested", "claim.released"]
    assert [r.seq for r in record.rows(kind="claim.released")] == [3]
    assert [r.seq for r in record.rows(kind=["claim.taken", "claim.released"])] == [1, 3]
    assert [r.seq for r in record.rows(key_prefix="plan/")] == [1, 3]
    assert record.cursor() == 3
    assert record.get(record.rows()[1].id) == record.rows()[1]


def test_a_batch_is_one_commit_and_a_fresh_reader_sees_it(record: Record, project: Path) -> None:
    record.append_many([("a.b", f"k{i}", {"i": i}) for i in range(50)])
    tip = record.repo.references[RECORD_REF].target
    assert record.repo[tip].parents == []
    assert [r.key for r in Record.open(project).rows()] == [f"k{i}" for i in range(50)]


def test_a_body_with_line_separators_stays_one_row(record: Record, project: Path) -> None:
    body = {"text": "a\u2028b\u2029c\x85d\re\nf"}
    record.append("a.b", "k", body)
    assert [(r.key, r.body) for r in Record.open(project).rows()] == [("k", body)]


def test_the_same_row_twice_is_one_row(project: Path) -> None:
    rec = Record.open(project, clock=lambda: 5, who="w")
    first = rec.append("a.b", "k", {"x": 1})
    again = rec.append_many([("a.b", "k", {"x": 1}), ("a.b", "k", {"x": 1}), ("a.b", "j", {})])
    assert again[0] == again[1] == first
    assert [r.key for r in Record.open(project).rows()] == ["k", "j"]


def test_appending_touches_neither_work_tree_nor_index_nor_head(project: Path) -> None:
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "genome"], check=True
    )
    (project / "dna/org/main.hl").write_text("// edited, not staged\n")
    head = (project / ".git/HEAD").read_text(), subprocess.check_output([*git, "rev-parse", "HEAD"])
    index = (project / ".git/index").read_bytes()
    status = subprocess.check_output([*git, "status", "--porcelain"])
    rec = Record.open(project)
    rec.append_many([("a.b", "k", {}), ("a.c", "k", {})])
    rec.put_receipt({"x": 1})
    assert (project / ".git/index").read_bytes() == index
    assert subprocess.check_output([*git, "status", "--porcelain"]) == status
    assert (
        (project / ".git/HEAD").read_text(),
        subprocess.check_output([*git, "rev-parse", "HEAD"]),
    ) == head


def _drop(index: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)


def test_the_index_is_derived_and_safe_to_lose(record: Record, project: Path) -> None:
    for n in range(5):
        record.append_many([("a.b", f"k{n}.{i}", {"i": i}) for i in range(20)])
    record.close()
    expected = ids(record)
    index = project / ".git/hale/record.index"
    assert index.exists()
    assert ids(Record.open(project)) == expected
    _drop(index)
    index.write_bytes(b"not an index at all")
    assert ids(Record.open(project)) == expected
    _drop(index)
    reopened = Record.open(project)
    assert ids(reopened) == expected
    assert [r.key for r in reopened.rows(key="k3.7")] == ["k3.7"]
    reopened.close()
    assert index.exists()


def test_an_index_another_process_holds_busy_is_never_discarded(
    record: Record, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Busy is not damaged: a reader that cannot get in goes on from git alone,
    and the index stays whole for the process holding it (unlinking a live
    SQLite file under its writer corrupts it)."""
    from hale_runtime.record import index as index_module

    record.append_many([("a.b", f"k{i}", {"i": i}) for i in range(20)])
    record.close()
    expected = ids(record)
    path = project / ".git/hale/record.index"
    inode = path.stat().st_ino
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(index_module, "BUSY_MS", 50)
    try:
        assert ids(Record.open(project)) == expected
        assert path.stat().st_ino == inode  # the very file the holder writes
        (held,) = holder.execute("SELECT count(*) FROM rows").fetchone()
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert held == len(expected)
    assert ids(Record.open(project)) == expected


def test_a_reader_that_decoded_many_rows_moves_them_into_the_index(
    record: Record, project: Path
) -> None:
    """A verb in a fresh process reads what it must decode from git once: when
    a refresh decoded 1,000 rows or more, they move in, and the next open
    finds them in the index. A few rows wait for the writer's batch."""
    from hale_runtime.record.chain import PERSIST_READ
    from hale_runtime.record.index import Index

    record.append_many([("a.b", f"k{i}", {}) for i in range(PERSIST_READ - 1)])
    assert Index(record.repo.path).end()[1] == 0  # the writer's backlog: not yet moved
    assert len(Record.open(project).rows()) == PERSIST_READ - 1
    assert Index(record.repo.path).end()[1] == 0  # a reader of a few: nothing written
    record.append("a.b", "one more", {})
    assert len(Record.open(project).rows()) == PERSIST_READ  # never closed, as a verb is not
    assert Index(record.repo.path).end()[1] == PERSIST_READ


def test_reads_by_key_go_through_the_index(record: Record, project: Path) -> None:
    record.append_many([("a.b", k, {}) for k in ["t1", "t1/wf1/s0", "t1.s0.b", "t10", "t1x"]])
    record.append_many([("a.c", "t1/wf1/s0/a/a0", {}), ("a.c", "t2", {})])
    record.close()
    fresh = Record.open(project)
    assert [r.key for r in fresh.under("t1", "/.")] == [
        "t1",
        "t1/wf1/s0",
        "t1.s0.b",
        "t1/wf1/s0/a/a0",
    ]
    assert [r.key for r in fresh.rows(key_prefix="t1")][:5] == [
        "t1",
        "t1/wf1/s0",
        "t1.s0.b",
        "t10",
        "t1x",
    ]
    assert [r.key for r in fresh.rows(kind="a.c")] == ["t1/wf1/s0/a/a0", "t2"]
    assert fresh.row_at(6).key == "t1/wf1/s0/a/a0"
    assert fresh.get(fresh.row_at(2).id).key == "t1/wf1/s0"


def test_the_index_follows_a_chain_that_was_replaced(project: Path) -> None:
    first = Record.open(project, clock=stepping_clock(), who="w")
    first.append_many([("a.b", f"k{i}", {}) for i in range(3)])
    first.close()
    repo = pygit2.Repository(str(project))
    repo.references.delete(RECORD_REF)  # someone rewrote the record
    second = Record.open(project, clock=stepping_clock(10**9), who="w")
    second.append("x.y", "other", {})
    assert [r.key for r in Record.open(project).rows()] == ["other"]


WRITER = """
import sys
from hale_runtime.record import Record
rec = Record.open(sys.argv[1])
for i in range(int(sys.argv[3])):
    rec.append("load.row", f"{sys.argv[2]}/{i}", {"i": i})
"""


def test_two_processes_appending_in_one_clone_lose_nothing(project: Path) -> None:
    writers = [run_python(WRITER, str(project), name, "60") for name in ("a", "b")]
    for writer in writers:
        assert writer.wait(timeout=120) == 0, writer.stderr.read()
    keys = [r.key for r in Record.open(project).rows()]
    assert sorted(keys) == sorted(f"{n}/{i}" for n in "ab" for i in range(60))
    for name in "ab":  # each writer's rows keep their own order
        assert [k for k in keys if k.startswith(name)] == [f"{name}/{i}" for i in range(60)]


def test_receipts_are_blobs_git_prints(record: Record, project: Path) -> None:
    digest = record.put_receipt({"name": "x", "kind": "practice", "text": "é"})
    assert record.put_receipt({"kind": "practice", "text": "é", "name": "x"}) == digest
    shown = subprocess.check_output(
        ["git", "-C", str(project), "cat-file", "-p", f"refs/dna/receipts/{digest}"], text=True
    )
    assert shown == '{"kind":"practice","name":"x","text":"é"}'
    assert record.get_receipt(digest) == {"kind": "practice", "name": "x", "text": "é"}
    assert record.receipts() == [digest]
    with pytest.raises(RecordError, match="no such receipt"):
        record.get_receipt("0" * 64)


def _ref_file(project: Path) -> Path:
    return project / ".git" / RECORD_REF


def test_a_damaged_ref_is_one_line_naming_it(record: Record, project: Path) -> None:
    record.append("a.b", "k", {})
    _ref_file(project).write_text("garbage\n")
    with pytest.raises(RecordError) as caught:
        Record.open(project).rows()
    assert RECORD_REF in str(caught.value) and "\n" not in str(caught.value)
    _ref_file(project).write_text("1" * 40 + "\n")
    with pytest.raises(RecordError, match=f"damaged: {RECORD_REF} points at 1111"):
        Record.open(project).rows()


def test_a_foreign_object_under_the_ref_is_one_line_naming_it(
    record: Record, project: Path
) -> None:
    repo = pygit2.Repository(str(project))
    repo.references.create(RECORD_REF, repo.create_blob(b"hello"))
    with pytest.raises(RecordError, match=f"{RECORD_REF} holds a foreign object: a blob"):
        record.rows()
    tree = repo.TreeBuilder().write()
    sig = pygit2.Signature("x", "x@x", 1, 0)
    commit = repo.create_commit(None, sig, sig, "not rows", tree, [])
    repo.references.create(RECORD_REF, commit, force=True)
    (placeholder,) = Record.open(project).rows(poison=True)  # a commit: read through (test_foreign)
    assert placeholder.body["why"].startswith(f"commit {commit} is foreign: its tree holds nothing")
    digest = "a" * 64
    repo.references.create(f"refs/dna/receipts/{digest}", commit)
    with pytest.raises(RecordError, match=f"refs/dna/receipts/{digest} holds a foreign object"):
        record.get_receipt(digest)


def test_a_lock_left_behind_is_named(record: Record, project: Path, monkeypatch) -> None:
    record.append("a.b", "k", {})
    monkeypatch.setattr(store, "LOCK_WAIT_S", 0.2)
    (project / ".git" / f"{RECORD_REF}.lock").write_text("")
    with pytest.raises(RecordError, match=r"refs/dna/record stays locked by .*record\.lock"):
        record.append("a.b", "j", {})


def test_the_remote_follows_the_config_while_the_record_is_open(
    record: Record, project: Path
) -> None:
    """The remote is kept between reads, and a remote added by git meanwhile is seen."""
    assert record.remote() is None
    subprocess.run(["git", "-C", str(project), "remote", "add", "mirror", "/nowhere"], check=True)
    assert record.remote() == "mirror"
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin", "/elsewhere"], check=True)
    assert record.remote() == "origin"
    subprocess.run(["git", "-C", str(project), "config", "hale.remote", "mirror"], check=True)
    assert record.remote() == "mirror"


def test_a_packed_ref_and_a_logged_one_still_move(record: Record, project: Path) -> None:
    """The ref moves by git's lock protocol here; a packed ref or one with a reflog
    is moved through libgit2, and git reads each move."""
    record.append("a.b", "k1", {})
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "pack-refs", "--all"], check=True)
    assert not (project / ".git" / RECORD_REF).exists()
    record.append("a.b", "k2", {})
    logs = project / ".git" / "logs" / RECORD_REF
    logs.parent.mkdir(parents=True, exist_ok=True)
    logs.write_text("")
    record.append("a.b", "k3", {})
    assert logs.read_text().count("\n") == 1  # libgit2 appended to the reflog git keeps
    logs.unlink()
    record.append("a.b", "k4", {})
    shown = subprocess.run([*git, "rev-parse", RECORD_REF], capture_output=True, text=True)
    assert shown.stdout.strip() == str(record.repo.references[RECORD_REF].target)
    assert [r.key for r in Record.open(project).rows()] == ["k1", "k2", "k3", "k4"]
    assert not (project / ".git" / f"{RECORD_REF}.lock").exists()


def test_a_moved_ref_is_not_moved_over(record: Record, project: Path) -> None:
    record.append("a.b", "k1", {})
    repo = record.repo
    tip = repo.references[RECORD_REF].target
    mine = store.write_commit(repo, tip, "x\n", "w", 1000)
    theirs = store.write_commit(repo, tip, "y\n", "w", 2000)
    assert store.move_ref(repo, RECORD_REF, tip, theirs)
    assert not store.move_ref(repo, RECORD_REF, tip, mine)
    assert repo.references[RECORD_REF].target == theirs
    assert not (project / ".git" / f"{RECORD_REF}.lock").exists()


def test_a_torn_object_is_made_whole_when_written_again(project: Path) -> None:
    repo = pygit2.Repository(str(project))
    blob = store.write_blob(repo, b"rows\n" * 100)
    path = project / ".git" / "objects" / str(blob)[:2] / str(blob)[2:]
    whole = path.read_bytes()
    path.chmod(0o644)
    path.write_bytes(whole[:5])  # a write a kill cut short
    assert store.write_blob(repo, b"rows\n" * 100) == blob
    assert path.read_bytes() == whole
    assert pygit2.Repository(str(project))[blob].data == b"rows\n" * 100


def test_a_lock_a_killed_writer_left_long_ago_is_moved_aside(
    record: Record, project: Path, monkeypatch
) -> None:
    record.append("a.b", "k", {})
    monkeypatch.setattr(store, "LOCK_WAIT_S", 0.2)
    lock = project / ".git" / f"{RECORD_REF}.lock"
    lock.write_text("")
    old = time.time() - store.STALE_LOCK_S - 1
    os.utime(lock, (old, old))
    record.append("a.b", "j", {})  # the writer goes on: the lock moved aside
    assert not lock.exists()
    assert [r.key for r in Record.open(project).rows()][-1] == "j"
    assert list((project / ".git" / "hale" / "stale-locks").iterdir())
