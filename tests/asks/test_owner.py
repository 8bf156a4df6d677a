"""The owner check: over a shared record only the organization owning the ask's position admits it."""

from __future__ import annotations

from ask_helpers import Project, ask_row, relayed


def _fill(project: Project, position: str, owner: str) -> None:
    body = {"position": position, "holder": f"{owner}-body", "owner": owner}
    project.record().append("position.filled", position, body)


def test_only_the_owner_of_the_position_admits(project: Project) -> None:
    _fill(project, "leader", "acme")
    _fill(project, "ops", "globex")
    acme = project.node("acme@box:c1", leader=False, owner="acme")
    globex = project.node("globex@box:c2", leader=False, owner="globex")
    to_leader = ask_row(project, "add a health check")
    to_ops = ask_row(project, "patch the deploy script", to="position:ops")
    before = project.lines()
    said = globex.intake.on_intent_requested(relayed(to_leader))
    assert said == "not ours: position:leader is owner acme's; globex admits nothing for it"
    assert acme.intake.on_intent_requested(relayed(to_ops)).startswith("not ours: position:ops")
    assert project.lines() == before  # neither wrote anything
    assert acme.intake.on_intent_requested(relayed(to_leader)) == "offered: t1"
    assert globex.intake.on_intent_requested(relayed(to_ops)) == "offered: t2"
    assert globex.intake.on_intent_requested(relayed(to_leader)) == "answered before"


def test_a_position_no_organization_owns_is_admitted_by_none(project: Project) -> None:
    acme = project.node("acme@box:c1", leader=False, owner="acme")
    said = acme.offer("i-1", objective="x", to="position:nobodys")
    assert said.startswith("not ours: position:nobodys is owned by no organization")
    assert not project.rows("intent.offered") and not project.rows("intent.refused")


def test_the_askers_owner_stands_when_the_record_names_none(project: Project) -> None:
    acme = project.node("acme@box:c1", leader=False, owner="acme")
    assert acme.offer("i-1", objective="x", owner="acme") == "offered: t1"


def test_the_owner_check_runs_before_the_budget(project: Project) -> None:
    from hale_runtime.engine import BudgetPolicy

    project.record().append("model.called", "x", {"call": "x#0", "micros": 10})
    globex = project.node("g@box:c2", leader=False, owner="globex", budget=BudgetPolicy("day", 10))
    assert globex.offer("i-1", objective="x", owner="acme").startswith("not ours")
    assert not project.rows("intent.refused")


def test_a_record_that_is_not_shared_admits_every_position(project: Project) -> None:
    _fill(project, "ops", "globex")
    node = project.node(leader=False)
    assert node.offer("i-1", objective="x", to="position:ops") == "offered: t1"
