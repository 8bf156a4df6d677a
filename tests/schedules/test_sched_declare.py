"""Declarations: the request answered once, every refusal, who may ask, the graph."""

from __future__ import annotations

import pytest
from schedule_helpers import ORG, Org, terms

from hale_runtime.nerves import Message, topic_of
from hale_runtime.node.relay import message_of

REFUSALS = {
    "id empty": dict(id=""),
    "id with @": dict(id="night@ly"),
    "id with a space": dict(id="night ly"),
    "neither interval nor cron": dict(cron=""),
    "both interval and cron": dict(every_ms=1000, cron="0 2 * * *"),
    "negative interval": dict(every_ms=-5),
    "malformed cron": dict(cron="61 * * * *"),
    "cron of six fields": dict(cron="0 0 2 * * *"),
    "cron of words": dict(cron="every night"),
    "convener not a position": dict(convener="editor"),
    "convener with an empty name": dict(convener="position:"),
    "definition not in the catalog": dict(definition="close-month"),
    "definition the catalog refuses at admission": dict(definition="change-deliver"),
    "definition whose expansion the catalog refuses": dict(definition="hollow", args={}),
    "step the organization does not perform": dict(definition="ask-triage", args={}),
    "inputs not JSON": dict(args="{objective"),
    "inputs not an object": dict(args=["reconcile"]),
    "an input missing": dict(args={}),
    "an input the definition does not take": dict(args={"objective": "x", "period": "y"}),
    "an input that is not a string": dict(args={"objective": 3}),
    "nobody holds the convener": dict(convener="position:auditor"),
}


def _both(t):
    # Terms keep one of the two when built by the helper; write both on purpose
    return t.__class__(t.id, 1000, "0 2 * * *", t.definition, t.args, t.convener)


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_is_a_schedule_refused_row_with_its_reason(org, case, snapshot):
    t = terms(**REFUSALS[case])
    if case == "both interval and cron":
        t = _both(t)
    request = org.ask(t)
    answer = org.answer(request)
    refused = org.rows("schedule.refused")
    assert answer["declared"] is False
    assert [r.body["reason"] for r in refused] == [answer["why"]]
    assert org.rows("schedule.declared") == []
    assert answer["why"] == snapshot


def test_a_refusal_for_a_hole_carries_the_hole_and_its_fix(org):
    org.ask(terms(convener="position:auditor"))
    row = org.rows("schedule.refused")[0]
    assert row.body["hole"] == "position:auditor"
    assert row.body["reason"] == (
        "nobody holds position:auditor: it convenes nothing until someone does "
        "(`hale dna fill auditor <holder>`)"
    )


def test_a_filled_hole_is_not_tried_again_on_its_own(org, clock):
    org.ask(terms(convener="position:auditor"))
    org.memory.set_holder("auditor", "ann")
    org.run_until(clock.now + 3600_000)
    assert org.rows("schedule.declared") == []


def test_a_graph_position_convenes_through_its_holder(org):
    org.memory.set_holder("auditor", "ann")
    request = org.ask(terms(convener="position:auditor"))
    assert org.answer(request)["declared"] is True


def test_a_position_that_cannot_reach_what_the_definition_writes_is_refused(org):
    org.memory.set_holder("auditor", "ann")
    org.memory.upsert_edge("position:auditor", "reaches", "store:forge")
    request = org.ask(terms(convener="position:auditor"))
    assert org.answer(request)["why"] == (
        "position:auditor cannot reach the record that ask-edit writes at step 0"
    )


def test_with_no_memory_a_graph_position_is_refused(project, clock):
    org = Org(project, clock, memory=False)
    request = org.ask(terms(convener="position:auditor"))
    assert org.answer(request)["why"] == (
        "who holds position:auditor is the graph's, and no memory is named to ask "
        "(a graph convener needs memory; `hale dna memory migrate` prints the DSNs)"
    )


@pytest.mark.parametrize("position", ["leader", "editor"])
def test_the_organisms_own_positions_convene_with_no_holder(project, clock, position):
    org = Org(project, clock, memory=False)
    request = org.ask(terms(convener=f"position:{position}"))
    assert org.answer(request)["declared"] is True


def test_a_request_is_answered_once_under_its_id(org):
    request = org.ask(terms())
    row = org.rows("schedule.requested")[-1]
    message = Message(2, row.kind, message_of(row))
    assert message.topic == topic_of("schedule.requested") == "ScheduleRequested"
    assert org.locus.on_schedule_requested(message) is False
    org.start()  # and after a restart
    assert org.locus.on_schedule_requested(message) is False
    assert [r.key for r in org.rows("schedule.answered")] == [request]


def test_the_same_terms_again_write_nothing(org):
    org.ask(terms())
    before = org.record.cursor()
    request = org.ask(terms())
    assert org.answer(request) == {
        "schedule": "nightly", "declared": True, "why": "", "unchanged": True,
    }  # fmt: skip
    kinds = [r.kind for r in org.record.rows(since=before)]
    assert kinds == ["schedule.requested", "schedule.answered"]


def test_other_terms_write_a_new_declaration(org):
    org.ask(terms())
    org.ask(terms(cron="0 3 * * *"))
    declared = org.rows("schedule.declared")
    assert [d.body["cron"] for d in declared] == ["0 2 * * *", "0 3 * * *"]


def test_declaring_puts_the_rhythm_in_the_graph(org):
    org.ask(terms())
    org.ask(terms(id="often", every_ms=90_000, convener="position:leader"))
    org.ask(terms(id="daily", every_ms=86_400_000, definition="optimize-walk", args={},
                  convener="position:leader"))  # fmt: skip
    assert {n.id for n in org.memory.nodes("definition")} == {
        "definition:ask-edit", "definition:optimize-walk",
    }  # fmt: skip
    edges = {(e.src, e.dst, e.props["cadence"]) for e in org.memory.edges("convenes")}
    assert edges == {
        ("position:editor", "definition:ask-edit", "cron 0 2 * * *"),
        ("position:leader", "definition:ask-edit", "every 90s"),
        ("position:leader", "definition:optimize-walk", "every 1d"),
    }


def test_the_node_projects_a_declaration_into_the_graph(org):
    from hale_runtime.memory import open_memory
    from hale_runtime.memory.projection import project

    org.ask(terms())
    fresh = open_memory(org.root / ".git" / "hale" / "projected.sqlite3")
    fresh.migrate()
    project(org.record, fresh)
    edge = fresh.edges("convenes")[0]
    assert (edge.src, edge.dst, edge.props["cadence"]) == (
        "position:editor", "definition:ask-edit", "cron 0 2 * * *",
    )  # fmt: skip


# --- who may ask -----------------------------------------------------------------------
# The organization's own word, from memory's graph, on a record made before signing
# (where nothing is judged by key); a signed record proves the asker first
# (tests/authority).


@pytest.fixture
def old_org(old, clock) -> Org:
    return Org(old, clock)


def test_with_no_memory_the_requester_declares(old, clock):
    org = Org(old, clock, memory=False)
    assert org.answer(org.ask(terms(), who="bob@laptop:1"))["declared"] is True


def test_while_nobody_holds_the_board_the_requester_declares(old_org):
    org = old_org
    assert org.answer(org.ask(terms(), who="bob@laptop:1"))["declared"] is True


def test_once_the_board_is_held_others_are_answered_declared_false(old_org):
    org = old_org
    org.memory.set_holder("board", "ann")
    answer = org.answer(org.ask(terms(), who="bob@laptop:1"))
    assert answer == {
        "schedule": "nightly",
        "declared": False,
        "why": "bob@laptop:1 holds neither the Board nor position:editor, and only they may ask",
    }
    assert org.rows("schedule.declared") == [] and org.rows("schedule.refused") == []


def test_the_board_holder_may_ask(old_org):
    org = old_org
    org.memory.set_holder("board", "ann")
    assert org.answer(org.ask(terms(), who="ann@desk:2"))["declared"] is True


def test_the_conveners_holder_may_ask(old_org):
    org = old_org
    org.memory.set_holder("board", "ann")
    org.memory.set_holder("auditor", "bob")
    request = org.ask(terms(convener="position:auditor"), who="bob@laptop:1")
    assert org.answer(request)["declared"] is True


def test_a_row_names_who_asked(old_org):
    org = old_org
    org.ask(terms(), who="bob@laptop:1")
    requested = org.rows("schedule.requested")[0]
    assert requested.who == requested.body["by"] == "bob@laptop:1"
    assert requested.body["convener"] == "position:editor"
    assert org.rows("schedule.declared")[0].body["by"] == "bob@laptop:1"
    assert ORG != "bob@laptop:1"


def test_a_schedule_holds_no_intent_text_no_claim_and_no_ask_of_its_own(org):
    org.ask(terms())
    body = org.rows("schedule.declared")[0].body
    assert set(body) == {
        "id", "every_ms", "cron", "definition", "args", "convener", "cadence", "occurrence",
        "mode", "request", "by",
    }  # fmt: skip
    assert org.rows("workflow.admitted") == []  # nothing is asked until an occurrence
    assert [r for r in org.record.rows() if r.kind.startswith("claim.")] == []
