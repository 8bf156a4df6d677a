"""The organization's intake: the order of checks, admission once by id, the table."""

from __future__ import annotations

import json

from ask_helpers import Project, Scripted, ask_row, relayed

from hale_runtime.engine import BudgetPolicy


def test_an_ask_is_offered_admitted_and_born_in_that_order(project: Project) -> None:
    node = project.node(leader=False)
    row = ask_row(project, "add a health check")
    assert node.intake.on_intent_requested(relayed(row)) == "offered: t1"
    kinds = [r.kind for r in project.rows() if r.key in (row.key, "t1")]
    assert kinds[:4] == ["intent.requested", "intent.offered", "workflow.admitted", "task.born"]
    offered = project.rows("intent.offered")[0]
    admitted = project.rows("workflow.admitted", "t1")[0]
    assert admitted.body["ask"] == row.key and admitted.body["definition"] == "ask-edit@1"
    assert offered.body == {
        "definition": "ask-edit@1", "planned": False, "kind": "application",
        "class": "change", "target": ".",
    }  # fmt: skip
    born = project.rows("task.born", "t1")[0]
    assert born.body["summary"].startswith("ask-edit@1: ")


def test_without_a_leader_every_ask_is_an_application_change(project: Project) -> None:
    node = project.node(leader=False, provider=None)
    node.offer("i-1", objective="make the page faster", target="web/home")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert (offered["kind"], offered["class"], offered["target"]) == (
        "application",
        "change",
        "web/home",
    )
    assert not project.rows("claim.taken") and not project.rows("model.called", "plan/i-1")


def test_the_boards_gate_refuses_an_empty_ask(project: Project) -> None:
    node = project.node()
    said = node.offer("i-1", objective="   ")
    assert said == "refused: the Board's gate admits no empty ask"
    assert project.rows("intent.refused", "i-1")[0].body == {"reason": said}
    assert not project.rows("workflow.admitted") and not project.rows("claim.taken")


def test_an_ask_relayed_twice_is_one_execution(project: Project) -> None:
    node = project.node(leader=False)
    row = ask_row(project, "tidy the changelog")
    assert node.intake.on_intent_requested(relayed(row)) == "offered: t1"
    assert node.intake.on_intent_requested(relayed(row)) == "answered before"
    restarted = project.node(leader=False)  # a relay repeated after a lost answer, after a restart
    assert restarted.intake.on_intent_requested(relayed(row)) == "answered before"
    assert len(project.rows("intent.offered")) == 1
    assert len(project.rows("workflow.admitted")) == 1


def test_a_refused_ask_relayed_again_is_not_answered_twice(project: Project) -> None:
    node = project.node()
    row = ask_row(project, "")
    node.intake.on_intent_requested(relayed(row))
    node.intake.on_intent_requested(relayed(row))
    assert len(project.rows("intent.refused")) == 1


def test_judgment_is_ask_judge_and_no_plan_is_asked(project: Project) -> None:
    from ask_helpers import Scripted

    provider = Scripted('{"kind": "person", "whom": "ann"}')
    node = project.node(provider=provider)
    assert node.offer("i-1", objective="is the readme clear", judgment=True) == "offered: t1"
    assert project.rows("intent.offered", "i-1")[0].body["definition"] == "ask-judge@1"
    assert provider.prompts == [] and not project.rows("claim.taken")


def test_to_a_position_is_ask_position_and_no_plan_is_asked(project: Project) -> None:
    from ask_helpers import Scripted

    provider = Scripted('{"kind": "person", "whom": "ann"}')
    node = project.node(provider=provider)
    node.offer("i-1", objective="patch the deploy script", to="position:ops")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert offered["definition"] == "ask-position@1" and offered["position"] == "position:ops"
    assert provider.prompts == [] and not project.rows("claim.taken")


def test_budget_exhausted_refuses_with_the_seeds_text(project: Project) -> None:
    node = project.node(budget=BudgetPolicy("day", 2000), leader=False)
    spend = project.record("leg@box:c2")
    for n in range(2):
        spend.append(
            "model.called", f"elsewhere/{n}", {"call": f"x#{n}", "model": "m", "micros": 1000}
        )
    said = node.offer("i-1", objective="anything at all")
    assert (
        said == "refused: budget exhausted (spent 2000 of 2000 micro-dollars this day in 2 call(s))"
    )
    assert project.rows("intent.refused", "i-1")[0].body["reason"] == said
    assert not project.rows("workflow.admitted")


def test_checks_run_in_order_gate_before_budget(project: Project) -> None:
    node = project.node(budget=BudgetPolicy("day", 1000), leader=False)
    project.record().append("model.called", "x", {"call": "x#0", "micros": 1000})
    assert node.offer("i-1", objective="") == "refused: the Board's gate admits no empty ask"


def test_offered_body_is_json_plain(project: Project) -> None:
    node = project.node(leader=False)
    node.offer("i-1", objective="x")
    json.dumps(project.rows("intent.offered")[0].body)


def test_checks_run_in_order_budget_before_the_plan_claim(project: Project) -> None:
    provider = Scripted('{"kind": "product"}')
    node = project.node(provider=provider, budget=BudgetPolicy("day", 1000))
    project.record().append("model.called", "x", {"call": "x#0", "micros": 1000})
    said = node.offer("i-1", objective="add a health check")
    assert said.startswith("refused: budget exhausted")
    assert provider.prompts == [] and not project.rows("claim.taken")
    assert node.memory.claim("plan/i-1") is None
