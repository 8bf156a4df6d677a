"""The Board's Review of the seeded practices, and the optimize practice's schedule."""

from __future__ import annotations

from schedule_helpers import hale_cli

from hale_runtime.record import Record

OPTIMIZE = "operating/optimize-cadence"


def key_of(root, practice: str) -> str:
    rows = Record.open(root).rows(kind="review.opened")
    return next(r.key for r in rows if r.body["practice"] == practice)


def test_the_review_lists_the_seeded_practices_by_family(project, snapshot):
    result = hale_cli(project, "review")
    assert result.exit_code == 0
    assert result.output == snapshot
    line = next(x for x in result.output.splitlines() if OPTIMIZE in x)
    assert line.startswith(f"      {key_of(project, OPTIMIZE)} — ratify the operating practice ")
    assert line.endswith("…")


def test_the_optimize_receipt_carries_its_cadence(project):
    record = Record.open(project)
    review = next(r for r in record.rows(kind="review.opened") if r.body["practice"] == OPTIMIZE)
    assert review.key == f"k:{review.body['receipt'][:12]}"
    receipt = record.get_receipt(review.body["receipt"])
    assert receipt["schedule"] == (
        '{"id": "optimize", "every_ms": 86400000, "definition": "optimize-walk", '
        '"args": "{}", "convener": "position:leader"}'
    )


def test_approving_optimize_cadence_declares_the_optimize_schedule(project, snapshot):
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve")
    assert result.exit_code == 0
    assert result.output.replace(key_of(project, OPTIMIZE), "k:<id>") == snapshot
    record = Record.open(project)
    declared = record.rows(kind="schedule.declared")[0]
    assert (declared.key, declared.body["every_ms"], declared.body["definition"]) == (
        "optimize", 86_400_000, "optimize-walk",
    )  # fmt: skip
    assert declared.body["convener"] == "position:leader"
    assert declared.body["practice"] == OPTIMIZE
    assert record.rows(kind="practice.ratified")[0].key == OPTIMIZE
    assert hale_cli(project, "schedule").output == snapshot(name="listing")
    assert hale_cli(project, "show", "processes").output.splitlines()[-1] == (
        "position:leader convenes definition:optimize-walk every 1d"
    )


def test_the_whole_family_is_approved_at_once(project, snapshot):
    result = hale_cli(project, "review", "operating", "approve")
    assert result.exit_code == 0
    assert len(Record.open(project).rows(kind="practice.ratified")) == 7
    assert hale_cli(project, "review").output == snapshot
    again = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve")
    assert "was already approved (nothing written)" in again.output


def test_the_ratification_stands_when_the_declaration_is_refused(project, snapshot):
    baseline = project / "vendor" / "dna" / "baseline.hl"
    baseline.write_text(baseline.read_text().replace('"optimize-walk"', '"optimise-walk"'))
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve")
    assert result.exit_code == 0
    assert result.output.replace(key_of(project, OPTIMIZE), "k:<id>") == snapshot
    record = Record.open(project)
    assert (
        record.rows(kind="practice.ratified")[0]
        .body["step"]
        .startswith("its schedule was refused (")
    )
    refused = record.rows(kind="schedule.refused")[0]
    assert refused.body["reason"] == "no workflow optimize-walk in the catalog"
    assert record.rows(kind="schedule.declared") == []


def test_rejecting_ratifies_nothing(project, snapshot):
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "reject")
    assert result.output.replace(key_of(project, OPTIMIZE), "k:<id>") == snapshot
    record = Record.open(project)
    assert record.rows(kind="practice.ratified") == []
    assert record.rows(kind="schedule.declared") == []


def test_a_family_is_not_rejected_whole(project):
    assert hale_cli(project, "review", "operating", "reject").exit_code == 2
