"""The head's calls for legs, under the leg's lease, and the organization settling them."""

from __future__ import annotations

import re

import pytest
from ask_helpers import Project, age_claim, ask_row, relayed

from hale_runtime.engine import BudgetPolicy
from hale_runtime.head import HeadRefused

A, B = "leg:ann", "leg:bob"


def _judgments(project: Project, n: int = 1, budget: BudgetPolicy | None = None):
    node = project.node(leader=False, budget=budget)
    for i in range(n):
        node.offer(f"i-{i}", objective=f"judge thing {i}", judgment=True)
    return node


def _settle(project: Project, node, kind: str) -> str:
    """What a node's relay and the organization do with the head's last `kind` row."""
    row = project.rows(kind)[-1]
    if kind.startswith("attempt.allowance"):
        return node.settler.on_allowance_requested(relayed(row))
    return node.settler.on_outcome_requested(relayed(row))


def _lease(got: dict, leg: str = A) -> dict:
    return {"leg": leg, "attempt": got["attempt"], "token": got["token"]}


def test_a_claim_hands_one_open_attempt_under_a_lease(project: Project) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    assert got["attempt"] == "t0/wf1/s0/j/a0".replace("t0", "t1")
    assert re.fullmatch(r"[0-9a-f]{32}", got["token"])  # 128 bits, told to this leg only
    assert got["objective"] == "judge thing 0" and got["requires"] == ["judgment"]
    taken = project.rows("claim.taken", f"lease/{got['attempt']}")[0].body
    assert taken["holder"] == A and taken["token"] == 1  # memory's fencing token, not the lease's
    assert got["token"] not in project.lines()
    assert head.call("dna.attempt.claim", {"leg": B}) == {"attempt": None}
    again = head.call("dna.attempt.claim", {"leg": A})  # the same leg: its own attempt back
    assert again["attempt"] == got["attempt"]


def test_legs_racing_get_different_attempts(project: Project) -> None:
    _judgments(project, 2)
    first = project.head().call("dna.attempt.claim", {"leg": A})
    second = project.head().call("dna.attempt.claim", {"leg": B})
    assert {first["attempt"], second["attempt"]} == {"t1/wf1/s0/j/a0", "t2/wf1/s0/j/a0"}


def test_allowance_then_outcome_settled_by_the_organization(project: Project) -> None:
    node = _judgments(project, budget=BudgetPolicy("day", 25_000_000))
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    asked = head.call("dna.attempt.allowance", _lease(got))
    assert asked == {"attempt": got["attempt"], "answered": False}
    assert _settle(project, node, "attempt.allowance.requested") == "granted 2000000"
    assert _settle(project, node, "attempt.allowance.requested") == "answered before"
    answer = head.call("dna.attempt.allowance", _lease(got))
    assert answer["answered"] and answer["granted"] == 2_000_000 and answer["refused"] == ""
    assert len(project.rows("attempt.allowance.requested")) == 1  # asked once
    call = {"call": "c#0", "model": "m", "micros": 1500, "answer": "clear"}
    out = head.call("dna.attempt.outcome", {**_lease(got), "outcome": "succeeded", "calls": [call]})
    assert out == {"attempt": got["attempt"], "submitted": "succeeded"}
    assert project.rows("claim.released", f"lease/{got['attempt']}")
    assert _settle(project, node, "attempt.outcome.requested") == "settled succeeded"
    outcome = project.rows("attempt.outcome", got["attempt"])[0].body
    assert outcome["outcome"] == "succeeded" and outcome["spent_micros"] == 1500
    assert project.rows("model.called", got["attempt"])[0].body["micros"] == 1500
    assert project.rows("workflow.settled", "t1")[0].body["outcome"] == "succeeded"
    assert _settle(project, node, "attempt.outcome.requested") == "answered before"


def test_an_allowance_on_an_exhausted_window_is_refused(project: Project) -> None:
    node = _judgments(project, budget=BudgetPolicy("day", 1000))
    project.record().append("model.called", "x", {"call": "x#0", "micros": 1000})
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    head.call("dna.attempt.allowance", _lease(got))
    said = _settle(project, node, "attempt.allowance.requested")
    assert (
        said == "refused: budget exhausted (spent 1000 of 1000 micro-dollars this day in 1 call(s))"
    )
    answer = head.call("dna.attempt.allowance", _lease(got))
    assert answer["refused"] == said and answer["granted"] == 0
    assert project.rows("budget.refused", got["attempt"])[0].body == {"text": said}


@pytest.mark.parametrize("method", ["renew", "allowance", "outcome", "release"])
def test_a_leg_whose_lease_expired_is_refused_and_nothing_is_written(
    project: Project, method: str
) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    age_claim(project.memory_path, f"lease/{got['attempt']}", 61_000)
    before = project.lines()
    with pytest.raises(HeadRefused, match=rf"refused: {A} holds no live lease on t1/wf1/s0/j/a0"):
        head.call(f"dna.attempt.{method}", {**_lease(got), "outcome": "succeeded"})
    assert project.lines() == before


def test_a_foreign_lease_is_refused_and_nothing_is_written(project: Project) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    before = project.lines()
    with pytest.raises(HeadRefused, match="holds no live lease") as refused:
        head.call("dna.attempt.outcome", {**_lease(got, B), "outcome": "succeeded"})
    assert A not in str(refused.value)  # a refusal names no other leg's lease
    with pytest.raises(HeadRefused, match="holds no live lease"):
        head.call("dna.attempt.outcome", {"leg": A, "attempt": "t9/wf1/s0/j/a0", "token": "1"})
    guessed = {**_lease(got), "token": "0" * 32}
    with pytest.raises(HeadRefused, match="holds no live lease"):  # the leg itself, wrong token
        head.call("dna.attempt.outcome", {**guessed, "outcome": "failed"})
    assert project.lines() == before


def test_a_lease_taken_over_after_expiry_fences_the_first_leg(project: Project) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    age_claim(project.memory_path, f"lease/{got['attempt']}", 61_000)
    took = head.call("dna.attempt.claim", {"leg": B})
    assert took["attempt"] == got["attempt"] and took["token"] != got["token"]
    with pytest.raises(HeadRefused, match="holds no live lease") as refused:
        head.call("dna.attempt.outcome", {**_lease(got), "outcome": "succeeded"})
    assert B not in str(refused.value)


def test_release_gives_the_attempt_to_another_leg(project: Project) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    assert head.call("dna.attempt.release", _lease(got))["released"]
    assert head.call("dna.attempt.claim", {"leg": B})["attempt"] == got["attempt"]


def test_renew_extends_the_lease(project: Project) -> None:
    _judgments(project)
    head = project.head(lease_s=5)
    got = head.call("dna.attempt.claim", {"leg": A})
    renewed = head.call("dna.attempt.renew", _lease(got))
    assert renewed["token"] == got["token"] and renewed["until"] >= got["until"]


def test_an_attempt_for_a_position_goes_only_to_the_leg_holding_it(project: Project) -> None:
    node = project.node(leader=False)
    node.offer("i-1", objective="patch the deploy script", to="position:ops")
    head = project.head()
    assert head.call("dna.attempt.claim", {"leg": A}) == {"attempt": None}
    node.memory.set_holder("ops", B)
    assert head.call("dna.attempt.claim", {"leg": B})["attempt"] == "t1/wf1/s0/h/a0"


def test_over_a_shared_record_a_head_hands_only_its_organizations_attempts(
    project: Project,
) -> None:
    for position, owner in (("leader", "acme"), ("ops", "globex")):
        body = {"position": position, "holder": f"{owner}-body", "owner": owner}
        project.record().append("position.filled", position, body)
    acme = project.node("acme@box:c1", leader=False, owner="acme")
    globex = project.node("globex@box:c2", leader=False, owner="globex")
    assert acme.offer("i-1", objective="judge the readme", judgment=True) == "offered: t1"
    assert globex.offer("i-2", objective="patch the deploy", to="position:ops") == "offered: t2"
    globex.memory.set_holder("ops", B)
    acmes, globexs = project.head(owner="acme"), project.head(owner="globex")
    before = project.lines()
    assert globexs.call("dna.attempt.claim", {"leg": A}) == {"attempt": None}
    assert project.lines() == before  # acme's attempt is not globex's to hand: nothing written
    assert acmes.call("dna.attempt.claim", {"leg": B})["attempt"] == "t1/wf1/s0/j/a0"
    assert acmes.call("dna.attempt.claim", {"leg": A}) == {"attempt": None}  # t2 is globex's
    assert globexs.call("dna.attempt.claim", {"leg": B})["attempt"] == "t2/wf1/s0/h/a0"


def test_over_a_shared_record_only_the_owner_settles_a_legs_asks(project: Project) -> None:
    body = {"position": "leader", "holder": "acme-body", "owner": "acme"}
    project.record().append("position.filled", "leader", body)
    acme = project.node("acme@box:c1", leader=False, owner="acme")
    globex = project.node("globex@box:c2", leader=False, owner="globex")
    assert acme.offer("i-1", objective="judge the readme", judgment=True) == "offered: t1"
    head = project.head(owner="acme")
    got = head.call("dna.attempt.claim", {"leg": A})
    head.call("dna.attempt.allowance", _lease(got))
    before = project.lines()
    said = _settle(project, globex, "attempt.allowance.requested")
    assert said == "not ours: t1/wf1/s0/j/a0 is owner acme's; globex answers nothing for it"
    assert project.lines() == before
    assert _settle(project, acme, "attempt.allowance.requested") == "granted 2000000"
    head.call("dna.attempt.outcome", {**_lease(got), "outcome": "succeeded"})
    before = project.lines()
    assert _settle(project, globex, "attempt.outcome.requested").startswith("not ours")
    assert project.lines() == before
    assert _settle(project, acme, "attempt.outcome.requested") == "settled succeeded"


def test_the_askers_owner_stands_for_the_head_when_the_record_names_none(
    project: Project,
) -> None:
    node = project.node("acme@box:c1", leader=False, owner="acme")
    row = ask_row(project, "judge it", judgment=True, owner="acme")
    assert node.intake.on_intent_requested(relayed(row)) == "offered: t1"
    assert project.head(owner="globex").call("dna.attempt.claim", {"leg": A}) == {"attempt": None}
    assert project.head(owner="acme").call("dna.attempt.claim", {"leg": A})["attempt"]


def test_an_outcome_twice_is_refused_the_second_time(project: Project) -> None:
    _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    head.call("dna.attempt.outcome", {**_lease(got), "outcome": "failed"})
    with pytest.raises(HeadRefused):
        head.call("dna.attempt.outcome", {**_lease(got), "outcome": "failed"})


def test_calls_without_an_allowance_overran_a_grant_of_nothing(project: Project) -> None:
    node = _judgments(project)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    call = {"call": "c#0", "model": "m", "micros": 10, "answer": "x"}
    head.call("dna.attempt.outcome", {**_lease(got), "outcome": "succeeded", "calls": [call]})
    _settle(project, node, "attempt.outcome.requested")
    outcome = project.rows("attempt.outcome", got["attempt"])[0].body
    assert outcome["outcome"] == "failed"
    assert outcome["detail"] == "overran its grant: spent 10 of 0 micro-dollars"


def test_bad_calls_are_refused(project: Project) -> None:
    head = project.head()
    with pytest.raises(HeadRefused, match="no such call"):
        head.call("dna.attempt.steal", {"leg": A})
    with pytest.raises(HeadRefused, match="names itself"):
        head.call("dna.attempt.claim", {})
    with pytest.raises(HeadRefused, match="lease token"):
        head.call("dna.attempt.renew", {"leg": A, "attempt": "t1/wf1/s0/j/a0"})


def test_an_attempt_resolved_by_a_person_is_no_longer_a_legs(project: Project) -> None:
    """An `attempt.outcome` another writer made (a settled resolve): the head reads it like any row."""
    _judgments(project, 2)
    head = project.head()
    got = head.call("dna.attempt.claim", {"leg": A})
    body = {"outcome": "failed", "performer": "agent", "detail": "resolved by a person"}
    project.record("ann@box:c1").append("attempt.outcome", got["attempt"], body)
    with pytest.raises(HeadRefused, match="is not open for a leg"):
        head.call("dna.attempt.outcome", {**_lease(got), "outcome": "succeeded"})
    assert head.call("dna.attempt.claim", {"leg": A})["attempt"] == "t2/wf1/s0/j/a0"


def test_a_persons_resolve_goes_the_legs_way_and_is_refused_unless_waiting(
    project: Project,
) -> None:
    """`hale dna effect resolve` asks by `attempt.outcome.requested`; the Settler checks it."""
    node = _judgments(project)
    attempt = "t1/wf1/s0/j/a0"
    body = {"outcome": "succeeded", "note": "resolved by a person", "resolved_by": "ann@box:c1"}
    ask = project.record("ann@box:c1").append("attempt.outcome.requested", attempt, body)
    said = _settle(project, node, "attempt.outcome.requested")
    assert said == f"{attempt} is not waiting for a person"
    assert not project.rows("attempt.outcome", attempt)
    answered = project.rows("attempt.outcome.answered", attempt)[0].body
    assert answered == {"settled": "", "why": said, "ask": ask.id}


def _view(head) -> dict:
    """What the head's later decisions read of its fold."""
    o, s = head.owners, head.state
    return {
        "open": list(head.open), "asked": sorted(head.asked), "allowances": head.allowances,
        "owners": (o.positions, o.asked, o.to), "attempts": sorted(s.attempts),
        "claimed": sorted(a.id for a in s.attempts.values() if a.claimed),
        "tasks": sorted(s.tasks), "cursor": head.follower.seq,
    }  # fmt: skip


def test_the_head_starts_from_the_organizations_checkpoint(project: Project) -> None:
    """The head opened beside a node resumes where the organization's newest
    checkpoint stands, so its first call folds only the rows after it, and
    knows what a head folding the whole record knows."""
    from hale_runtime.head.server import open_head_for
    from hale_runtime.node.checkpoint import Checkpointer, Checkpoints, Files

    body = {"position": "ops", "holder": "acme-body", "owner": "acme"}
    project.record().append("position.filled", "ops", body)
    node = _judgments(project, 4, budget=BudgetPolicy("day", 25_000_000))
    node.offer("i-ops", objective="patch it", to="position:ops")
    head = project.head()
    first, second, third = (
        head.call("dna.attempt.claim", {"leg": leg}) for leg in (A, B, "leg:cy")
    )
    head.call("dna.attempt.allowance", _lease(first))
    _settle(project, node, "attempt.allowance.requested")
    head.call("dna.attempt.allowance", _lease(second, B))  # asked, not yet answered
    head.call("dna.attempt.outcome", {**_lease(third, "leg:cy"), "outcome": "succeeded"})
    _settle(project, node, "attempt.outcome.requested")  # t3 settles: the fold forgets it
    node.engine.pump()
    folds = {"engine": node.engine, "settler": node.settler}
    store = Checkpoints(Files(node.record.repo.path), print)
    assert Checkpointer(node.record, store, folds, every_rows=1).tick() is not None
    at = node.record.cursor()
    node.offer("i-9", objective="judge one more", judgment=True)  # after the checkpoint
    opened = open_head_for(project.root, str(project.memory_path), "org@box:c0ffee00")()
    assert opened.follower.seq == at  # resumed: the rows before `at` are not read again
    opened.read()
    head.read()
    assert _view(opened) == _view(head)
    claims = [opened.call("dna.attempt.claim", {"leg": f"leg:{n}"})["attempt"] for n in range(3)]
    assert claims == ["t4/wf1/s0/j/a0", "t6/wf1/s0/j/a0", None]  # t5 is for ops' holder
