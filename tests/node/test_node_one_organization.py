"""One organization per clone at a time. A host killed while its fence is
held up (here: stopped) leaves its organization running; the next host in
the clone stops that one before it starts its own, since both would act as
the same holder (claims name the clone) and do the same work twice."""

from __future__ import annotations

import contextlib
import os
import signal

from node_helpers import alive, wait_for


def test_a_new_host_stops_the_organization_a_killed_host_left(make_clone, nodes):
    a = make_clone("a")
    first = nodes(a)
    kids = first.wait_running()
    os.kill(kids["fence"], signal.SIGSTOP)  # its fence cannot kill anything now
    try:
        first.kill()  # SIGKILL the host
        assert alive(kids["organization"])  # left running, as the fence is held up
        second = nodes(a)
        now = second.wait_running()
        assert not alive(kids["organization"]), "the old organization still runs"
        assert now["organization"] != kids["organization"]
        wait_for(lambda: second.proc.poll() is None, 1, "the new node to run on")
        assert second.stop() == 0, second.log()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(kids["fence"], signal.SIGKILL)
