"""How an execution runs: admission, ids, registration before dispatch,
performer selection, settling in order, replies in any order, repeats and
replies that are nobody's."""

from __future__ import annotations

import pygit2
import pytest
from engine_helpers import Scripted, catalog_of, close_month, work

from hale_runtime.engine import plan_of
from hale_runtime.performers import FAILED, SUCCEEDED

INPUTS = {"period": "2026-11"}


def test_ids_are_the_seeds(org):
    org.plugins = (Scripted("agent", {"t1/wf1/s0/a/a0": FAILED}),)
    e = org.engine()
    assert (
        e.admit(
            catalog_of(close_month).bind("close-month", inputs=INPUTS), "ask-1", "leader", INPUTS
        ).task
        == "t1"
    )
    e.pump()
    keys = {r.key for r in org.rows()}
    for key in ("t1", "t1.s0.b", "t1/wf1/s0", "t1/wf1/s0/a", "t1/wf1/s0/a/a0", "t1/wf1/s0/a/a1"):
        assert key in keys
    assert "t1.s0.b/wf1/s0/think/a0" in keys


def test_admission_is_idempotent_by_ask_and_names_the_convener(org):
    e = org.engine()
    bound = catalog_of(close_month).bind("close-month", inputs=INPUTS)
    first = e.admit(bound, "ask-1", "leader", INPUTS)
    again = e.admit(bound, "ask-1", "leader", INPUTS)
    e.pump()
    assert (first.task, first.new) == ("t1", True)
    assert (again.task, again.new) == ("t1", False)
    assert org.engine().admit(bound, "ask-1", "leader", INPUTS).task == "t1"  # after a restart too
    admitted = org.rows(kind="workflow.admitted", prefix="t1")
    roots = [r for r in admitted if r.key == "t1"]
    assert len(roots) == 1
    assert roots[0].body["convener"] == "leader" and roots[0].body["ask"] == "ask-1"
    (born,) = [r for r in org.rows(kind="task.born") if r.key == "t1"]
    assert born.body == {"summary": "close-month@1: close the month"}


def test_a_task_id_another_body_claimed_is_never_minted_again(org):
    """Two bodies folding the same record would both mint t1; the id is claimed in
    memory first, so the second takes the next one (and a restart keeps its own)."""
    pygit2.Repository(str(org.root)).remotes.create("origin", str(org.root.parent / "shared.git"))
    e = org.engine()
    bound = catalog_of(close_month).bind("close-month", inputs=INPUTS)
    assert e.memory.take("task/t1", "beta@box:c2", 3600) is not None  # beta minted t1, unsynced
    assert e.admit(bound, "ask-1", "leader", INPUTS).task == "t2"
    e.pump()
    assert e.memory.take("task/t2", "beta@box:c2", 3600) is None  # held for good
    assert e.memory.take("task/t3", "beta@box:c2", 3600) is not None
    assert org.engine().admit(bound, "ask-2", "leader", INPUTS).task == "t4"
    assert [r.key for r in org.rows(kind="workflow.admitted") if "plan" in r.body] == ["t2"]


def test_a_second_root_under_an_ask_is_refused_by_the_fold_and_never_run(org):
    """A body that died before its answer reached the remote pushes it late, after
    another body admitted the same ask: the record holds two roots for one ask.
    The first is the admission; the second is refused where it is folded."""
    e = org.engine()
    bound = catalog_of(close_month).bind("close-month", inputs=INPUTS)
    assert e.admit(bound, "ask-1", "leader", INPUTS).task == "t1"
    e.pump()
    (first,) = [r for r in org.rows(kind="workflow.admitted") if r.key == "t1"]
    late = e.record.append("workflow.admitted", "t2", first.body)  # the dead body's, pushed late
    e.record.append("task.born", "t2", {"summary": "close-month@1: close the month"})
    again = org.engine()
    again.pump()
    assert again.state.poison[late.id] == ("workflow.admitted",
                                           "ValueError: ask ask-1 is admitted already, as t1")  # fmt: skip
    assert "t2" not in again.state.tasks
    assert not org.rows(kind="step.registered", prefix="t2")  # nothing of it runs
    assert again.admit(bound, "ask-1", "leader", INPUTS).task == "t1"


def test_a_record_with_no_remote_has_one_body_and_claims_no_task_id(org):
    e = org.engine()
    bound = catalog_of(close_month).bind("close-month", inputs=INPUTS)
    assert e.admit(bound, "ask-1", "leader", INPUTS).task == "t1"
    assert e.memory.claim("task/t1") is None


def test_inputs_are_checked_against_what_the_definition_takes(org):
    e = org.engine()
    cat = catalog_of(close_month)
    bound = cat.bind("close-month", inputs=INPUTS)
    assert "takes period" in e.admit(bound, "a", "leader", {}).refused
    assert (
        "takes no input colour"
        in e.admit(bound, "b", "leader", {**INPUTS, "colour": "red"}).refused
    )
    assert "takes period" in e.admit_from(cat, "close-month", "c", "leader", {}).refused
    e.pump()
    assert org.rows() == []


def test_a_definition_refused_at_binding_admits_nothing_and_says_why(org):
    def build(c):
        assert c.define("ship", 1, "heart", "ship it") == ""
        assert c.leaf("ship", 1, 0, "deploy", work("go", "organism"), 1) == ""

    e = org.engine()
    got = e.admit_from(catalog_of(build), "ship", "ask-9", "leader")
    assert got.task == "" and "writes the heart (GH #987)" in got.refused
    assert (
        e.admit_from(catalog_of(build), "nope", "ask-10", "leader").refused
        == "no workflow nope in the catalog"
    )
    e.pump()
    assert org.rows() == []


def test_a_step_registers_its_whole_member_set_before_dispatching(org):
    e = org.engine()
    e.admit(catalog_of(close_month).bind("close-month", inputs=INPUTS), "ask-1", "leader", INPUTS)
    e.pump()
    lines = org.lines()
    registered = lines.index("step.registered t1/wf1/s0")
    assert org.rows(kind="step.registered")[0].body["members"] == ["a", "b"]
    for dispatched in ("attempt.admitted t1/wf1/s0/a/a0", "workflow.admitted t1.s0.b"):
        assert lines.index(dispatched) > registered


def test_the_next_step_activates_only_when_every_member_settled(org):
    agent = Scripted("agent", {"t1.s0.b/wf1/s0/think/a0": "later"})
    org.plugins = (agent,)
    e = org.engine()
    e.admit(catalog_of(close_month).bind("close-month", inputs=INPUTS), "ask-1", "leader", INPUTS)
    e.pump()
    assert "work.settled t1/wf1/s0/a" in org.lines()
    assert "step.registered t1/wf1/s1" not in org.lines()  # the child is still out
    e.reply("t1.s0.b/wf1/s0/think/a0", "agent", SUCCEEDED)
    e.pump()
    lines = org.lines()
    assert lines.index("workflow.settled t1.s0.b") < lines.index("step.registered t1/wf1/s1")
    e.reply("t1/wf1/s1/post/a0", "person", SUCCEEDED)
    e.pump()
    assert org.lines()[-1] == "workflow.settled t1"
    assert e.settled("t1") == SUCCEEDED


def _each(c, requires: str) -> None:
    key = {"organism": "plan"}.get(requires, "x")
    assert c.define("one", 1, "record", "one leaf") == ""
    assert c.leaf("one", 1, 0, key, work("do the thing", requires), 1) == ""


@pytest.mark.parametrize(
    "requires, kind",
    [
        ("organism", "organism"),
        ("edit", "editor"),
        ("human", "person"),
        ("person", "person"),
        ("judgment", "agent"),
        ("analysis", "service"),
        ("translation", "agent"),
    ],
)
def test_requires_selects_the_performer(org, requires, kind):
    e = org.engine()
    e.admit(catalog_of(lambda c: _each(c, requires)).bind("one"), "ask", "leader")
    e.pump()
    (admitted,) = org.rows(kind="attempt.admitted")
    assert admitted.body["performer"] == kind


def test_capability_first_falls_back_down_its_chain(org):
    org.plugins = (Scripted("agent", offers={"analysis"}), Scripted("service", offers=set()))
    e = org.engine()
    e.admit(catalog_of(lambda c: _each(c, "judgment")).bind("one"), "j", "leader")
    e.admit(plan_of(catalog_of(lambda c: _each(c, "analysis")).bind("one")), "a", "leader")
    e.pump()
    performers = [r.body["performer"] for r in org.rows(kind="attempt.admitted")]
    assert performers == [
        "person",
        "agent",
    ]  # judgment: agent, then a person; analysis: service, then agent


def two_people(c) -> None:
    assert c.define("pair", 1, "record record", "two people then one") == ""
    assert c.leaf("pair", 1, 0, "x", work("first", "person"), 1) == ""
    assert c.leaf("pair", 1, 0, "y", work("second", "person"), 1) == ""
    assert c.leaf("pair", 1, 1, "z", work("third", "person"), 1) == ""


def test_replies_in_any_order_a_repeat_changes_nothing(org):
    e = org.engine()
    e.admit(catalog_of(two_people).bind("pair"), "ask", "leader")
    e.pump()
    e.reply("t1/wf1/s0/y/a0", "person", SUCCEEDED, "y first")
    e.pump()
    e.reply("t1/wf1/s0/x/a0", "person", SUCCEEDED)
    e.reply("t1/wf1/s0/x/a0", "person", FAILED, "said again, differently")
    e.pump()
    before = org.lines()
    e.reply("t1/wf1/s0/y/a0", "person", SUCCEEDED, "y first")
    e.pump()
    assert org.lines() == before
    outcomes = [r for r in org.rows(kind="attempt.outcome")]
    assert [r.key for r in outcomes] == ["t1/wf1/s0/y/a0", "t1/wf1/s0/x/a0"]
    assert outcomes[1].body["outcome"] == SUCCEEDED
    assert "step.registered t1/wf1/s1" in org.lines()


def test_a_reply_from_anyone_but_the_performer_is_nobodys(org):
    e = org.engine()
    e.admit(catalog_of(two_people).bind("pair"), "ask", "leader")
    e.pump()
    e.reply("t1/wf1/s0/x/a0", "agent", SUCCEEDED)
    e.pump()
    (refused,) = org.rows(kind="reply.refused")
    assert refused.key == "t1/wf1/s0/x/a0"
    assert refused.body == {
        "from": "agent",
        "admitted_to": "person",
        "why": "nobody's: the attempt was admitted to the person",
    }
    assert org.rows(kind="attempt.outcome") == []


def test_a_transition_is_exactly_once_in_the_record(org):
    org.plugins = (Scripted("agent", {"t1/wf1/s0/a/a0": FAILED}),)
    e = org.engine()
    e.admit(catalog_of(close_month).bind("close-month", inputs=INPUTS), "ask-1", "leader", INPUTS)
    e.pump()
    e.reply("t1/wf1/s1/post/a0", "person", SUCCEEDED)
    e.pump()
    for kind in ("attempt.claimed", "attempt.outcome", "work.settled", "workflow.settled"):
        keys = [r.key for r in org.rows(kind=kind)]
        assert len(keys) == len(set(keys)), kind
    assert len(org.rows(kind="attempt.outcome")) == len(org.rows(kind="attempt.admitted")) == 4


def test_an_attempt_is_claimed_once_and_delivered_only_under_its_claim(org):
    def one(c):
        assert c.define("one", 1, "record", "one leaf") == ""
        assert c.leaf("one", 1, 0, "x", work("weigh it", "judgment"), 1) == ""

    agent = Scripted("agent")
    org.plugins = (agent,)
    e = org.engine()
    held = e.memory.take("t1/wf1/s0/x/a0", "another@node:0", 60)
    e.admit(catalog_of(one).bind("one"), "ask", "leader")
    e.pump()
    assert agent.acted == [] and org.rows(kind="attempt.claimed") == []
    e.memory.release(held.key, held.holder, held.token)
    e.pump()
    assert agent.acted == ["t1/wf1/s0/x/a0"]
    (claimed,) = org.rows(kind="attempt.claimed")
    assert claimed.body == {"holder": "org@box:c0ffee00", "token": held.token + 1}
    assert e.settled("t1") == SUCCEEDED


def test_a_failing_store_leaves_the_state_as_the_record_has_it(org):
    e = org.engine()
    e.admit(catalog_of(two_people).bind("pair"), "ask", "leader")
    e.memory.close()  # memory goes away mid-round: the claims cannot be taken
    with pytest.raises(Exception):  # noqa: B017 - whichever error the store raises
        e.pump()
    assert e.state.tasks == {} and org.rows() == []
    e.memory = org.engine().memory
    assert (
        e.admit(catalog_of(two_people).bind("pair"), "ask", "leader").task == "t1"
    )  # the caller asks again
    e.pump()
    assert "attempt.claimed t1/wf1/s0/y/a0" in org.lines()
