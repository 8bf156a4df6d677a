"""End to end through `hale dna dev`: ask, work the attempt as a leg, see it settled."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HALE = str(Path(sys.executable).parent / "hale")
FAST = {
    "HALE_DNA_TICK": "0.2",
    "HALE_DNA_LEASE_S": "5",
    "HALE_DNA_LEASE_RENEW_S": "1",
    "HALE_DNA_LEASE_MARGIN_S": "1",
    "HALE_DNA_GENOME_POLL": "0",
    "HALE_DNA_ANSWER_WAIT": "30",
}


def hale(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **FAST}
    return subprocess.run(
        [HALE, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=90
    )


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Path]:
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    root = tmp_path / "p"
    log = open(tmp_path / "node.log", "w")
    node = subprocess.Popen(
        [HALE, "dna", "dev"],
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **FAST},
    )
    deadline = time.monotonic() + 60
    while "running;" not in (tmp_path / "node.log").read_text():
        assert node.poll() is None and time.monotonic() < deadline, (
            tmp_path / "node.log"
        ).read_text()
        time.sleep(0.1)
    yield root
    node.send_signal(signal.SIGTERM)
    try:
        node.wait(30)
    except subprocess.TimeoutExpired:
        node.kill()
        node.wait(10)
    log.close()


def test_ask_work_and_settle_through_a_running_node(running: Path) -> None:
    said = (running.parent / "node.log").read_text()
    assert re.search(r"^face: http://127\.0\.0\.1:\d+/\?token=\S+$", said, re.M), said
    planned = hale(running, "dna", "task", "create", "add a health check endpoint")
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.startswith("task t1 born: ask-edit@1 for ask i-")
    asked = hale(running, "dna", "task", "create", "--judgment", "is the readme clear")
    assert asked.stdout.startswith("task t2 born: ask-judge@1"), asked.stdout + asked.stderr
    empty = hale(running, "dna", "task", "create", "  ")
    assert empty.returncode == 1
    assert empty.stdout.strip() == "task create: refused: the Board's gate admits no empty ask"

    claimed = hale(running, "dna", "work", "next")
    assert claimed.returncode == 0, claimed.stderr
    assert claimed.stdout.startswith("attempt t2/wf1/s0/j/a0 (task t2), leased to leg:")
    granted = hale(running, "dna", "work", "allowance")
    assert granted.stdout.strip() == "allowance: 2000000 micro-dollars granted for t2/wf1/s0/j/a0"
    assert hale(running, "dna", "work", "call", "judge the readme").returncode == 0
    submitted = hale(running, "dna", "work", "submit", "--outcome", "succeeded", "--note", "clear")
    assert submitted.stdout.strip() == "attempt t2/wf1/s0/j/a0 settled succeeded (clear)"
    assert hale(running, "dna", "work", "next").returncode == 1  # nothing left for a leg

    history = hale(running, "dna", "history", "t2").stdout.splitlines()
    kinds = [line.split(" ", 2)[0] for line in history]
    assert "model.called" in kinds and "attempt.outcome" in kinds
    settled = [line for line in history if line.startswith("workflow.settled t2 ")]
    assert len(settled) == 1 and '"outcome": "succeeded"' in settled[0]  # and the body's epoch
    plan = hale(running, "dna", "history", "plan/").stdout.splitlines()
    assert [line.split(" ")[0] for line in plan] == [
        "claim.taken",
        "model.called",
        "claim.released",
    ]


def test_without_a_running_organism_the_ask_stays_in_the_record(tmp_path: Path) -> None:
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    said = hale(tmp_path / "p", "dna", "task", "create", "add a health check")
    assert said.returncode == 0
    assert "is in the record (intent.requested by " in said.stdout
    assert "intent.requested i-" in hale(tmp_path / "p", "dna", "history").stdout


def test_work_without_a_head_says_so(tmp_path: Path) -> None:
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    said = hale(tmp_path / "p", "dna", "work", "next")
    assert said.returncode == 1 and "no head serves this project" in said.stderr
