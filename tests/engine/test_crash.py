"""Crash safety with real processes: an organization subprocess runs 200
executions of a 3-step definition with a child and retries, and is SIGKILLed
at seeded random points (at least 20 times) and started again each time. At
the end every execution has settled, and the record holds exactly one claim
and one `attempt.outcome` per attempt and one `workflow.settled` per
execution: no duplicate, no loss. HALE_CRASH_SEED replays a failing run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from engine_helpers import make_project

from hale_runtime.record import Record

WORKER = Path(__file__).with_name("crash_worker.py")
REPO = Path(__file__).resolve().parents[2]
EXECUTIONS = 200
KILLS = 24


def start(root: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(root), str(EXECUTIONS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def left_lock(root: Path) -> bool:
    """A writer killed between locking the record's ref and renaming leaves the lock;
    with no process running, remove it as its message tells a person to."""
    lock = root / ".git" / "refs" / "dna" / "record.lock"
    if lock.exists():
        lock.unlink()
        return True
    return False


def test_killed_at_random_points_the_record_holds_each_transition_once(tmp_path):
    seed = int(os.environ.get("HALE_CRASH_SEED", "20261129"))
    rng = random.Random(seed)
    root = make_project(tmp_path / "org")
    kills = 0
    while kills < KILLS:
        worker = start(root)
        ready = worker.stdout.readline()
        assert ready == "ready\n", f"seed {seed}: {ready!r} {worker.stderr.read()}"
        time.sleep(rng.uniform(0.0, 0.04))  # the kill point, not a wait for time
        if worker.poll() is not None:
            break  # it finished the workload before this kill
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        worker.stdout.close()
        worker.stderr.close()
        left_lock(root)
        kills += 1
    assert kills >= 20, f"seed {seed}: the workload finished after {kills} kills"
    final = start(root)
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, f"seed {seed}: {err}"
    assert out.endswith(f"settled {EXECUTIONS}\n")
    check_record(Record.open(root), seed)


def check_record(record: Record, seed: int) -> None:
    by_kind: dict[str, Counter] = {}
    for r in record.rows():
        by_kind.setdefault(r.kind, Counter())[r.key] += 1
    admitted = by_kind["workflow.admitted"]
    roots = [k for k in admitted if "." not in k]
    assert len(roots) == EXECUTIONS, f"seed {seed}"
    assert set(by_kind["workflow.settled"]) == set(admitted), (
        f"seed {seed}: an execution never settled"
    )
    attempts = by_kind["attempt.admitted"]
    for kind in ("workflow.admitted", "workflow.settled", "attempt.admitted", "attempt.claimed",
                 "attempt.outcome", "work.settled", "step.registered"):  # fmt: skip
        twice = [k for k, n in by_kind[kind].items() if n != 1]
        assert not twice, f"seed {seed}: {kind} more than once for {twice[:5]}"
    assert set(by_kind["attempt.outcome"]) == set(attempts), f"seed {seed}"
    assert set(by_kind["attempt.claimed"]) == set(attempts), f"seed {seed}"
    retried = [k for k in attempts if k.endswith("/a1")]
    assert retried, "the workload has retries"
