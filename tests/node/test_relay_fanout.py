"""Relay what is yours: over a shared record each body relays its own owner's
asks on its owner's subject, so the nerves carry each ask once, and each
organization hears its own, whatever the number of bodies (before, every
host relayed every ask and every organization heard every relay: asks x N
messages, asks x N^2 hearings)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hale_runtime.memory import open_memory
from hale_runtime.nerves import check_subject, open_nerves
from hale_runtime.node.relay import Relay, owner_subject
from hale_runtime.record import Record

ASKS_PER_OWNER = 6


def traffic(tmp_path, make_clone, n: int) -> tuple[int, dict[str, int], int]:
    """(messages published, asks each organization heard, hearings in all) for n bodies."""
    memory = tmp_path / f"m{n}.sqlite3"
    open_memory(memory).migrate()
    nerves = open_nerves(memory)
    owners = [f"o{i}" for i in range(n)]
    heard = {o: nerves.subscribe(owner_subject(o)) for o in owners}
    asker = Record.open(make_clone(f"asker{n}"))
    asker.append_many(
        [("intent.requested", f"i-{o}-{k}", {"objective": "x", "target": ".", "owner": o})
         for o in owners for k in range(ASKS_PER_OWNER)]
        + [("intent.requested", "i-nobody", {"objective": "x", "target": "."})]
    )  # fmt: skip
    sent = sum(Relay(o, resend_s=60.0).relay(asker, nerves) for o in owners)
    got = {o: sub.poll(0.2) for o, sub in heard.items()}
    for o, messages in got.items():  # each hears its own asks, under its kind's topic
        assert {m.body["key"].split("-")[1] for m in messages} == {o}
        assert {m.subject.removeprefix(owner_subject(o)) for m in messages} == {"intent.requested"}
    return sent, {o: len(m) for o, m in got.items()}, sum(len(m) for m in got.values())


def test_nerves_traffic_grows_with_the_asks_not_the_bodies_squared(tmp_path, make_clone):
    for n in (1, 2, 4):
        sent, each, hearings = traffic(tmp_path, make_clone, n)
        asks = n * ASKS_PER_OWNER  # the ask owned by no organization goes to none
        assert sent == asks and hearings == asks, (n, sent, hearings)
        assert set(each.values()) == {ASKS_PER_OWNER}


def test_an_unanswered_request_is_sent_again_only_after_the_resend_period(make_clone, tmp_path):
    memory = tmp_path / "m.sqlite3"
    open_memory(memory).migrate()
    nerves = open_nerves(memory)
    record = Record.open(make_clone("a"))
    record.append("intent.requested", "i-1", {"objective": "x", "target": ".", "owner": "o"})
    now = [100.0]
    relay = Relay("o", resend_s=5.0, clock=lambda: now[0])
    assert relay.relay(record, nerves) == 1
    now[0] += 4.0
    assert relay.relay(record, nerves) == 0  # still within the period: not again
    now[0] += 1.5
    assert relay.relay(record, nerves) == 1  # unanswered past it: relayed again
    record.append("intent.offered", "i-1", {"definition": "ask-edit@1"})
    now[0] += 10.0
    assert relay.relay(record, nerves) == 0  # answered: never again


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_owner_name_makes_a_subject_of_its_own(owner):
    """HALE_DNA_OWNER is anyone's string: its prefix is always a valid subject's."""
    prefix = owner_subject(owner)
    if not owner:
        assert prefix == ""
        return
    check_subject(prefix + "intent.requested")
    assert prefix != owner_subject(owner + "x")
