"""Issue 32 item 1: the Leader's optimize proposal is an ask. A pass that finds
something writes `intent.requested` in the Leader's name, bound to what it
found; the intake admits or refuses it like any ask; a clean pass asks nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ask_helpers import Scripted, relayed  # noqa: E402
from schedule_helpers import DAY, HOUR, START, HandClock, Org, new_project, terms  # noqa: E402

from hale_runtime.asks import Inline, Intake  # noqa: E402
from hale_runtime.asks.leader import Brief  # noqa: E402
from hale_runtime.engine import BudgetPolicy  # noqa: E402

WIDER = '{"kind": "product", "class": "rewrite", "target": "src/billing"}'


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_project(tmp_path_factory.mktemp("proposal") / "p")


@pytest.fixture
def org(template: Path, tmp_path: Path) -> Org:
    return Org(Path(shutil.copytree(template, tmp_path / "p", symlinks=True)), HandClock())


def walk(org: Org, *, skips: bool) -> None:
    t = terms(id="optimize", every_ms=DAY, definition="optimize-walk", args={},
              convener="position:leader")  # fmt: skip
    assert org.answer(org.ask(t))["declared"]
    if skips:  # a person's job every hour, each still open: the next occurrences skip
        org.ask(terms(id="p", every_ms=HOUR, definition="ask-person"))
    org.run_until(START + DAY + HOUR, step=HOUR)


def intake(org: Org, answer: str) -> Intake:
    return Intake(
        org.record, org.memory, org.engine, org.catalog, leader=True,
        brief=lambda: Brief("charter", "purpose"), provider=Scripted(answer),
        holder="org@box:c0ffee00", executor=Inline(), say=lambda _: None,
    )  # fmt: skip


def test_a_proposal_is_an_ask_in_the_leaders_name_bound_to_what_was_found(org: Org):
    walk(org, skips=True)
    (reviewed,) = org.rows("org.reviewed")
    (asked,) = org.rows("intent.requested")
    assert asked.key == reviewed.key  # written by the pass, in its commit
    found = {k: n for k, n in reviewed.body["signals"].items() if n}
    assert found and asked.body["found"] == found
    assert asked.body["by"] == "position:leader" and asked.body["target"] == "dna"
    assert asked.body["objective"].startswith(reviewed.body["proposal"])

    said = intake(org, WIDER).on_intent_requested(relayed(asked))
    assert said.startswith("offered: "), said
    (offered,) = org.rows("intent.offered", asked.key)
    # the Leader's word named a wider target and another kind: neither is taken
    assert offered.body["target"] == "dna" and offered.body["not_widened"] == "src/billing"
    assert offered.body["kind"] == "organism" and offered.body["bound"] == "organism"
    admitted = [r for r in org.rows("workflow.admitted") if r.body.get("ask") == asked.key]
    assert admitted[0].body["convener"] == "position:leader"


def test_a_spent_window_refuses_the_proposal_as_a_row(org: Org):
    walk(org, skips=True)
    (asked,) = org.rows("intent.requested")
    org.engine.state.budget.policy = BudgetPolicy("none", 1)  # the window spent since
    said = intake(org, WIDER).on_intent_requested(relayed(asked))
    assert said.startswith("refused: ") and "micro-dollars" in said, said  # the budget's gate
    assert org.rows("intent.refused", asked.key)[0].body["reason"] == said
    assert org.rows("intent.offered") == []


def test_a_clean_pass_proposes_nothing(org: Org):
    walk(org, skips=False)
    assert org.rows("org.reviewed")[0].body["proposal"] is None
    assert org.rows("intent.requested") == []
