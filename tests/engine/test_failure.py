"""Failure and retry: the next attempt id, failure up through children to the
root, nothing later activating, members still out keeping their
responsibility, and cancelling a root."""

from __future__ import annotations

import pytest
from engine_helpers import Scripted, catalog_of, work

from hale_runtime.engine.cancel import Canceller, request
from hale_runtime.memory import Fenced
from hale_runtime.nerves import Dispatcher, Message
from hale_runtime.node.relay import message_of
from hale_runtime.performers import CANCELLED, FAILED, SUCCEEDED


def nested(c) -> None:
    """top: step 0 = child `mid`; step 1 = leaf `later`.  mid: step 0 = child `low`.
    low: step 0 = leaf `w` (judgment, 3 attempts)."""
    assert c.define("low", 1, "record", "the lowest") == ""
    assert c.leaf("low", 1, 0, "w", work("weigh it", "judgment"), 3) == ""
    assert c.define("mid", 1, "record", "the middle") == ""
    assert c.child("mid", 1, 0, "low", "low") == ""
    assert c.define("top", 1, "record record", "the top") == ""
    assert c.child("top", 1, 0, "mid", "mid") == ""
    assert c.leaf("top", 1, 1, "later", work("afterwards", "judgment"), 1) == ""


W = "t1.s0.mid.s0.low/wf1/s0/w"


def test_a_failed_leaf_with_attempts_left_is_tried_under_the_next_id(org):
    org.plugins = (Scripted("agent", {f"{W}/a0": FAILED, f"{W}/a1": FAILED}),)
    e = org.engine()
    e.admit(catalog_of(nested).bind("top"), "ask", "leader")
    e.pump()
    attempts = [r.key for r in org.rows(kind="attempt.admitted")]
    assert attempts[:3] == [f"{W}/a0", f"{W}/a1", f"{W}/a2"]
    assert e.settled("t1") == SUCCEEDED


def test_the_last_failure_fails_its_step_and_every_parent_up_to_the_root(org):
    org.plugins = (Scripted("agent", {f"{W}/a{n}": FAILED for n in range(3)}),)
    e = org.engine()
    e.admit(catalog_of(nested).bind("top"), "ask", "leader")
    e.pump()
    settled = [
        (r.key, r.body["outcome"]) for r in org.rows(kind=["work.settled", "workflow.settled"])
    ]
    assert settled == [
        (W, FAILED),
        ("t1.s0.mid.s0.low", FAILED),
        ("t1.s0.mid", FAILED),
        ("t1", FAILED),
    ]
    assert "step.registered t1/wf1/s1" not in org.lines()  # nothing later activates
    (root,) = [r for r in org.rows(kind="workflow.settled") if r.key == "t1"]
    assert root.body["reason"] == "step 0 failed: mid"


def out_and_failing(c) -> None:
    assert c.define("sub", 1, "record record", "two steps") == ""
    assert c.leaf("sub", 1, 0, "w", work("weigh", "judgment"), 2) == ""
    assert c.leaf("sub", 1, 1, "v", work("verify", "judgment"), 1) == ""
    assert c.define("par", 1, "record record", "a step with members out") == ""
    assert c.leaf("par", 1, 0, "f", work("fails at once", "judgment"), 1) == ""
    assert c.leaf("par", 1, 0, "p", work("a person takes time", "person"), 1) == ""
    assert c.child("par", 1, 0, "c", "sub") == ""
    assert c.leaf("par", 1, 1, "next", work("never", "judgment"), 1) == ""


def test_a_member_still_out_keeps_its_responsibility(org):
    child_w = "t1.s0.c/wf1/s0/w"
    org.plugins = (Scripted("agent", {"t1/wf1/s0/f/a0": FAILED, f"{child_w}/a0": "later"}),)
    e = org.engine()
    e.admit(catalog_of(out_and_failing).bind("par"), "ask", "leader")
    e.pump()
    assert e.settled("t1") is None  # the person and the child are still out
    e.reply(f"{child_w}/a0", "agent", FAILED)  # no retry under a failed step
    e.pump()
    assert f"attempt.admitted {child_w}/a1" not in org.lines()
    assert "step.registered t1.s0.c/wf1/s1" not in org.lines()
    assert e.settled("t1.s0.c") == FAILED and e.settled("t1") is None
    e.reply("t1/wf1/s0/p/a0", "person", SUCCEEDED, "done late")
    e.pump()
    lines = org.lines()
    assert lines.index("attempt.outcome t1/wf1/s0/p/a0") < lines.index("workflow.settled t1")
    assert e.settled("t1") == FAILED
    assert "step.registered t1/wf1/s1" not in lines


def test_a_child_still_succeeding_under_a_failed_step_settles_failed(org):
    child_w = "t1.s0.c/wf1/s0/w"
    org.plugins = (Scripted("agent", {"t1/wf1/s0/f/a0": FAILED, f"{child_w}/a0": "later"}),)
    e = org.engine()
    e.admit(catalog_of(out_and_failing).bind("par"), "ask", "leader")
    e.pump()
    e.reply(f"{child_w}/a0", "agent", SUCCEEDED)
    e.pump()
    (child,) = [r for r in org.rows(kind="workflow.settled") if r.key == "t1.s0.c"]
    assert child.body == {"outcome": FAILED, "reason": "a step above it failed"}


def test_cancelling_a_root_fences_everything_below_it(org):
    agent = Scripted("agent", {f"{W}/a0": "later"})
    org.plugins = (agent,)
    e = org.engine()
    dispatcher = Dispatcher()
    dispatcher.on("WorkflowCancelRequested", Canceller(e.record, e).on_cancel_requested)
    e.admit(catalog_of(nested).bind("top"), "ask", "leader")
    e.pump()
    (claim,) = [r for r in org.rows(kind="attempt.claimed") if r.key == f"{W}/a0"]
    asked = request(e.record, "t1")
    assert dispatcher.dispatch(Message(1, asked.kind, message_of(asked)))
    assert dispatcher.dispatch(Message(2, asked.kind, message_of(asked)))  # relayed again
    (answer,) = org.rows(kind="workflow.cancel_answered")
    assert answer.body == {"task": "t1", "cancelled": True, "why": ""}
    (cancelled,) = org.rows(kind="workflow.cancelled")
    assert cancelled.body == {"by": e.record.who}
    (outcome,) = org.rows(kind="attempt.outcome")
    assert outcome.body == {
        "outcome": CANCELLED,
        "performer": "agent",
        "detail": "fenced: t1 was cancelled",
    }
    with pytest.raises(Fenced):
        e.memory.check_fence(f"{W}/a0", claim.body["token"])
    settled = [
        (r.key, r.body["outcome"]) for r in org.rows(kind=["work.settled", "workflow.settled"])
    ]
    assert settled == [
        (W, CANCELLED),
        ("t1.s0.mid.s0.low", CANCELLED),
        ("t1.s0.mid", CANCELLED),
        ("t1", CANCELLED),
    ]
    before = org.lines()
    e.reply(f"{W}/a0", "agent", SUCCEEDED)  # the performer answers after the fence
    e.pump()
    assert org.lines() == before


def test_only_an_open_root_is_cancelled(org):
    org.plugins = (Scripted("agent", {f"{W}/a0": "later"}),)
    e = org.engine()
    e.admit(catalog_of(nested).bind("top"), "ask", "leader")
    e.pump()
    assert e.cancel("t1.s0.mid") == "t1.s0.mid is a child task; only a root is cancelled"
    assert e.cancel("t7") == "no task t7"
    e.reply(f"{W}/a0", "agent", SUCCEEDED)
    e.pump()
    assert e.cancel("t1") == "t1 has settled succeeded"
    assert org.rows(kind="workflow.cancelled") == []
    canceller = Canceller(e.record, e)
    for task, why in (("t1", "t1 has settled succeeded"), ("t7", "no task t7"),
                      ("t1.s0.mid", "t1.s0.mid is a child task; only a root is cancelled")):  # fmt: skip
        before = org.lines()
        asked = request(e.record, task)
        assert canceller.on_cancel_requested(Message(1, asked.kind, message_of(asked))) == why
        assert org.lines()[len(before) :] == [
            f"workflow.cancel_requested {asked.key}",
            f"workflow.cancel_answered {asked.key}",
        ]  # answered with why, and nothing else written
        answered = org.rows(kind="workflow.cancel_answered")[-1].body
        assert answered == {"task": task, "cancelled": False, "why": why}
