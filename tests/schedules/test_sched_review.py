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


# --- the Board decides -----------------------------------------------------------------

ANN = {"HALE_DNA_NODE": "ann@desk:c0ffee00"}
BOB = {"HALE_DNA_NODE": "bob@laptop:c0ffee01"}


def _memory(project, board: str | None = None):
    from hale_runtime.memory import open_memory

    memory = open_memory(project / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    if board is not None:
        memory.set_holder("board", board)
    return memory


def test_once_the_board_is_held_only_its_holder_decides_a_review(project, snapshot):
    _memory(project, board="ann").close()
    key = key_of(project, OPTIMIZE)
    refused = hale_cli(project, "review", key, "approve", env=BOB)
    assert refused.exit_code == 1
    assert refused.output.replace(key, "k:<id>") == snapshot
    assert hale_cli(project, "review", "operating", "approve", env=BOB).exit_code == 1
    record = Record.open(project)
    assert record.rows(kind=("review.decided", "practice.ratified", "schedule.declared")) == []
    approved = hale_cli(project, "review", key, "approve", env=ANN)
    assert approved.exit_code == 0
    decided = Record.open(project).rows(kind="review.decided")
    assert [(r.who, r.body["decision"]) for r in decided] == [("ann@desk:c0ffee00", "approved")]


def test_while_nobody_holds_the_board_whoever_asks_decides(project):
    _memory(project).close()  # memory is named, and names no Board holder
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "reject", env=BOB)
    assert result.exit_code == 0
    assert Record.open(project).rows(kind="review.decided")[0].who == "bob@laptop:c0ffee01"


def test_with_no_memory_named_whoever_asks_decides(project):
    assert not (project / ".git" / "hale" / "memory.sqlite3").exists()
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve", env=BOB)
    assert result.exit_code == 0
    assert Record.open(project).rows(kind="practice.ratified")[0].body["by"] == (
        "bob@laptop:c0ffee01"
    )


# --- a practice convened by a graph position -------------------------------------------

AUDIT = "operating/audit-cadence"


def _audit_practice(project) -> str:
    """A practice whose schedule a graph position convenes; its Review's key."""
    import json

    record = Record.open(project)
    schedule = {"id": "audit", "every_ms": 3_600_000, "definition": "ask-edit",
                "args": json.dumps({"objective": "audit the day"}),
                "convener": "position:auditor"}  # fmt: skip
    digest = record.put_receipt({
        "author": "org", "kind": "practice", "name": AUDIT, "provenance": "design",
        "target": "org", "text": "the auditor audits hourly", "schedule": json.dumps(schedule),
    })  # fmt: skip
    key = f"k:{digest[:12]}"
    body = {"family": "operating", "practice": AUDIT, "receipt": digest, "text": "audit"}
    record.append("review.opened", key, body)
    return key


def test_a_graph_convener_with_no_memory_named_is_refused_and_the_ratification_stands(
    project, snapshot
):
    key = _audit_practice(project)
    result = hale_cli(project, "review", key, "approve")
    assert result.exit_code == 0
    assert result.output.replace(key, "k:<id>") == snapshot
    record = Record.open(project)
    assert record.rows(kind="practice.ratified")[0].key == AUDIT
    refused = record.rows(kind="schedule.refused")[0]
    assert (refused.key, refused.body["practice"]) == ("audit", AUDIT)
    assert "no memory is named" in refused.body["reason"]


def test_a_graph_convener_held_in_memory_declares_and_puts_the_rhythm(project):
    memory = _memory(project)
    memory.set_holder("auditor", "bob")
    key = _audit_practice(project)
    result = hale_cli(project, "review", key, "approve")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == (
        "  ratify: schedule audit declared: ask-edit on every 3600000ms, "
        "convened by position:auditor"
    )
    edges = [(e.src, e.dst, e.props["cadence"]) for e in memory.edges("convenes")]
    assert edges == [("position:auditor", "definition:ask-edit", "every 1h")]
    memory.close()


def test_a_graph_convener_nobody_holds_carries_the_hole(project):
    _memory(project).close()
    key = _audit_practice(project)
    result = hale_cli(project, "review", key, "approve")
    assert result.output.splitlines()[-1] == (
        "  ratify: its schedule was refused (nobody holds position:auditor: it convenes "
        "nothing until someone does (`hale dna fill auditor <holder>`))"
    )
    assert Record.open(project).rows(kind="schedule.refused")[0].body["hole"] == (
        "position:auditor"
    )


def test_a_decision_on_a_clone_reaches_the_remote(project, tmp_path):
    import pygit2

    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    pygit2.Repository(str(project)).remotes.create("origin", str(remote))
    Record.open(project).sync()
    clone = tmp_path / "clone"
    pygit2.clone_repository(str(remote), str(clone))
    (clone / "dna" / "org").mkdir(parents=True)
    (clone / "dna" / "org" / "main.hl").write_text("// a clone\n")
    Record.open(clone).sync()
    key = key_of(project, OPTIMIZE)
    rejected = hale_cli(clone, "review", key, "reject", env=ANN)
    assert rejected.exit_code == 0, rejected.output
    origin = Record.open(project)
    origin.sync()
    assert [r.key for r in origin.rows(kind="review.decided")] == [key]
