"""Each optimize occurrence is one pass: budget first, signals, one proposal or none."""

from __future__ import annotations

from schedule_helpers import DAY, HOUR, START, terms

from hale_runtime.engine import BudgetPolicy


def declare_optimize(org) -> None:
    t = terms(id="optimize", every_ms=DAY, definition="optimize-walk", args={},
              convener="position:leader")  # fmt: skip
    assert org.answer(org.ask(t))["declared"]


def test_a_clean_state_is_reviewed_with_no_proposal(org):
    declare_optimize(org)
    org.run_until(START + DAY + HOUR, step=HOUR)
    reviewed = org.rows("org.reviewed")
    assert len(reviewed) == 1
    assert reviewed[0].body["proposal"] is None
    assert set(reviewed[0].body["signals"].values()) == {0}
    assert len(org.rows("model.called")) == 1  # the leader was asked
    assert org.rows("workflow.settled")[-1].body["outcome"] == "succeeded"


def test_signals_lead_to_one_small_proposal(org, clock):
    declare_optimize(org)
    org.ask(terms(id="p", every_ms=HOUR, definition="ask-person"))
    org.run_until(START + DAY + HOUR, step=HOUR)
    reviewed = org.rows("org.reviewed")[-1]
    assert reviewed.body["signals"]["occurrences skipped"] > 0
    assert reviewed.body["proposal"].startswith("considered: ")


def test_a_spent_window_refuses_the_pass_until_the_next_occurrence(org, clock):
    spent = {"call": "earlier#0", "micros": 5, "model": "offline", "answer": ""}
    org.record.append("model.called", "earlier/a0", spent)
    org.budget = BudgetPolicy("none", 1)  # one window, already spent
    org.start()
    declare_optimize(org)
    org.run_until(START + 2 * DAY + HOUR, step=HOUR)
    refused = org.rows("optimize.refused")
    assert len(refused) == 2  # each occurrence asks again, and waits for the next
    assert refused[0].body["why"].startswith("refused: budget exhausted")
    assert org.rows("org.reviewed") == []
    assert len(org.rows("model.called")) == 1
    assert org.rows("workflow.settled")[0].body["outcome"] == "failed"
