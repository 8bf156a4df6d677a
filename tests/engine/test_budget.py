"""The budget: one allowance a window (day, week, none; 0 unmetered), every
`model.called` row accounted at its time and rebuilt from the record, the
gate admitting min(ceiling, what is left), the refusal as a row,
`budget.exhausted` once a window, and an overrun settling failed."""

from __future__ import annotations

import pytest
from engine_helpers import START_MS, catalog_of, work

from hale_runtime.engine import Budget, BudgetPolicy
from hale_runtime.engine.budget import DAY_MS
from hale_runtime.performers import FAILED, SUCCEEDED, hookimpl


class Priced:
    """A model provider plugin: each call costs `micros`; its price known beforehand or not."""

    name = "priced"

    def __init__(self, micros: int, known: bool = True):
        self.micros, self.known = micros, known

    @hookimpl
    def hale_model_provider(self):
        return self

    def price(self, prompt: str) -> int | None:
        return self.micros if self.known else None

    def complete(self, prompt: str) -> tuple[str, int]:
        return f"answered: {prompt}", self.micros


def judge(c) -> None:
    assert c.define("ask-judge", 1, "record", "a judgment") == ""
    assert c.leaf("ask-judge", 1, 0, "j", work("{objective}", "judgment"), 1) == ""
    assert c.occurs("ask-judge", 1, "skip", "objective") == ""


def ask(e, n: int) -> str:
    bound = catalog_of(judge).bind("ask-judge", inputs={"objective": f"question {n}"})
    task = e.admit(bound, f"ask-{n}", "leader", {"objective": f"question {n}"}).task
    e.pump()
    return task


def test_the_refusal_reads_as_the_seed_says():
    budget = Budget(BudgetPolicy("day", 25_000_000))
    for n in range(40):
        budget.account(START_MS + n, 600_000, f"c{n}")
    budget.account(START_MS + 40, 1_000_000, "c40")
    assert budget.admit(1, START_MS + 1000).refused == (
        "refused: budget exhausted (spent 25000000 of 25000000 micro-dollars this day in 41 call(s))"
    )


def test_windows_start_at_utc_midnight_and_monday():
    day, week, whole = (Budget(BudgetPolicy(w, 10)) for w in ("day", "week", "none"))
    saturday = START_MS  # 2025-11-29
    assert day.window_of(saturday) == "day/2025-11-29"
    assert day.window_of(saturday + DAY_MS - 1) == "day/2025-11-29"
    assert week.window_of(saturday) == "week/2025-11-24"  # a Monday
    assert week.window_of(saturday + 2 * DAY_MS) == "week/2025-12-01"
    assert whole.window_of(0) == whole.window_of(saturday) == "none"


def test_the_gate_admits_the_smaller_of_the_ceiling_and_what_is_left():
    budget = Budget(BudgetPolicy("day", 5_000))
    assert budget.admit(2_000, START_MS).granted == 2_000
    budget.account(START_MS, 4_000)
    assert budget.admit(2_000, START_MS).granted == 1_000
    assert Budget(BudgetPolicy("day", 0)).admit(9_999_999, START_MS).granted == 9_999_999


@pytest.mark.parametrize(
    "window, resets_after", [("day", DAY_MS), ("week", 7 * DAY_MS), ("none", None)]
)
def test_an_exhausted_window_refuses_once_announced_and_the_next_starts_clean(
    org, clock, window, resets_after
):
    org.budget = BudgetPolicy(window, 3_000)
    org.plugins = (Priced(1_000),)
    e = org.engine()
    told: list[dict] = []
    e.tell_board = told.append
    for n in range(5):
        ask(e, n)
    assert [t["window"] for t in told] == [org.rows(kind="budget.exhausted")[0].body["window"]]
    outcomes = [r.body["outcome"] for r in org.rows(kind="attempt.outcome")]
    assert outcomes == [SUCCEEDED] * 3 + [FAILED] * 2
    words = {"day": "this day", "week": "this week", "none": "in all"}[window]
    text = f"refused: budget exhausted (spent 3000 of 3000 micro-dollars {words} in 3 call(s))"
    assert [r.body["text"] for r in org.rows(kind="budget.refused")] == [text, text]
    assert org.rows(kind="attempt.outcome")[-1].body["detail"] == text
    assert len(org.rows(kind="budget.exhausted")) == 1
    clock.advance(DAY_MS)  # a day later: a new day, the same week
    e = org.engine()  # rebuilt from the record: nothing spent is forgotten
    ask(e, 5)
    fresh = window == "day"
    assert org.rows(kind="attempt.outcome")[-1].body["outcome"] == (SUCCEEDED if fresh else FAILED)
    if resets_after:
        clock.advance(resets_after)
        for n in range(6, 10):
            ask(e, n)
        assert len(org.rows(kind="budget.exhausted")) == 2  # once in each exhausted window
    assert len({r.key for r in org.rows(kind="budget.exhausted")}) == len(
        org.rows(kind="budget.exhausted")
    )


def test_an_allowance_of_zero_is_unmetered(org):
    org.budget = BudgetPolicy("day", 0)
    org.plugins = (Priced(1_000_000),)
    e = org.engine()
    for n in range(4):
        ask(e, n)
    assert {r.body["outcome"] for r in org.rows(kind="attempt.outcome")} == {SUCCEEDED}
    assert org.rows(kind="budget.exhausted") == [] and org.rows(kind="budget.refused") == []


def test_no_call_is_made_past_the_grant_when_its_price_is_known(org):
    org.budget = BudgetPolicy("day", 1_500)
    org.plugins = (Priced(1_000),)
    e = org.engine()
    ask(e, 0)
    ask(e, 1)  # 500 left: the call's known price is past it
    second = org.rows(kind="attempt.outcome")[-1].body
    assert second["outcome"] == FAILED
    assert second["detail"] == "a call costs 1000 micro-dollars, past the grant of 500"
    assert len(org.rows(kind="model.called")) == 1


def test_an_attempt_that_spent_past_its_grant_settles_failed_and_its_calls_are_journaled(org):
    org.budget = BudgetPolicy("day", 3_000)
    org.plugins = (Priced(5_000, known=False),)
    e = org.engine()
    ask(e, 0)
    (outcome,) = org.rows(kind="attempt.outcome")
    assert outcome.body["outcome"] == FAILED
    assert outcome.body["detail"] == "overran its grant: spent 5000 of 3000 micro-dollars"
    (call,) = org.rows(kind="model.called")
    assert call.body["micros"] == 5_000 and call.key == "t1/wf1/s0/j/a0"
    assert org.rows(kind="budget.exhausted")[0].body == {
        "window": "day/2025-11-29",
        "spent_micros": 5_000,
        "allowance_micros": 3_000,
        "calls": 1,
    }


def test_the_editor_passes_the_gate_too(org):
    def build(c):
        assert c.define("ask-edit", 1, "record", "an edit") == ""
        assert c.leaf("ask-edit", 1, 0, "e", work("rename the thing", "edit"), 1) == ""

    org.budget = BudgetPolicy("week", 1)
    org.plugins = (Priced(1),)
    e = org.engine()
    for n in range(2):
        e.admit(catalog_of(build).bind("ask-edit"), f"e{n}", "leader")
        e.pump()
    first, second = (r.body for r in org.rows(kind="attempt.outcome"))
    assert first["outcome"] == SUCCEEDED and first["performer"] == "editor"
    assert second["detail"].startswith(
        "refused: budget exhausted (spent 1 of 1 micro-dollars this week"
    )
    assert [r.kind for r in org.rows(prefix="t1/wf1/s0/e/a0")][-3:] == [
        "mutation.prepared",
        "model.called",
        "attempt.outcome",
    ]


def test_the_policy_comes_from_a_plain_object():
    assert BudgetPolicy.from_object({"window": "week", "allowance_micros": 7}) == BudgetPolicy(
        "week", 7
    )
    with pytest.raises(ValueError, match="day, week or none"):
        BudgetPolicy("month", 1)
