"""Sync between clones through a bare remote: rebase, dedupe, one order, stamping."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from record_helpers import ids, run_python, stepping_clock

from hale_runtime.record import RECORD_REF, Record, RecordError, tracking_ref
from hale_runtime.record import sync as sync_module
from hale_runtime.record.sync import _push


def open_clone(path: Path, start: int = 1_767_225_600_000) -> Record:
    return Record.open(path, clock=stepping_clock(start))


def test_without_a_remote_every_row_is_stamped(record: Record) -> None:
    record.append("a.b", "k", {})
    assert record.sync().remote is None
    assert record.stamped_count() == 1
    assert ids(record, stamped_only=True) == ids(record)


def test_rows_travel_and_are_stamped_once_the_remote_holds_them(
    make_clone: Callable[[str], Path], remote: Path
) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"))
    a.append_many([("claim.taken", "plan/i7", {"token": 1}), ("claim.released", "plan/i7", {})])
    assert a.rows(stamped_only=True) == [] and a.cursor(stamped_only=True) == 0
    report = a.sync()  # the two rows, after their batch's signature row
    assert (report.remote, report.sent, report.received) == ("origin", 3, 0)
    assert a.stamped_count() == 3
    assert b.sync().received == 3
    assert ids(b) == ids(a) == ids(b, stamped_only=True)
    remote_tip = pygit2.Repository(str(remote)).references[RECORD_REF].target
    assert a.repo.references[tracking_ref("origin")].target == remote_tip


def test_diverged_clones_converge_on_one_order_without_duplicates(
    make_clone: Callable[[str], Path],
) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"), 2_000_000_000_000)
    a.append("x.a", "1", {})
    a.sync()
    b.sync()
    a.append_many([("x.a", "2", {}), ("x.a", "3", {})])
    b.append("x.b", "1", {})
    b.append("x.b", "2", {})
    a.sync()
    assert [r.key for r in b.rows(stamped_only=True)] == ["1"]
    b.sync()  # b's unstamped rows go on top of a's
    a.sync()
    assert [f"{r.kind}:{r.key}" for r in a.rows()] == ["x.a:1", "x.a:2", "x.a:3", "x.b:1", "x.b:2"]
    assert ids(a) == ids(b) == ids(b, stamped_only=True)


def test_the_same_row_in_two_clones_is_one_row(make_clone: Callable[[str], Path]) -> None:
    paths = make_clone("a"), make_clone("b")
    for path in paths:  # two clones that claim one identity write identical rows
        pygit2.Repository(str(path)).config["hale.clone"] = "shared00"
    a, b = (Record.open(p, clock=lambda: 42, who="node@host:shared00") for p in paths)
    a.append("claim.taken", "plan/i7", {"token": 1})
    b.append("claim.taken", "plan/i7", {"token": 1})
    b.append("claim.released", "plan/i7", {})
    a.sync()
    b.sync()
    a.sync()
    assert [r.kind for r in a.rows()] == ["claim.taken", "claim.released"]
    assert ids(a) == ids(b)


def test_a_rejected_push_is_detected(make_clone: Callable[[str], Path]) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"))
    a.append("x.a", "1", {})
    a.sync()
    stale = b.append("x.b", "1", {})
    assert stale.seq == 2  # after its batch's signature row
    tip = b.repo.references[RECORD_REF].target  # not on top of a's row
    refusal = _push(b.repo, "origin", tip)
    assert refusal and "rejected" in refusal
    b.sync()
    assert [r.key for r in Record.open(b.repo.workdir).rows()] == ["1", "1"]


def test_a_refusal_reported_through_the_callback_is_a_rejection(
    make_clone: Callable[[str], Path], remote: Path, monkeypatch
) -> None:
    a = open_clone(make_clone("a"))
    a.append("x.a", "1", {})
    a.sync()
    a.append("x.a", "2", {})
    (remote / f"{RECORD_REF}.lock").write_text("")  # the remote cannot move its ref
    tip = a.repo.references[RECORD_REF].target
    refusal = _push(a.repo, "origin", tip)
    assert refusal and refusal.startswith(f"{RECORD_REF}: ") and "lock" in refusal
    monkeypatch.setattr(sync_module, "SYNC_BUDGET_S", 0.3)  # rounds end with the time budget
    with pytest.raises(RecordError, match=r"did not land in \d+\.\ds \((\d+) of \1 pushes refused"):
        a.sync()
    assert a.stamped_count() == 2  # the first batch: its signature row and its row


def test_receipts_travel_with_the_rows(make_clone: Callable[[str], Path]) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"))
    digest = a.put_receipt({"name": "operating/x"})
    a.sync()
    b.sync()
    assert b.get_receipt(digest) == {"name": "operating/x"}


def test_a_clone_holding_receipts_keeps_receiving_rows(make_clone: Callable[[str], Path]) -> None:
    # receipts are refs to blobs; fetching must not trip over them when it negotiates
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"))
    a.put_receipt({"name": "operating/x"})
    a.append("review.opened", "k:1", {})
    a.sync()
    b.sync()
    for n in range(3):
        a.append("row.later", f"r{n}", {})
        a.sync()
        b.append("row.other", f"o{n}", {})
        b.sync()
    a.sync()
    assert [r.id for r in a.rows()] == [r.id for r in b.rows()]
    assert {r.key for r in b.rows()} >= {"r0", "r1", "r2", "o0", "o1", "o2"}


CLONE_WORKER = """
import random, sys, time
from hale_runtime.record import Record
path, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rec = Record.open(path)
rng = random.Random(name)
written = 0
for round_no in range(rounds):
    batch = [("load.row", f"{name}/{written + i}", {"round": round_no}) for i in range(rng.randint(1, 3))]
    rec.append_many(batch)
    written += len(batch)
    if rng.random() < 0.6:
        rec.sync()
    time.sleep(rng.random() * 0.01)
rec.sync()
print(written)
"""


def test_three_clones_in_three_processes_converge(make_clone: Callable[[str], Path]) -> None:
    paths = {name: make_clone(name) for name in ("a", "b", "c")}
    workers = {n: run_python(CLONE_WORKER, str(p), n, "25") for n, p in paths.items()}
    written = {}
    for name, worker in workers.items():
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        written[name] = int(out)
    records = [Record.open(path) for path in paths.values()]
    for record in records * 2:  # everyone hears everyone's last push
        record.sync()
    orders = [ids(record) for record in records]
    assert orders[0] == orders[1] == orders[2]
    keys = [r.key for r in records[0].rows()]
    assert len(keys) == len(set(keys)) == sum(written.values())
    assert set(keys) == {f"{n}/{i}" for n, count in written.items() for i in range(count)}
    assert all(r.stamped_count() == r.cursor() for r in records)


def test_each_sync_sees_what_the_remote_holds_now(make_clone: Callable[[str], Path]) -> None:
    a, b = open_clone(make_clone("a")), open_clone(make_clone("b"))
    for n in range(3):
        a.append("row.a", f"a{n}", {})
        a.sync()
        b.sync()
        assert {r.key for r in b.rows()} == {f"a{i}" for i in range(n + 1)}


def test_rows_travel_through_a_remote_that_is_not_bare(tmp_path: Path) -> None:
    """`git clone proj c1`: origin is the project's own work tree. git itself
    pushes refs/dna/* to it (libgit2's local transport refuses a non-bare one)."""
    import subprocess

    proj = tmp_path / "proj"
    subprocess.run(["git", "init", "-q", "--initial-branch=main", str(proj)], check=True)
    subprocess.run(["git", "-C", str(proj), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "genome"], check=True)  # fmt: skip
    clones = []
    for name in ("c1", "c2"):
        subprocess.run(["git", "clone", "-q", str(proj), str(tmp_path / name)], check=True)
        clones.append(open_clone(tmp_path / name))
    c1, c2 = clones
    c1.append("schedule.paused", "nightly", {"by": "ann"})
    assert c1.sync().sent == 2  # the row, after its batch's signature row
    at_proj = Record.open(proj)
    assert [r.kind for r in at_proj.rows()] == ["schedule.paused"]
    assert c2.sync().received == 2 and ids(c2) == ids(c1) == ids(at_proj)
    assert c1.stamped_count() == 2


def test_a_rejected_push_backs_off_jittered_and_bounded() -> None:
    """Losers of a push race wait a random while under a doubling cap (full
    jitter), so they spread out instead of meeting at once again; no wait
    passes half a second, and the rounds end with the time budget."""
    import random

    rng = random.Random(7)
    for rejected in range(1, 40):
        cap = min(sync_module.BACKOFF_MAX_S, sync_module.BACKOFF_MIN_S * 2**rejected)
        waits = [sync_module.backoff_s(rejected, rng) for _ in range(50)]
        assert all(0.0 <= w <= cap for w in waits)
        assert len(set(waits)) == 50  # jittered: no two losers wait alike
    assert sync_module.SYNC_BUDGET_S < 30.0  # inside a lease (30 s by default)
