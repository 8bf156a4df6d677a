"""Held appends (`Record.held`, an engine's pump): each is journalled, so
durable, when it returns, and the hold's rows reach git as one commit at its
end. A writer killed while holding loses no row; another process's writer
waits for the hold, or for the moment it lets others in; a ref moved under
held rows gets them on top. Real repositories, real processes and signals."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pygit2
import pytest
from record_helpers import run_python, stepping_clock
from waiting import wait_for

from hale_runtime.record import Record, journal, record, store
from hale_runtime.record.row import new_row


@pytest.fixture(autouse=True)
def _durable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALE_DNA_DURABILITY", "full")
    monkeypatch.setattr(record, "HOLD_S", 60.0)  # one hold, however slow the machine


def open_record(project: Path) -> Record:
    return Record.open(project, clock=stepping_clock(), who="ann@box:c0ffee00", sign=False)


def commits(project: Path) -> int:
    out = subprocess.run(
        ["git", "-C", str(project), "rev-list", "--count", store.RECORD_REF],
        capture_output=True,
        text=True,
    )
    return int(out.stdout) if out.returncode == 0 else 0


def keys_in_git(project: Path) -> list[str]:
    """The rows' keys as a fresh process reads them from git."""
    reader = run_python(
        "import sys; from hale_runtime.record import Record\n"
        "print(' '.join(r.key for r in Record.open(sys.argv[1]).rows()))",
        str(project),
    )
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    return out.split()


def test_held_rows_are_durable_at_once_and_reach_git_as_one_commit(project: Path):
    rec = open_record(project)
    rec.append("kept.row", "before", {})
    tip = store.read_ref(rec.repo, store.RECORD_REF)
    with rec.held():
        for n in range(3):
            rec.append("held.row", f"h{n}", {"n": n})
            assert [r.key for r in rec.rows()][-1] == f"h{n}"  # read here at once
        assert store.read_ref(rec.repo, store.RECORD_REF) == tip  # not in git yet
        _, texts = journal.Journal(project / ".git" / "hale").read()
        assert sum(text.count('"key":"h') for text in texts) == 3  # but on disk
    assert commits(project) == 2  # the hold's rows: one commit
    assert keys_in_git(project) == ["before", "h0", "h1", "h2"]
    assert [r.seq for r in rec.rows()] == [1, 2, 3, 4]
    rec.append("kept.row", "after", {})  # an append after the hold is its own commit
    assert commits(project) == 3


HOLDER = """
import sys, time
from hale_runtime.record import Record
rec = Record.open(sys.argv[1], sign=False)
with rec.held():
    rec.append("held.row", "a", {})
    rec.append("held.row", "b", {})
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_writer_killed_while_holding_loses_no_row(project: Path):
    open_record(project).append("kept.row", "before", {})
    holder = run_python(HOLDER, str(project))
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.send_signal(signal.SIGKILL)
    assert holder.wait(timeout=10) == -signal.SIGKILL
    assert commits(project) == 1  # the held rows never reached git
    assert keys_in_git(project) == ["before", "a", "b"]  # the next open recovers them
    fsck = subprocess.run(["git", "-C", str(project), "fsck", "--no-dangling"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr


WRITER = """
import sys
from hale_runtime.record import Record
Record.open(sys.argv[1], sign=False).append("other.row", "other", {})
"""


def queued_on_a_lock(pid: int) -> bool:
    """Whether `pid` waits on a lock now: a `->` line of /proc/locks names it."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "->" and fields[5] == str(pid):
            return True
    return False


def test_another_writer_waits_for_the_hold_and_comes_in_when_it_lets_others_in(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(record, "HOLD_S", 0.5)
    rec = open_record(project)
    with rec.held():
        rec.append("held.row", "p1", {})
        writer = run_python(WRITER, str(project))
        wait_for(lambda: queued_on_a_lock(writer.pid), 60, "the writer at the journal's lock", 0.02)
        # stopped while it waits, as a loaded machine leaves a woken waiter unscheduled:
        # letting others in must wait for its turn, not hand the lock straight back
        os.kill(writer.pid, signal.SIGSTOP)
        threading.Timer(1.0, os.kill, (writer.pid, signal.SIGCONT)).start()
        time.sleep(0.5)  # the hold's age past HOLD_S
        rec.append("held.row", "p2", {})  # past HOLD_S: published, others let in
        assert writer.wait(timeout=30) == 0, writer.stderr.read() if writer.stderr else ""
        rec.append("held.row", "p3", {})  # on top of what came in
        assert [r.key for r in rec.rows()] == ["p1", "p2", "other", "p3"]
    assert keys_in_git(project) == ["p1", "p2", "other", "p3"]


def test_held_rows_go_on_top_of_a_ref_moved_under_them(project: Path):
    rec = open_record(project)
    rec.append("kept.row", "before", {})
    with rec.held():
        rec.append("held.row", "h1", {})
        # another process moves the ref (a sync takes no journal lock): a foreign commit
        repo = pygit2.Repository(str(project))
        tip = store.read_ref(repo, store.RECORD_REF)
        _, line = new_row("foreign.row", "f", {}, "bob@box:c2", 1_767_225_700_000, "c2")
        oid = store.write_commit(repo, tip, line + "\n", "bob@box:c2", 1_767_225_700_000)
        assert store.move_ref(repo, store.RECORD_REF, tip, oid)
        rec.append("held.row", "h2", {})
        assert [r.key for r in rec.rows()] == ["before", "f", "h1", "h2"]
    assert keys_in_git(project) == ["before", "f", "h1", "h2"]
    assert [r.seq for r in open_record(project).rows()] == [1, 2, 3, 4]
    fsck = subprocess.run(["git", "-C", str(project), "fsck", "--no-dangling"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr


def test_relaxed_holds_nothing_back(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "relaxed")
    rec = open_record(project)
    with rec.held():
        rec.append("held.row", "a", {})
        rec.append("held.row", "b", {})
        assert commits(project) == 2  # no journal to hold them in: each is its commit
