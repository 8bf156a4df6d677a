"""Issue 32 item 5: concern-escalate puts the concern on the Board's queue as a
case with the readings that raised it; `hale dna review` lists it, and it is
answered as any case (`hale dna effect resolve`), which settles the execution."""

from __future__ import annotations

from pathlib import Path

from ask_helpers import relayed  # noqa: E402
from schedule_helpers import HandClock, Org, hale_cli, new_project  # noqa: E402

from hale_runtime.asks.settle import Settler  # noqa: E402
from hale_runtime.engine.cases import open_cases  # noqa: E402

TARGET = "instance:app"


def test_a_concern_is_a_case_with_its_readings_answered_from_the_review(tmp_path: Path):
    org = Org(new_project(tmp_path / "p"), HandClock())
    taken = [
        org.record.append("reading.taken", TARGET,
                          {"kind": "crash", "source": "application", "detail": f"exit {n}"})
        for n in (1, 2)
    ]  # fmt: skip
    body = {"readings": [r.id for r in taken], "window_s": 600}
    concern = org.record.append("concern.raised", TARGET, body)
    admitted = org.engine.admit_from(
        org.catalog, "concern-escalate", f"concern:{concern.id}", "org"
    )
    assert not admitted.refused
    org.engine.pump()

    (case,) = open_cases(org.record)
    assert case.whom == "the Board" and case.definition.startswith("concern-escalate@")
    assert case.objective.startswith(f"concern at {TARGET}: 2 readings within 600s — crash ")
    assert all(r.id in case.objective for r in taken) and "exit 2" in case.objective
    listing = hale_cli(org.root, "review", "--offline")
    assert listing.exit_code == 0, listing.output
    assert f"  attempt:{case.attempt} — concern at {TARGET}" in listing.output

    said = hale_cli(org.root, "effect", "resolve", f"attempt:{case.attempt}",
                    "--outcome", "succeeded", "--note", "restarted the app by hand")  # fmt: skip
    assert said.exit_code == 0, said.output
    (asked,) = org.record.rows(kind="attempt.outcome.requested")
    Settler(org.record, org.engine).on_outcome_requested(relayed(asked))
    org.engine.pump()
    (outcome,) = org.record.rows(kind="attempt.outcome", key=case.attempt)
    assert outcome.body["detail"] == "restarted the app by hand" and outcome.body["resolved_by"]
    assert org.record.rows(kind="workflow.settled", key=case.task)[0].body["outcome"] == "succeeded"
    assert open_cases(org.record) == []
