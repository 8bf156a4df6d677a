"""A node whose stores fail stops rather than acts: its memory and nerves on
a PostgreSQL that goes away mid-run, the node exits 1 and says why."""

from __future__ import annotations

from node_helpers import hale
from pg import start_postgres  # noqa: E402


def test_a_node_whose_nerves_fail_stops(make_clone, nodes):
    server = start_postgres()  # its own server: this test stops it
    try:
        clone = make_clone("a")
        migrated = hale(clone, "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": server.dsn})
        assert migrated.returncode == 0, migrated.stderr
        node = nodes(clone, "run", {"HALE_DNA_MEMORY": server.dsn})
        node.wait_running()
    finally:
        server.stop()
    assert node.wait(timeout=60) == 1, node.log()
    log = node.log()
    # whichever notices first — the organization's nerves or the host's
    # memory — the organism stops, naming the failed store
    assert "hale organization: stopping: nerves" in log or "stores failed" in log, log
    assert log.rstrip().endswith("(exit 1)") or "stores failed" in log, log
