"""End to end: `hale dna dev` as a subprocess, and the real verbs beside it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HALE = [str(Path(sys.executable).parent / "hale")]


def verb(root: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*HALE, "dna", *args], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def dev(project: Path):
    env = {**os.environ, "HALE_DNA_TICK": "0.2", "HALE_DNA_GENOME_POLL": "0",
           "HALE_DNA_ANSWER_WAIT": "60", "HALE_DNA_NODE": "org@e2e:c0ffee00"}  # fmt: skip
    env.pop("HALE_DNA_MEMORY", None)
    env.pop("HALE_DNA_NERVES", None)
    proc = subprocess.Popen(
        [*HALE, "dna", "dev"], cwd=project, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        seen.append(line)
        if "running" in line or proc.poll() is not None:
            break
    assert proc.poll() is None, "".join(seen)
    try:
        yield env
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_declare_list_pause_and_resume_beside_a_running_organism(project, dev):
    env = {**dev, "HALE_DNA_NODE": "org@desk:c0ffee00"}
    declared = verb(project, env, "schedule", "declare", "often", "--every", "90000",
                    "--definition", "optimize-walk", "--convener", "leader")  # fmt: skip
    assert declared.returncode == 0, declared.stderr
    assert declared.stdout == (
        "schedule often declared: optimize-walk on every 90000ms, convened by position:leader\n"
    )
    refused = verb(project, env, "schedule", "declare", "bad", "--cron", "0 2 * *",
                   "--definition", "ask-edit", "--convener", "editor")  # fmt: skip
    assert refused.returncode == 1
    assert refused.stdout.startswith("schedule declare: refused: the cron `0 2 * *` is malformed")
    listing = verb(project, env, "schedule")
    assert listing.stdout.splitlines()[0] == "schedules: 1"
    assert listing.stdout.splitlines()[1].startswith(
        "  often [live] every 90000ms — optimize-walk, convened by position:leader · occurred "
    )
    paused = verb(project, env, "schedule", "pause", "often")
    assert paused.stdout == (
        "schedule often paused (schedule.paused; nothing occurs until it is resumed, "
        "and nothing is missed)\n"
    )
    assert "[paused]" in verb(project, env, "schedule").stdout
    resumed = verb(project, env, "schedule", "resume", "often")
    assert resumed.stdout == "schedule often resumed (schedule.resumed)\n"
    assert "[live]" in verb(project, env, "schedule").stdout
    processes = verb(project, env, "show", "processes")
    assert processes.stdout.splitlines()[-1] == (
        "position:leader convenes definition:optimize-walk every 90s"
    )
