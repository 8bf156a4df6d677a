"""Several nodes over one shared record (one bare remote) and one PostgreSQL:
nothing coordinates them but the stores, and nothing is done twice.

The workload is the organization's own `node.ping.requested` rows, written
from a clone that runs no node: every node relays them, every organization
hears every relay, and each is answered once, under a claim."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from node_helpers import hale, wait_for
from pg import fresh_database, shared_postgres  # noqa: E402

from hale_runtime.record import Record  # noqa: E402


@pytest.fixture
def pg_memory(forge) -> str:
    dsn = fresh_database(shared_postgres())
    migrated = hale(forge[1], "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": dsn})
    assert migrated.returncode == 0, migrated.stderr
    return dsn


def ask(asker: Path, keys: list[str]) -> None:
    record = Record.open(asker)
    record.append_many([("node.ping.requested", key, {"n": i}) for i, key in enumerate(keys)])
    record.sync()


def answers(asker: Path) -> list:
    record = Record.open(asker)
    record.sync()
    return record.rows(kind="node.ping.answered")


def env_for(dsn: str, owner: str, **extra: str) -> dict[str, str]:
    return {"HALE_DNA_MEMORY": dsn, "HALE_DNA_OWNER": owner, **extra}


def test_three_nodes_answer_every_request_once(make_clone, nodes, pg_memory):
    keys = [f"p{i}" for i in range(24)]
    running = [nodes(make_clone(n), "run", env_for(pg_memory, n)) for n in ("a", "b", "c")]
    for node in running:
        node.wait_running()
    asker = make_clone("asker")
    ask(asker, keys)
    wait_for(lambda: len({r.key for r in answers(asker)}) == len(keys), 90, "every answer", 0.5)
    time.sleep(1.0)  # a second answer, were one coming, would land now
    answered = answers(asker)
    print("answered by:", dict(Counter(r.who for r in answered)))
    assert Counter(r.key for r in answered) == Counter(keys)
    taken = Record.open(asker).rows(kind="claim.taken", key_prefix="ping/")
    assert Counter(r.key for r in taken) == Counter(f"ping/{k}" for k in keys)
    assert {r.body["holder"] for r in taken} <= {r.who for r in answered}
    for node in running:
        assert node.stop() == 0, node.log()


def test_a_node_killed_holding_a_claim_is_finished_by_another(make_clone, nodes, pg_memory):
    """Three nodes run; the one holding the claim is killed mid-act, and one of
    the other two acts once the claim expires on the database's clock."""
    slow = env_for(pg_memory, "a", HALE_DNA_TEST_ACT_PAUSE="60", HALE_DNA_CLAIM_TTL="3")
    first = nodes(make_clone("a"), "run", slow)
    first.wait_running()
    asker = make_clone("asker")
    ask(asker, ["k1"])
    with psycopg.connect(pg_memory) as conn:
        sql = "SELECT holder FROM claims WHERE key = 'ping/k1'"
        holder = wait_for(lambda: conn.execute(sql).fetchone(), 30, "the claim taken")[0]
    others = [
        nodes(make_clone(n), "run", env_for(pg_memory, n, HALE_DNA_CLAIM_TTL="3"))
        for n in ("b", "c")
    ]
    for node in others:
        node.wait_running()
    assert first.proc.poll() is None  # all three run when the holder dies
    first.kill()  # the host dies; its fence kills the organization holding the claim
    done = wait_for(lambda: answers(asker), 60, "the answer", 0.5)
    time.sleep(1.0)  # a second answer, were one coming, would land now
    done = answers(asker)
    assert len(done) == 1 and done[0].who != holder, [r.who for r in done]
    assert json.dumps(done[0].body)
    for node in others:
        assert node.stop() == 0, node.log()
