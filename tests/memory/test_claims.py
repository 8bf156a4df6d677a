"""Claims on one memory, each test on SQLite and on PostgreSQL: grants,
tokens, renew, release, the fence, and expiry on the database's clock."""

from __future__ import annotations

import time

import pytest

from hale_runtime.memory import Fenced, Node, open_memory


def test_a_free_key_is_granted_once_and_refused_to_another_holder(store):
    grant = store.take("plan/i7", "ann@box:c1", 30)
    assert (grant.key, grant.holder, grant.token) == ("plan/i7", "ann@box:c1", 1)
    assert grant.until - grant.now == 30_000
    assert store.take("plan/i7", "bob@box:c2", 30) is None
    held = store.claim("plan/i7")
    assert (held.holder, held.token, held.until) == (grant.holder, grant.token, grant.until)


def test_take_many_grants_each_free_key_in_one_commit_and_refuses_held_ones(store):
    store.take("held", "bob@box:c2", 30)
    grants = store.take_many(["a", "held", "b", "a"], "ann@box:c1", 30)
    assert [g and (g.key, g.token) for g in grants] == [("a", 1), None, ("b", 1), ("a", 2)]
    assert store.claim("held").holder == "bob@box:c2"
    assert store.take_many([], "ann@box:c1", 30) == []


def test_the_token_rises_on_every_grant_and_is_never_reused(store):
    tokens = []
    for holder in ["a", "b", "a", "c"]:
        grant = store.take("body", holder, 30)
        tokens.append(grant.token)
        assert store.release("body", holder, grant.token)
    assert tokens == [1, 2, 3, 4]
    assert store.claim("body") is None
    assert store.take("other", "a", 30).token == 1


def test_the_same_holder_takes_back_under_a_new_token_fencing_the_old(store):
    first = store.take("body", "ann@box:c1", 30)
    again = store.take("body", "ann@box:c1", 30)
    assert again.token == first.token + 1
    with pytest.raises(Fenced, match="taken over by ann@box:c1 \\(token 2\\)"):
        store.check_fence("body", first.token)
    assert store.check_fence("body", again.token).holder == "ann@box:c1"


def test_renew_only_by_the_holder_with_the_current_token(store):
    grant = store.take("body", "ann", 30)
    with pytest.raises(Fenced):
        store.renew("body", "bob", grant.token, 30)
    with pytest.raises(Fenced):
        store.renew("body", "ann", grant.token + 1, 30)
    renewed = store.renew("body", "ann", grant.token, 60)
    assert renewed.token == grant.token and renewed.until - renewed.now == 60_000
    assert renewed.until >= grant.until


def test_an_expired_grant_can_neither_be_renewed_nor_released(store):
    grant = store.take("k", "ann", 0.2)
    time.sleep(0.35)
    with pytest.raises(Fenced, match="expired"):
        store.renew("k", "ann", grant.token, 30)
    assert store.release("k", "ann", grant.token) is False
    assert store.claim("k") is None


def test_release_is_the_holders_alone(store):
    grant = store.take("k", "ann", 30)
    assert store.release("k", "bob", grant.token) is False
    assert store.take("k", "bob", 30) is None
    assert store.release("k", "ann", grant.token) is True
    assert store.release("k", "ann", grant.token) is False
    with pytest.raises(Fenced, match="was released"):
        store.check_fence("k", grant.token)


def test_an_append_under_a_stale_token_is_refused_and_writes_nothing(store):
    stale = store.take("body", "ann", 30)
    store.release("body", "ann", stale.token)
    live = store.take("body", "bob", 30)
    store.apply([Node("definition:a", "definition")], fence=("body", live.token))
    with pytest.raises(Fenced, match="taken over by bob"):
        store.apply([Node("definition:b", "definition")], fence=("body", stale.token))
    with pytest.raises(Fenced):
        store.apply_projection("record", None, "1", [Node("x", "row")], fence=("body", 99))
    assert [n.id for n in store.nodes()] == ["definition:a"]
    assert store.cursor("record") is None
    with pytest.raises(Fenced, match="never granted"):
        store.check_fence("nobody", 1)


def test_an_append_under_an_expired_token_is_refused(store):
    grant = store.take("body", "ann", 0.2)
    time.sleep(0.35)
    with pytest.raises(Fenced, match="expired"):
        store.apply([Node("n", "row")], fence=("body", grant.token))
    assert store.nodes() == []


def test_a_ttl_must_be_positive(store):
    with pytest.raises(ValueError):
        store.take("k", "ann", 0)


def skewed(offset_s: float):
    return lambda: time.monotonic() + offset_s


def test_expiry_is_the_databases_clock_whatever_the_nodes_say(store_dsn, monkeypatch):
    """Two nodes whose clocks are an hour apart, in both directions, from the
    truth: the claim ends when the database says, and each node's deadline
    is its own clock plus what the database said was left."""
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 3600)  # the node's wall clock
    ahead = open_memory(store_dsn, clock=skewed(+3600))
    behind = open_memory(store_dsn, clock=skewed(-3600))
    try:
        asked = time.monotonic()
        grant = ahead.take("plan/i7", "ahead", 1.0)
        assert abs(grant.now - ahead.now_ms()) < 1000  # the database's clock, not the node's
        assert abs(grant.now - real_time() * 1000) < 1000
        assert abs(grant.deadline - (asked + 3600 + 1.0)) < 0.2
        assert behind.take("plan/i7", "behind", 1.0) is None
        time.sleep(0.3)
        assert behind.take("plan/i7", "behind", 1.0) is None
        time.sleep(max(0.0, asked + 1.2 - time.monotonic()))
        asked = time.monotonic()
        taken = behind.take("plan/i7", "behind", 1.0)
        assert taken is not None and taken.token == grant.token + 1
        assert taken.now >= grant.until
        assert abs(taken.deadline - (asked - 3600 + 1.0)) < 0.2
        with pytest.raises(Fenced):
            ahead.check_fence("plan/i7", grant.token)
    finally:
        ahead.close()
        behind.close()


def test_migrate_is_idempotent(store):
    assert store.schema_version() == 5
    assert store.migrate() == (5, 5)
    assert store.schema_version() == 5


def test_protected_bodies_are_kept_and_erased_by_digest(store_dsn):
    from hale_runtime.memory import EraseProtected, KeepProtected

    with open_memory(store_dsn) as store:
        store.apply([KeepProtected("ab" * 20, {"detail": "x"})])
        assert store.protected_body("ab" * 20) == {"detail": "x"}
        store.apply([EraseProtected("ab" * 20)])
        assert store.protected_body("ab" * 20) is None
