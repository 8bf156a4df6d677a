"""An adopted ledger through a real node on PostgreSQL memory: adoption asked
by a row and carried out in step 4 under the body claim's epoch, the legs'
rows written to it and carried into the record (the execution settles as
before), a stale epoch fenced, and abandonment carrying the rest back."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from node_helpers import FAST as NODE_FAST  # noqa: E402
from pg import fresh_database, shared_postgres

from hale_runtime.memory import Fenced, open_memory

HALE = str(Path(sys.executable).parent / "hale")
FAST = {**NODE_FAST, "HALE_DNA_ANSWER_WAIT": "30"}


def hale(cwd: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([HALE, "dna", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **FAST, **env}, timeout=120)  # fmt: skip


def wait(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def node(tmp_path: Path):
    env = {"HALE_DNA_MEMORY": fresh_database(shared_postgres())}
    assert hale(tmp_path, env, "new", "p").returncode == 0
    root = tmp_path / "p"
    (root / "dna" / "compose.yaml").write_text("services: {}\n")  # no application here
    log = tmp_path / "node.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([HALE, "dna", "dev"], cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, **FAST, **env}, start_new_session=True)  # fmt: skip
    try:
        wait(lambda: "running;" in log.read_text() or proc.poll() is not None, 90, "the node")
        assert proc.poll() is None, log.read_text()
        yield root, env, proc, log
    finally:
        # the group may be gone between a check and a signal: that is the goal
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        for pid in _descendants(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def _descendants(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_the_legs_rows_go_through_an_adopted_ledger_and_back(node):
    root, env, proc, log = node
    assert hale(root, env, "ledger").stdout == (
        "ledger: none adopted; the legs' rows are written to the git record\n"
    )
    adopted = hale(root, env, "ledger", "adopt")
    assert adopted.returncode == 0, adopted.stderr
    epoch = int(re.fullmatch(r"ledger: adopted; the legs' rows go to memory under epoch (\d+)\n",
                             adopted.stdout).group(1))  # fmt: skip
    memory = open_memory(env["HALE_DNA_MEMORY"])
    try:
        claim = memory.claim("body")
        assert claim is not None and claim.token == epoch
        status = hale(root, env, "ledger").stdout
        assert status.startswith(f"ledger: adopted on memory, epoch {epoch} (body claim, ")

        asked = hale(root, env, "task", "create", "--judgment", "is the readme clear")
        assert asked.stdout.startswith("task t1 born: ask-judge@1"), asked.stdout + asked.stderr
        assert hale(root, env, "work", "next").returncode == 0
        granted = hale(root, env, "work", "allowance")
        assert "micro-dollars granted" in granted.stdout, granted.stdout + granted.stderr
        done = hale(root, env, "work", "submit", "--outcome", "succeeded", "--note", "clear")
        assert done.stdout.strip() == "attempt t1/wf1/s0/j/a0 settled succeeded (clear)"
        rows = [json.loads(line) for line in
                hale(root, env, "history", "t1/wf1/s0/j/a0", "--json").stdout.splitlines()]  # fmt: skip
        kinds = [r["kind"] for r in rows]
        assert "attempt.outcome.requested" in kinds and "attempt.allowance.requested" in kinds
        assert memory.ledger_count() == 0  # every row carried into the record

        abandoned = hale(root, env, "ledger", "abandon")
        assert abandoned.returncode == 0, abandoned.stderr
        assert re.fullmatch(r"ledger: abandoned; \d+ row\(s\) carried into the record\n",
                            abandoned.stdout)  # fmt: skip
        assert memory.claim("body") is None  # given back with the ledger
        again = hale(root, env, "ledger", "abandon")
        assert again.returncode == 1 and "no ledger is adopted" in again.stderr
        with pytest.raises(Fenced):  # the old epoch writes nothing any more
            memory.ledger_append([("ab" * 32, "{}")], ("body", epoch))
    finally:
        memory.close()
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(30) == 0, log.read_text()


def test_a_body_that_took_over_fences_the_old_epoch(node, tmp_path):
    root, env, proc, log = node
    forge = tmp_path / "forge.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(forge)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(forge)], cwd=root, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=root, check=True)
    adopted = hale(root, env, "ledger", "adopt")
    assert adopted.returncode == 0, adopted.stderr
    epoch = int(adopted.stdout.split()[-1])
    wait(lambda: b"ledger.adopt.done" in subprocess.run(
        ["git", "--git-dir", str(forge), "show", "refs/dna/record:rows.jsonl"],
        capture_output=True).stdout, 20, "the adoption at the remote")  # fmt: skip
    frozen = [proc.pid, *_descendants(proc.pid)]
    for pid in frozen:  # the whole body pauses (a VM, a debugger): its leases run out
        os.kill(pid, signal.SIGSTOP)
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(forge), str(other)], check=True)
    memory = open_memory(env["HALE_DNA_MEMORY"])
    wait(lambda: memory.claim("body") is None, 10, "the paused body's claim to run out")
    with open(tmp_path / "other.log", "w") as out:
        second = subprocess.Popen([HALE, "dna", "dev"], cwd=other, stdout=out, stderr=out,
                                  env={**os.environ, **FAST, **env}, start_new_session=True)  # fmt: skip
    try:
        said = wait(lambda: re.search(r"epoch (\d+)\)", (tmp_path / "other.log").read_text()),
                    60, "the other body holding the claim")  # fmt: skip
        assert int(said.group(1)) > epoch
        with pytest.raises(Fenced, match="was taken over by"):  # whatever the old body believes
            memory.ledger_append([("ab" * 32, "{}")], ("body", epoch))
        for pid in frozen:  # one may be gone: a child the body's git run had ended
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        # it stops, acting on nothing: its fence kills (the claim is someone else's, or
        # the lease went unproven while it slept), or its host wakes first and stops
        assert proc.wait(30) in (1, 3), log.read_text()
        said = log.read_text()
        fence_killed = "hale fence: " in said and "; killing" in said
        host_stopped = "stopped: the body lease was not renewed" in said
        assert fence_killed or host_stopped, said
        wait(lambda: "running; Ctrl-C" in (tmp_path / "other.log").read_text(), 60,
             "the other body running, to stop it cleanly")  # fmt: skip
    finally:
        memory.close()
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        os.killpg(second.pid, signal.SIGTERM)
        assert second.wait(30) == 0, (tmp_path / "other.log").read_text()
