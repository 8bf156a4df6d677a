"""The relay and the epoch rule: an answer a superseded body wrote is void, so
the request it answered goes on being relayed until the body holding the
lease answers it (else a voided offer leaves its ask unanswered for good)."""

from __future__ import annotations

from hale_runtime.node.relay import Relay
from hale_runtime.record import Record

REF = "refs/dna/owners/a/body"


def test_a_void_answer_leaves_the_request_relayed(make_clone):
    root = make_clone("a")
    asker = Record.open(root)
    asker.append("intent.requested", "i1", {})
    old, new = Record.open(root), Record.open(root)
    new.append("body.epoch", REF, {"n": 2, "holder": new.who})
    old.epoch, new.epoch = (REF, 1), (REF, 2)
    old.append("intent.refused", "i1", {"reason": "A's, landed after B's epoch"})
    relay = Relay()
    relay.read(asker)
    assert [key for _, key in relay.pending] == ["i1"]
    new.append("intent.refused", "i1", {"reason": "B's"})
    relay.read(asker)
    assert relay.pending == {}
