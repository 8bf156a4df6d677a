"""The git store kept packed: maintenance in the background, under a claim,
bounded in time, and what `hale dna status` says of the store."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pygit2
import pytest

from hale_runtime.memory import open_memory
from hale_runtime.node.maintenance import LOOSE_AT, Maintenance, last_run, store_size
from hale_runtime.node.status import gather, render
from hale_runtime.record import Record


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    pygit2.init_repository(str(root))
    record = Record.open(root)
    for n in range(LOOSE_AT // 3 + 20):  # three loose objects a commit
        record.append("a.b", f"k{n}", {"n": n, "receipt": "r" * 200})
    return root


def memory(root: Path):
    m = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    m.migrate()
    return m


def finish(m: Maintenance, limit_s: float = 120.0) -> str:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        said = m.tick()
        if said:
            return said
        time.sleep(0.05)
    raise AssertionError("the maintenance did not finish")


def test_loose_objects_are_packed_in_the_background(project: Path) -> None:
    gitdir = project / ".git"
    before = store_size(gitdir)
    assert before.loose >= LOOSE_AT and last_run(gitdir) is None
    m = Maintenance(gitdir, memory(project), "a@box:1", check_s=0.0)
    assert m.tick() == "started" and m.running is not None  # the tick goes on meanwhile
    assert finish(m) == "packed"
    after = store_size(gitdir)
    assert after.loose == 0 and after.packs >= 1 and after.total < before.total / 3
    note = last_run(gitdir)
    assert note is not None and note["before"]["loose"] == before.loose
    assert [r.key for r in Record.open(project).rows()][:2] == ["k0", "k1"]  # nothing lost
    assert m.tick() == ""  # packed: nothing due


def test_maintenance_runs_under_a_claim_and_never_twice_at_once(project: Path) -> None:
    gitdir = project / ".git"
    a = Maintenance(gitdir, memory(project), "a@box:1", check_s=0.0)
    b = Maintenance(gitdir, memory(project), "b@box:2", check_s=0.0)
    assert a.start() == "started"
    assert b.tick() == "held elsewhere" and b.running is None
    first = a.tick()  # a polls its own run; it starts no second one
    if first != "packed":
        assert first == "" and finish(a) == "packed"
    for n in range(LOOSE_AT // 3 + 5):
        Record.open(project).append("a.c", f"j{n}", {"n": n})
    assert b.tick() == "started"  # released: the next body may run it
    assert finish(b) == "packed"


def test_a_run_past_its_bound_is_stopped(project: Path) -> None:
    said: list[str] = []
    m = Maintenance(project / ".git", memory(project), "a@box:1", say=said.append, max_s=0.0)
    assert m.start() == "started"
    time.sleep(0.01)
    result = finish(m)
    if result != "packed":  # git may finish the repack before the first poll
        assert result == "stopped after 0s" and said == ["maintenance: stopped after 0s"]
    fresh = Maintenance(project / ".git", memory(project), "b@box:2")
    assert fresh.start() == "started"  # the claim was given back either way
    finish(fresh)
    subprocess.run(["git", "-C", str(project), "fsck", "--no-progress"], check=True)


def test_status_says_the_store_size_and_when_it_was_packed(project: Path) -> None:
    lines = render(gather(project, timeout_s=1.0))
    (store,) = [line for line in lines if line.startswith("record store:")]
    assert "loose objects" in store and store.endswith("last packed never")
    m = Maintenance(project / ".git", memory(project), "a@box:1", check_s=0.0)
    m.tick()
    finish(m)
    (store,) = [line for line in render(gather(project, 1.0)) if line.startswith("record store:")]
    assert "(0 loose objects, 1 pack); last packed 20" in store
