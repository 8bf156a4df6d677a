"""The body lease and the fence, with real processes and signals."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest
from node_helpers import FAST, alive, hale, sh, wait_for

LEASE_S = float(FAST["HALE_DNA_LEASE_S"])


def test_a_second_host_on_another_clone_exits_3(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    first = nodes(a)
    first.wait_running()
    second = nodes(b)
    assert second.wait(30) == 3, second.log()
    assert "held by" in second.log() and "Traceback" not in second.log()
    assert first.stop() == 0
    body = hale(b, "dna", "body")
    assert "released" in body.stdout, body.stdout


def test_the_same_clone_restarting_takes_its_lease_straight_back(make_clone, nodes):
    a = make_clone("a")
    node = nodes(a)
    node.wait_running()
    node.kill()  # the host dies; its lease is live (the fence gives it back, or not)
    again = nodes(a)
    again.wait_running()
    assert again.stop() == 0


def test_a_stopped_fence_past_the_lease_gets_the_organization_killed(make_clone, nodes):
    a = make_clone("a")
    node = nodes(a)
    kids = node.wait_running()
    os.kill(kids["fence"], signal.SIGSTOP)
    try:
        wait_for(lambda: not alive(kids["organization"]), LEASE_S + 3, "the organization killed")
        assert node.wait(10) == 1, node.log()
        assert "not renewed" in node.log()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(kids["fence"], signal.SIGCONT)


def test_killing_the_host_gets_the_fence_to_kill_the_rest(make_clone, nodes):
    a = make_clone("a")
    node = nodes(a)
    kids = node.wait_running()
    started = time.monotonic()
    node.proc.kill()
    node.proc.wait(5)
    wait_for(lambda: not alive(kids["organization"]), 3, "the organization killed")
    wait_for(lambda: not alive(kids["fence"]), 5, "the fence gone")
    assert time.monotonic() - started < LEASE_S
    assert "released" in hale(a, "dna", "body").stdout


def test_body_claim_force_takes_a_dead_bodys_lease(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    node = nodes(a)
    kids = node.wait_running()
    for pid in (kids["fence"], node.proc.pid, kids["organization"]):
        os.kill(pid, signal.SIGKILL)  # the whole body dies at once: the lease stays live
    node.proc.wait(5)
    refused = hale(b, "dna", "body", "claim")
    assert refused.returncode == 3, refused.stderr
    taken = hale(b, "dna", "body", "claim", "--force")
    assert taken.returncode == 0, taken.stderr
    holder = taken.stdout.split()[1]
    assert ":" in holder and "token 2" in taken.stdout
    history = hale(b, "dna", "history", "body", "--kind", "body.claimed")
    assert '"forced": true' in history.stdout and holder in history.stdout
    assert holder in hale(a, "dna", "body").stdout  # a sees the lease at the remote
    mine = nodes(b)
    mine.wait_running()  # the same holder takes it straight back
    assert mine.stop() == 0
    assert hale(b, "dna", "body", "release").returncode == 0


def test_a_lease_taken_over_stops_the_running_body_with_3(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    node = nodes(a)
    kids = node.wait_running()
    taken = hale(b, "dna", "body", "claim", "--force")
    assert taken.returncode == 0, taken.stderr
    wait_for(lambda: not alive(kids["organization"]), LEASE_S, "the organization killed")
    assert node.wait(10) == 3, node.log()
    status = hale(a, "dna", "status")
    assert "exit 3" in status.stdout and "lease: not held" in status.stdout


@pytest.mark.parametrize("remote", ["gone", "hanging"])
def test_a_lease_that_cannot_be_proven_stops_the_body(make_clone, nodes, remote):
    a = make_clone("a")
    node = nodes(a)
    kids = node.wait_running()
    if remote == "gone":
        sh(a, "git", "remote", "set-url", "origin", str(a.parent / "nowhere.git"))
    else:  # a remote that never answers: every git call to it must be cut short
        sh(a, "git", "config", "protocol.ext.allow", "always")
        sh(a, "git", "remote", "set-url", "origin", "ext::sh -c 'sleep 60'")
    started = time.monotonic()
    wait_for(lambda: not alive(kids["organization"]), LEASE_S + 2, "the organization killed")
    assert time.monotonic() - started < LEASE_S + 1
    assert node.wait(10) == 1, node.log()
    assert "Traceback" not in node.log()


def test_a_second_host_in_the_same_clone_is_refused(make_clone, nodes):
    a = make_clone("a")
    first = nodes(a)
    kids = first.wait_running()
    second = nodes(a)
    assert second.wait(30) == 3, second.log()
    assert f"already runs in this clone (pid {first.proc.pid})" in second.log()
    assert alive(kids["organization"]) and first.proc.poll() is None
    assert first.stop() == 0


def test_each_owner_has_its_own_body_over_a_shared_record(make_clone):
    """HALE_DNA_OWNER picks the lease every `hale dna body` verb works on."""
    a, b = make_clone("a"), make_clone("b")
    # no fence renews these leases: give them a life no run of verbs outlasts
    lasting = {"HALE_DNA_LEASE_S": "600"}
    ann, bob = {**lasting, "HALE_DNA_OWNER": "ann"}, {**lasting, "HALE_DNA_OWNER": "bob"}
    taken = hale(a, "dna", "body", "claim", env=ann)
    assert taken.returncode == 0, taken.stderr
    holder = taken.stdout.split()[1]
    assert holder in hale(b, "dna", "body", env=ann).stdout  # read at the remote
    assert "nobody holds the lease" in hale(b, "dna", "body", env=bob).stdout
    assert "nobody holds the lease" in hale(b, "dna", "body").stdout  # the record's one body
    assert hale(b, "dna", "body", "claim", env=bob).returncode == 0  # another owner's
    assert hale(b, "dna", "body", "claim", env=ann).returncode == 3
    assert hale(b, "dna", "body", "release", env=ann).returncode == 3  # not b's to give
    assert hale(a, "dna", "body", "release", env=ann).returncode == 0
    assert "released" in hale(b, "dna", "body", env=ann).stdout
    assert hale(b, "dna", "body", env=bob).stdout.split()[1] != holder


def test_the_fence_never_waits_on_the_host(make_clone, nodes):
    """A host stopped (SIGSTOP) past the lease's life: the fence renews on
    regardless, so the body is still live when the host wakes and ticks on."""
    from hale_runtime.node.lease import BodyLease

    a = make_clone("a")
    node = nodes(a)
    kids = node.wait_running()
    remote = BodyLease(make_clone("watcher"), "", "origin", LEASE_S, 5.0)  # reads at origin
    os.kill(node.proc.pid, signal.SIGSTOP)
    try:
        stopped_at = remote.read()[1]
        wait_for(
            lambda: remote.read()[1].until > stopped_at.until + LEASE_S * 1000,
            LEASE_S * 3,
            "the fence to renew past the lease the host last saw",
            0.2,
        )
        assert remote.read()[1].token == stopped_at.token
    finally:
        os.kill(node.proc.pid, signal.SIGCONT)
    assert alive(kids["organization"]) and alive(kids["fence"])
    assert node.stop() == 0, node.log()
