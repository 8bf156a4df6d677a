"""One node's tick, seen from outside: relay, projection, restart requests,
status, and the pieces the tick is made of (relay.py, projection.py)."""

from __future__ import annotations

import json
import signal

from node_helpers import alive, children_of, hale, wait_for

from hale_runtime.memory import open_memory
from hale_runtime.memory.projection import PROJECTIONS, project
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record


def test_a_node_projects_relays_answers_and_restarts(make_clone, nodes):
    a = make_clone("a")
    node = nodes(a)
    kids = node.wait_running()
    record = Record.open(a)
    record.append("position.filled", "position:leader", {"holder": "ann"})
    body = {"definition": "close-month", "convener": "position:leader", "every": "1d"}
    record.append("schedule.declared", "schedule/close", body)
    record.append("node.ping.requested", "hello", {})
    memory = open_memory(a / ".git/hale/memory.sqlite3")
    wait_for(lambda: memory.holder_of("leader") == "ann", 10, "the position projected")
    edges = memory.edges("convenes")
    assert [(e.src, e.dst) for e in edges] == [("position:leader", "definition:close-month")]
    wait_for(lambda: record.rows(kind="node.ping.answered"), 10, "the ping answered")

    status = json.loads(hale(a, "dna", "status", "--json").stdout)
    (me,) = status["nodes"]
    assert status["lease"]["holder"] == me["holder"] and status["lease"]["live"]
    assert me["last_tick"] and me["memory"].startswith("sqlite://")
    assert me["nerves"] == me["memory"] and me["genome"]  # the nerves ride on memory
    shown = hale(a, "dna", "status").stdout
    for line in ("genome: ", "lease: ", "last tick: ", "memory: sqlite://", "nerves: sqlite://"):
        assert line in shown, shown
    record.append("restart.requested", me["holder"], {})
    wait_for(lambda: record.rows(kind="restart.answered"), 10, "the restart answered")
    again = wait_for(lambda: children_of(node.proc.pid).get("organization"), 10, "a new org")
    assert again != kids["organization"]
    assert node.stop(signal.SIGINT) == 0  # Ctrl-C: a clean stop
    assert not alive(again) and "released" in hale(a, "dna", "body").stdout


def test_the_relay_keeps_requests_until_answered(tmp_path, make_clone):
    a = make_clone("a")
    record = Record.open(a)
    record.append_many([("intent.requested", "i1", {}), ("intent.requested", "i2", {})])
    relay = Relay()
    relay.read(record)
    assert sorted(key for _, key in relay.pending) == ["i1", "i2"]
    record.append("intent.refused", "i1", {"reason": "empty"})
    relay.read(record)
    assert [key for _, key in relay.pending] == ["i2"]


def test_projection_moves_one_row_at_a_time_by_cursor(tmp_path, make_clone):
    a = make_clone("a")
    record = Record.open(a)
    record.append("position.filled", "position:board", {"holder": "bo"})
    record.append("position.vacated", "position:board", {})
    record.sync()
    memory = open_memory(tmp_path / "m.sqlite3")
    memory.migrate()
    assert project(record, memory, limit=1) == 1
    assert memory.holder_of("board") == "bo"
    assert project(record, memory) == 1 and memory.holder_of("board") is None
    assert project(record, memory) == 0
    assert "schedule.declared" in PROJECTIONS


def test_only_rows_the_remote_holds_are_projected(tmp_path, make_clone):
    """A row appended but not yet pushed is not stamped, so no node projects it:
    what memory holds is always what every clone can receive."""
    a = make_clone("a")
    record = Record.open(a)
    record.append("position.filled", "position:board", {"holder": "bo"})
    memory = open_memory(tmp_path / "m.sqlite3")
    memory.migrate()
    assert project(record, memory) == 0 and memory.holder_of("board") is None
    record.sync()
    assert project(record, memory) == 1 and memory.holder_of("board") == "bo"
