"""Durable appends: rows reach the disk (the journal) before the ref shows them,
killed writers leave all or none of a batch, and a power loss (simulated by
putting the ref back, or deleting the objects it names) is recovered from the
journal on the next open. The suite runs relaxed (tests/conftest.py); these
tests run durable."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_helpers import make_project, run_python, stepping_clock
from test_kill import WRITER, wait_for

from hale_runtime.memory import MemoryFailed, open_memory
from hale_runtime.record import Record, RecordError, journal, store


@pytest.fixture(autouse=True)
def _durable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALE_DNA_DURABILITY", "full")


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every fsync/fdatasync this process makes: (call, the file's path), in order."""
    seen: list[tuple[str, str]] = []
    for name in ("fsync", "fdatasync"):
        real = getattr(os, name)

        def observed(fd: int, real=real, name=name) -> None:
            seen.append((name, os.readlink(f"/proc/self/fd/{fd}")))
            real(fd)

        monkeypatch.setattr(os, name, observed)
    return seen


def open_record(project: Path) -> Record:
    return Record.open(project, clock=stepping_clock(), who="ann@box:c0ffee00")


def test_the_rows_are_synced_before_the_ref_shows_them(project: Path, monkeypatch):
    record = open_record(project)
    record.append("first.row", "a", {})
    seen_at_sync: list[tuple[str | None, bytes]] = []
    real = os.fdatasync

    def look(fd: int) -> None:
        real(fd)
        tip = store.read_ref(record.repo, store.RECORD_REF)
        seen_at_sync.append((str(tip), Path(os.readlink(f"/proc/self/fd/{fd}")).read_bytes()))

    monkeypatch.setattr(os, "fdatasync", look)
    before = store.read_ref(record.repo, store.RECORD_REF)
    row = record.append_many([("second.row", "b", {"n": 1}), ("second.row", "c", {"n": 2})])[0]
    assert len(seen_at_sync) == 1  # one sync for the batch
    tip_then, journal_then = seen_at_sync[0]
    assert tip_then == str(before)  # the ref did not show the rows yet ...
    assert row.id.encode() in journal_then  # ... and they were in the journal
    assert store.read_ref(record.repo, store.RECORD_REF) != before


def test_a_batch_costs_one_sync_however_many_rows_it_holds(project: Path, syncs):
    record = open_record(project)
    record.append("first.row", "a", {})  # makes the journal (zeros to its size, flushed once)
    syncs.clear()
    record.append_many([("many.row", f"k{i}", {"i": i}) for i in range(500)])
    record.append("one.row", "k", {})
    assert [call for call, _ in syncs] == ["fdatasync", "fdatasync"]
    assert all(path.endswith("hale/record.journal") for _, path in syncs)


def test_close_settles_the_journal_so_a_clean_open_has_nothing_to_recover(project: Path, syncs):
    record = open_record(project)
    record.append("a.row", "a", {})
    record.close()
    settled, frames = journal.Journal(Path(record.repo.path) / "hale").read()
    assert frames == []
    assert settled == str(store.read_ref(record.repo, store.RECORD_REF))


def test_the_journal_settles_once_it_is_full_and_overwrites_in_place(project: Path, monkeypatch):
    record = open_record(project)
    record.append("a.row", "a", {})
    path = Path(record.repo.path) / "hale" / "record.journal"
    assert path.stat().st_size == journal.SIZE
    roomy = journal.SETTLE_BYTES
    monkeypatch.setattr(journal, "SETTLE_BYTES", journal.HEAD + 1)  # every append fills it
    record.append("b.row", "b", {})
    monkeypatch.setattr(journal, "SETTLE_BYTES", roomy)
    settled, frames = journal.Journal(path.parent).read()
    assert (settled, frames) == (str(store.read_ref(record.repo, store.RECORD_REF)), [])
    record.append("c.row", "c", {})  # the next generation, written over the last one's frames
    frames = journal.Journal(path.parent).read()[1]
    assert [text.count("\n") for text in frames] == [2]  # the row after its batch's signature
    assert path.stat().st_size == journal.SIZE


def test_a_writer_killed_right_after_the_sync_has_its_whole_batch(project: Path, tmp_path: Path):
    open_record(project).append("kept.row", "before", {})
    marker = tmp_path / "journalled"
    env = {**os.environ, store.JOURNALLED_PAUSE_ENV: str(marker)}
    writer = run_python(WRITER, str(project), env=env)
    wait_for(marker, writer)
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=10) == -signal.SIGKILL
    keys = [r.key for r in Record.open(project).rows()]
    assert keys == ["before", *[f"k{i}" for i in range(10)]]  # recovered, all of it
    fsck = subprocess.run(["git", "-C", str(project), "fsck", "--no-dangling"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr


def test_a_ref_that_fell_back_is_carried_forward_from_the_journal(project: Path):
    record = open_record(project)
    record.append("a.row", "a", {})
    settled = store.read_ref(record.repo, store.RECORD_REF)
    record.close()
    record = open_record(project)
    record.append_many([("b.row", "b", {}), ("c.row", "c", {})])
    store.set_ref(record.repo, store.RECORD_REF, settled)  # the ref move did not reach the disk
    assert [r.key for r in open_record(project).rows()] == ["a", "b", "c"]


def test_a_ref_naming_lost_objects_is_set_back_to_the_settled_tip(project: Path):
    record = open_record(project)
    record.append("a.row", "a", {})
    record.close()
    record = open_record(project)
    record.append("b.row", "b", {})
    tip = str(store.read_ref(record.repo, store.RECORD_REF))
    os.remove(Path(record.repo.path) / "objects" / tip[:2] / tip[2:])  # never reached the disk
    with pytest.raises(RecordError):
        store.chain_back(pygit2.Repository(str(project)), pygit2.Oid(hex=tip), lambda h: False, "x")
    assert [r.key for r in open_record(project).rows()] == ["a", "b"]


def test_relaxed_syncs_nothing(project: Path, syncs, monkeypatch):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "relaxed")
    record = open_record(project)
    record.append_many([("a.row", "a", {}), ("b.row", "b", {})])
    record.put_receipt({"kind": "practice", "text": "x"})
    record.close()
    assert syncs == []
    assert not (Path(record.repo.path) / "hale" / "record.journal").exists()


def test_a_receipt_is_synced_blob_then_ref(project: Path, syncs):
    digest = open_record(project).put_receipt({"kind": "practice", "text": "x"})
    paths = [path for _, path in syncs]
    ref = str(Path(pygit2.Repository(str(project)).path) / "refs" / "dna" / "receipts" / digest)
    assert ref in paths
    assert paths.index(ref) > 0  # the blob (and its folder) came first
    assert "/objects/" in paths[0]


def test_an_unknown_durability_is_refused_naming_the_fix(project: Path, monkeypatch, tmp_path):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "off")
    with pytest.raises(RecordError, match="HALE_DNA_DURABILITY=off names no durability"):
        open_record(project)
    with pytest.raises(MemoryFailed, match="`relaxed` for tests and benches only"):
        open_memory(tmp_path / "memory.sqlite3")


@pytest.mark.parametrize(("mode", "expected"), [("full", 2), ("relaxed", 1)])
def test_sqlite_memory_commits_full_unless_relaxed(tmp_path: Path, monkeypatch, mode, expected):
    monkeypatch.setenv("HALE_DNA_DURABILITY", mode)
    with open_memory(tmp_path / "memory.sqlite3") as memory:
        assert memory._read("PRAGMA synchronous") == [(expected,)]
        assert memory._read("PRAGMA journal_mode") == [("wal",)]


lines = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(lines, min_size=1, max_size=4),
    who=st.from_regex(r"([A-Za-z0-9@:._-]{1,8}( [A-Za-z0-9@:._-]{1,8}){0,2})?", fullmatch=True),
    at=st.integers(0, 2**40),
    with_parent=st.booleans(),
)
def test_the_objects_written_are_the_ones_libgit2_writes(
    tmp_path_factory, texts, who, at, with_parent
):
    path = make_project(tmp_path_factory.mktemp("objects") / "p")
    repo = pygit2.Repository(str(path))
    text = "".join(t + "\n" for t in texts)
    parent = store.write_commit(repo, None, "root\n", "x", 0) if with_parent else None
    ours = store.write_commit(repo, parent, text, who, at)
    sig = store.commit_signature(who, at)
    theirs = store._write_commit_libgit2(repo, parent, text, sig, f"{len(texts)} row(s)\n")
    assert ours == theirs
    assert store.commit_content(repo, ours, "test") == (
        str(parent) if parent else None,
        text.encode(),
    )
