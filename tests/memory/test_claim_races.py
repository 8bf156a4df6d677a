"""Many processes racing for the same keys, on SQLite and on PostgreSQL:
each key has exactly one winner per grant, tokens are contiguous and never
shared, and no two holders' grants overlap on the database's clock."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from racers import race  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402


def test_racing_processes_each_key_has_exactly_one_winner(store_dsn):
    keys = [f"plan/i{n}" for n in range(40)]
    results = race("take", store_dsn, [[f"node{n}@box:c{n}", *keys] for n in range(8)])
    winners = defaultdict(list)
    for grants in results:
        for grant in grants:
            winners[grant["key"]].append(grant)
    assert sorted(winners) == sorted(keys)
    assert all(len(grants) == 1 and grants[0]["token"] == 1 for grants in winners.values())
    with open_memory(store_dsn) as store:
        for key, (grant,) in winners.items():
            assert store.claim(key).holder == grant["holder"]


def test_churning_processes_never_share_a_grant(store_dsn):
    argvs = [[f"node{n}", "2.0", "3", "0.05"] for n in range(6)]
    grants = [g for result in race("churn", store_dsn, argvs) for g in result]
    by_key = defaultdict(list)
    for grant in grants:
        by_key[grant["key"]].append(grant)
    assert len(grants) > 30, "the race barely ran"
    for key, key_grants in by_key.items():
        key_grants.sort(key=lambda g: g["token"])
        tokens = [g["token"] for g in key_grants]
        assert tokens == list(range(1, len(tokens) + 1)), f"{key}: tokens {tokens}"
        for before, after in zip(key_grants, key_grants[1:], strict=False):
            if before["released"] or before["holder"] == after["holder"]:
                continue
            assert after["now"] >= before["until"], f"{key}: {before} overlaps {after}"


def unmigrated(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite://{tmp_path / 'fresh.sqlite3'}"
    from pg import fresh_database, shared_postgres

    return fresh_database(shared_postgres())


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_nodes_migrating_at_once_migrate_once(backend, tmp_path):
    dsn = unmigrated(backend, tmp_path)
    results = race("migrate", dsn, [[] for _ in range(4)])
    assert sorted(map(tuple, results)) == [(0, 5), (5, 5), (5, 5), (5, 5)]
