"""Clock skew and the body lease, at a real remote (the forge, a bare
repository), and the remote's compare-and-swap that admits one taker.

The lease's `until` is the writer's wall clock, so a machine whose clock
disagrees sees a lease live longer or shorter, by the skew and no more.
The clocks are faked (BodyLease's `clock`), not waited for.
"""

from __future__ import annotations

import pytest

from hale_runtime.node.lease import BodyLease, Lease, LeaseHeld, now_ms

LIFE_S = 30.0
MIN = 60_000


def lease(clone, holder: str, skew_ms: int = 0) -> BodyLease:
    return BodyLease(clone, holder, "origin", LIFE_S, 5.0, clock=lambda: now_ms() + skew_ms)


def test_a_clock_ahead_by_less_than_the_life_left_still_sees_the_lease_held(make_clone):
    ann = lease(make_clone("a"), "ann@a:1")
    taken = ann.take()
    assert abs(taken.until - (now_ms() + LIFE_S * 1000)) < 5000
    with pytest.raises(LeaseHeld):
        lease(make_clone("b"), "bob@b:2", skew_ms=20_000).take()
    assert ann.renew().token == taken.token  # nothing moved


def test_a_clock_ahead_by_more_than_the_life_takes_a_live_lease_and_the_holder_sees_it_lost(
    make_clone,
):
    """The harm skew can do: a machine a minute ahead takes a lease that is live
    in truth. The remote's compare-and-swap still admits one writer at a time,
    so the old holder's next renewal (its fence's, within 10 s) finds it lost."""
    ann = lease(make_clone("a"), "ann@a:1")
    first = ann.take()
    bob = lease(make_clone("b"), "bob@b:2", skew_ms=MIN)
    second = bob.take()
    assert second.holder == "bob@b:2" and second.token == first.token + 1
    with pytest.raises(LeaseHeld) as lost:
        ann.renew()
    assert lost.value.lease is not None and lost.value.lease.holder == "bob@b:2"
    assert ann.release() is False  # not ours to give back any more


def test_a_clock_behind_sees_an_expired_lease_live_for_the_skew(make_clone):
    """A lease written by a clock a minute behind expired 30 s ago in truth; a
    machine also a minute behind still sees it live, one on true time does not."""
    ann = lease(make_clone("a"), "ann@a:1", skew_ms=-MIN)
    expired = ann.take()
    assert expired.until < now_ms()
    with pytest.raises(LeaseHeld):
        lease(make_clone("b"), "bob@b:2", skew_ms=-MIN).take()
    taken = lease(make_clone("c"), "cy@c:3").take()
    assert taken.holder == "cy@c:3" and taken.token == expired.token + 1


def test_the_same_clone_takes_its_lease_back_whatever_its_clock_says(make_clone):
    a = make_clone("a")
    first = lease(a, "ann@a:1").take()
    again = lease(a, "ann@a:1", skew_ms=-10 * MIN).take()
    assert again.token == first.token + 1 and again.holder == "ann@a:1"


def test_of_two_takers_from_one_reading_the_remote_admits_one(make_clone):
    """The compare-and-swap itself: both read the lease absent, both write; the
    remote's receive-pack lets the first through and refuses the second."""
    ann, bob = lease(make_clone("a"), "ann@a:1"), lease(make_clone("b"), "bob@b:2")
    (ann_read, _), (bob_read, _) = ann.read(), bob.read()
    assert ann_read is None and bob_read is None
    assert ann._swap(ann_read, Lease("ann@a:1", 1, now_ms() + 30_000))
    assert not bob._swap(bob_read, Lease("bob@b:2", 1, now_ms() + 30_000))
    assert bob.read()[1] == ann.lease
    with pytest.raises(LeaseHeld):
        bob.take()


def test_a_reader_in_the_same_clone_never_costs_the_holder_its_lease(make_clone):
    """`hale dna status` in the node's own clone fetches the lease into the
    tracking ref the fence also writes. A renewal that lands at the remote while
    that ref is locked is still a renewal, and the next one swaps on it."""
    a = make_clone("a")
    ann = lease(a, "ann@a:1")
    taken = ann.take()
    lock = a / ".git" / (ann.tracking + ".lock")
    lock.write_text("")  # a concurrent `git fetch` holding the ref
    try:
        renewed = ann.renew()
    finally:
        lock.unlink()
    assert renewed.token == taken.token and renewed.until >= taken.until
    assert ann.renew().token == taken.token
    assert lease(make_clone("b"), "bob@b:2").read()[1] == ann.lease


def test_a_renewal_that_landed_unrecorded_is_picked_up_not_taken_for_a_loss(make_clone):
    """The holder's own write that this object did not record (its commit id
    lost) is still the holder's lease: renewing swaps on what the remote holds."""
    ann = lease(make_clone("a"), "ann@a:1")
    taken = ann.take()
    ann.oid = "0" * 40  # as if the last write landed without being noted
    assert ann.renew().token == taken.token
    with pytest.raises(LeaseHeld):
        lease(make_clone("b"), "bob@b:2").take()
