"""Legs through the head served on loopback, the node's relay and the organization."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from ask_helpers import Project, Scripted

from hale_runtime.engine import BudgetPolicy
from hale_runtime.head import HeadClient, HeadError, HeadServer, Leg
from hale_runtime.nerves import Dispatcher, open_nerves
from hale_runtime.node.relay import Relay


class Organization:
    """What a node and its organization do between ticks: relay, dispatch, settle."""

    def __init__(self, project: Project, budget: BudgetPolicy | None = None):
        self.project = project
        self.node = project.node(leader=False, budget=budget)
        self.nerves = open_nerves(project.memory_path)
        self.hearing = self.nerves.subscribe("")
        self.relay = Relay()
        self.dispatcher = Dispatcher()
        self.dispatcher.on("AttemptAllowanceRequested", self.node.settler.on_allowance_requested)
        self.dispatcher.on("AttemptOutcomeRequested", self.node.settler.on_outcome_requested)
        self.dispatcher.on("IntentRequested", self.node.intake.on_intent_requested)

    def tick(self) -> int:
        self.relay.relay(self.project.record(), self.nerves)
        return self.dispatcher.pump(self.hearing)


def _leg(project: Project, server: HeadServer, name: str, provider=None) -> Leg:
    return Leg(project.root, name, HeadClient(server.url, server.token), provider)


def test_a_leg_works_an_attempt_to_its_settlement(project: Project, served: HeadServer) -> None:
    org = Organization(project, BudgetPolicy("day", 25_000_000))
    project.record("ann@box:c1").append(
        "intent.requested", "i-1", {"objective": "is it clear", "judgment": True}
    )
    org.tick()
    leg = _leg(project, served, "leg:ann", Scripted("yes, clear", price=700))
    got = leg.next()
    assert got["attempt"] == "t1/wf1/s0/j/a0" and len(leg.held()["token"]) == 32
    assert leg.next()["attempt"] == got["attempt"]  # held: shown again, lease renewed
    assert leg.allowance(wait=0)["answered"] is False
    org.tick()
    assert leg.allowance(wait=0)["granted"] == 2_000_000
    assert leg.call("is it clear") == "yes, clear"
    assert leg.submit("succeeded", "it is clear")["calls"] == 1
    assert leg.held() is None
    org.tick()
    outcome = project.rows("attempt.outcome", "t1/wf1/s0/j/a0")[0].body
    assert (outcome["outcome"], outcome["detail"], outcome["spent_micros"]) == (
        "succeeded",
        "it is clear",
        700,
    )
    assert project.rows("workflow.settled", "t1")[0].body["outcome"] == "succeeded"
    assert org.tick() == 0  # everything answered: nothing relayed again


def test_a_leg_makes_no_call_priced_past_what_is_left(project: Project, served: HeadServer) -> None:
    org = Organization(project, BudgetPolicy("day", 1500))
    project.record().append("intent.requested", "i-1", {"objective": "judge", "judgment": True})
    org.tick()
    leg = _leg(project, served, "leg:ann", Scripted("ok", price=1000))
    leg.next()
    leg.allowance(wait=0)
    org.tick()
    assert leg.allowance(wait=0)["granted"] == 1500
    leg.call("first")
    with pytest.raises(
        HeadError, match="not called: the call costs 1000 micro-dollars, past the 500 left"
    ):
        leg.call("second")
    assert len(leg.held()["calls"]) == 1 and len(leg.provider.prompts) == 1


def test_a_leg_overrunning_its_grant_is_settled_failed(
    project: Project, served: HeadServer
) -> None:
    org = Organization(project, BudgetPolicy("day", 1500))
    project.record().append("intent.requested", "i-1", {"objective": "judge", "judgment": True})
    org.tick()
    leg = _leg(project, served, "leg:ann", Scripted("ok", price=None, cost=2000))  # price unknown
    leg.next()
    leg.allowance(wait=0)
    org.tick()
    leg.allowance(wait=0)
    leg.call("a call whose price nobody knew")
    leg.submit("succeeded")
    org.tick()
    attempt = "t1/wf1/s0/j/a0"
    outcome = project.rows("attempt.outcome", attempt)[0].body
    assert outcome["outcome"] == "failed"
    assert outcome["detail"] == "overran its grant: spent 2000 of 1500 micro-dollars"
    assert project.rows("model.called", attempt)[0].body["micros"] == 2000  # journaled all the same


def test_a_leg_with_an_expired_lease_cannot_settle(project: Project, served: HeadServer) -> None:
    from ask_helpers import age_claim

    org = Organization(project)
    project.record().append("intent.requested", "i-1", {"objective": "judge", "judgment": True})
    org.tick()
    leg = _leg(project, served, "leg:ann")
    got = leg.next()
    age_claim(project.memory_path, f"lease/{got['attempt']}", 61_000)
    before = project.lines()
    with pytest.raises(HeadError, match=r"refused: leg:ann holds no live lease on t1/wf1/s0/j/a0"):
        leg.submit("succeeded")
    assert project.lines() == before and leg.held() is not None


def test_the_allowance_waits_for_the_organization(project: Project, served: HeadServer) -> None:
    org = Organization(project)
    project.record().append("intent.requested", "i-1", {"objective": "judge", "judgment": True})
    org.tick()
    leg = _leg(project, served, "leg:ann")
    leg.next()
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(leg.allowance, 30.0)
        # the head writes the request, then waits for the organization's answer
        assert wait_until(lambda: project.rows("attempt.allowance.requested"), 30)
        org.tick()
        assert waiting.result(timeout=30)["granted"] == 2_000_000


def test_eight_legs_at_once_each_get_their_own_attempt(
    project: Project, served: HeadServer
) -> None:
    org = Organization(project)
    for i in range(8):
        project.record().append(
            "intent.requested", f"i-{i}", {"objective": f"judge {i}", "judgment": True}
        )
    org.tick()
    legs = [_leg(project, served, f"leg:{n}") for n in range(8)]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda leg: leg.next()["attempt"], legs))
        list(pool.map(lambda leg: leg.submit("succeeded"), legs))
    assert len(set(got)) == 8
    org.tick()
    assert len(project.rows("workflow.settled")) == 8


def wait_until(check: Callable[[], object], timeout_s: float) -> object:
    """Poll another thread's progress (not time: there is no clock to inject)."""
    deadline = time.monotonic() + timeout_s
    while not (found := check()) and time.monotonic() < deadline:
        time.sleep(0.005)
    return found
