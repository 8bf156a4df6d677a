"""The application under the host (`hale dna dev`), with real processes and signals."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from pathlib import Path

from node_helpers import FAST, alive, hale, wait_for

LEASE_S = float(FAST["HALE_DNA_LEASE_S"])
LOOP = 'n=0\nwhile :; do n=$((n + 1)); echo "tick $n of $HALE_DNA_INSTANCE"; sleep 0.2; done\n'


def compose(clone: Path, command: str, extra: str = "") -> None:
    text = "x-application:\n  name: web\n  environment:\n    WHO: tester\n"
    text += "  command: |\n" + "".join(f"    {line}\n" for line in command.splitlines())
    (clone / "dna" / "compose.yaml").write_text(text + extra)


def app_pids(node) -> list[int]:
    return [int(p) for p in re.findall(r"application: web@\S+ runs .* \(pid (\d+)\)", node.log())]


def log_of(clone: Path) -> str:
    path = clone / ".git" / "hale" / "app" / "web.log"
    return path.read_text() if path.exists() else ""


def test_dev_runs_the_application_beside_the_organization_and_stops_it(make_clone, nodes):
    a = make_clone("a")
    compose(a, LOOP)
    node = nodes(a)
    kids = node.wait_running()
    (pid,) = wait_for(lambda: app_pids(node), 10, "the application started")
    assert alive(pid) and os.getpgid(pid) == pid  # a process group of its own, for the fence
    assert os.getpgid(pid) != os.getpgid(kids["organization"])
    wait_for(lambda: "tick 3 of web@" in log_of(a), 10, "its output in .git/hale/app/web.log")
    wait_for(lambda: "web | tick 3 of web@" in node.log(), 10, "dev echoing its output")
    assert node.stop() == 0, node.log()
    assert not alive(pid)
    assert "web: stopped with the node" in log_of(a)


def test_an_application_that_exits_is_started_again(make_clone, nodes):
    a = make_clone("a")
    compose(a, 'echo "up as $WHO"\nexit 3\n')
    node = nodes(a)
    node.wait_running()
    wait_for(lambda: log_of(a).count("up as tester") >= 3, 15, "the third start's output")
    log = log_of(a)
    assert "(start 3)" in log
    assert "exited with code 3" in log and "starting again in 0s" in log
    assert "starting again in 1s" in log  # it keeps exiting at once: it backs off
    assert node.stop() == 0


def test_the_fence_kills_the_application_when_the_lease_is_lost(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    compose(a, LOOP)
    node = nodes(a)
    kids = node.wait_running()
    (pid,) = wait_for(lambda: app_pids(node), 10, "the application started")
    os.kill(node.proc.pid, signal.SIGSTOP)  # the host cannot stop it: only the fence can
    try:
        taken = hale(b, "dna", "body", "claim", "--force")
        assert taken.returncode == 0, taken.stderr
        # one SIGKILL a process group: each dies when the kernel has torn it down
        killed = [pid, kids["organization"]]
        wait_for(lambda: not any(map(alive, killed)), LEASE_S + 2, "both killed by the fence")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(node.proc.pid, signal.SIGCONT)
    assert node.wait(15) == 3, node.log()


def test_an_application_that_cannot_run_is_refused_before_anything_is_taken(make_clone):
    a = make_clone("a")
    (a / "dna" / "compose.yaml").write_text("x-application:\n  name: web\n")
    done = hale(a, "dna", "dev")
    assert done.returncode == 1
    assert done.stderr == "hale: dna/compose.yaml: x-application names no command\n"
    (a / "dna" / "compose.yaml").write_text("x-application:\n  command: [ls]\n  folder: x\n")
    done = hale(a, "dna", "dev")
    assert done.stderr == "hale: dna/compose.yaml: x-application.folder 'x' is not a folder here\n"
    (a / "dna" / "compose.yaml").write_text("x-application:\n  command: [sleep, 1]\n  cwd: x\n")
    done = hale(a, "dna", "dev")
    assert done.returncode == 1
    assert "has no field cwd (it has name, command, folder, environment)" in done.stderr
    assert "nobody holds the lease" in hale(a, "dna", "body").stdout


def test_run_takes_no_application(make_clone, nodes):
    a = make_clone("a")
    compose(a, LOOP)
    assert hale(a, "dna", "memory", "migrate").returncode == 0
    node = nodes(a, "run")
    node.wait_running()
    assert "application:" not in node.log() and log_of(a) == ""
    assert node.stop() == 0
