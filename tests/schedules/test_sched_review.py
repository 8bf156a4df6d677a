"""The Board's Review of the seeded practices, carried out as practice-ratify executions."""

from __future__ import annotations

import threading
import time

from schedule_helpers import Org, hale_cli

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


def ratify_rows(org: Org) -> list:
    """The practice-ratify executions the organization admitted."""
    return [r for r in org.rows("workflow.admitted") if r.body["definition"] == "practice-ratify@1"]


def outcomes(org: Org, task: str) -> dict[str, tuple[str, str]]:
    """Each step's attempt outcome in a task, by step key: (outcome, detail)."""
    found = {}
    for r in org.rows("attempt.outcome"):
        if r.key.split("/", 1)[0] == task:
            found[r.key.split("/")[3]] = (r.body["outcome"], r.body["detail"])
    return found


def test_approving_writes_the_boards_decision_for_the_organization(project, snapshot):
    key = key_of(project, OPTIMIZE)
    result = hale_cli(project, "review", key, "approve")
    assert result.exit_code == 0
    assert result.output.replace(key, "k:<id>") == snapshot
    record = Record.open(project)
    decided = record.rows(kind="review.decided")
    assert [(r.key, r.body["decision"]) for r in decided] == [(key, "approved")]
    assert record.rows(kind=("practice.ratified", "schedule.declared")) == []


def test_the_organization_ratifies_through_practice_ratify(org, project, snapshot):
    key = key_of(project, OPTIMIZE)
    hale_cli(project, "review", key, "approve")
    org.locus.tick()
    [admitted] = ratify_rows(org)
    assert (admitted.body["ask"], admitted.body["convener"]) == (f"review:{key}", "position:board")
    settled = org.rows("workflow.settled", admitted.key)
    assert [r.body["outcome"] for r in settled] == ["succeeded"]
    steps = outcomes(org, admitted.key)
    assert steps["ratify"] == ("succeeded", (
        f"practice {OPTIMIZE} ratified (practice.ratified); schedule optimize declared: "
        "optimize-walk on every 86400000ms, convened by position:leader"
    ))  # fmt: skip
    assert steps["hat"] == ("succeeded", f"the practice {OPTIMIZE} is worn by org")
    declared = org.rows("schedule.declared")[0]
    assert (declared.key, declared.body["every_ms"], declared.body["definition"]) == (
        "optimize", 86_400_000, "optimize-walk",
    )  # fmt: skip
    assert declared.body["convener"] == "position:leader"
    assert (declared.body["practice"], declared.body["review"]) == (OPTIMIZE, key)
    ratified = org.rows("practice.ratified")
    assert [r.key for r in ratified] == [OPTIMIZE]
    assert ratified[0].body["step"].startswith("schedule optimize declared: ")
    assert hale_cli(project, "schedule").output == snapshot(name="listing")
    assert hale_cli(project, "show", "processes").output.splitlines()[-1] == (
        "position:leader convenes definition:optimize-walk every 1d"
    )


def test_a_decision_read_again_or_after_a_restart_is_one_execution(org, project):
    hale_cli(project, "review", key_of(project, OPTIMIZE), "approve")
    org.locus.tick()
    org.locus.tick()
    org.start()
    org.locus.tick()
    assert len(ratify_rows(org)) == 1
    assert len(org.rows("practice.ratified")) == 1
    assert len(org.rows("schedule.declared")) == 1


def test_the_whole_family_is_approved_at_once(org, project, snapshot):
    result = hale_cli(project, "review", "operating", "approve")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == (
        "  the organization ratifies them (practice-ratify) when it hears it"
    )
    assert hale_cli(project, "review").output == snapshot
    org.locus.tick()
    assert len(ratify_rows(org)) == 7
    assert len(org.rows("practice.ratified")) == 7
    assert [r.key for r in org.rows("schedule.declared")] == ["optimize"]
    again = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve")
    assert "was already approved (nothing written)" in again.output


def test_the_ratification_stands_when_the_declaration_is_refused(project, clock):
    baseline = project / "vendor" / "dna" / "baseline.hl"
    baseline.write_text(baseline.read_text().replace('"optimize-walk"', '"optimise-walk"'))
    key = key_of(project, OPTIMIZE)
    result = hale_cli(project, "review", key, "approve")
    assert result.exit_code == 0
    org = Org(project, clock)
    org.locus.tick()
    [admitted] = ratify_rows(org)
    why = "no workflow optimize-walk in the catalog"
    step = f"its schedule was refused ({why})"
    assert outcomes(org, admitted.key)["ratify"] == (
        "succeeded", f"practice {OPTIMIZE} ratified (practice.ratified); {step}",
    )  # fmt: skip
    assert [r.body["outcome"] for r in org.rows("workflow.settled", admitted.key)] == ["succeeded"]
    assert org.rows("practice.ratified")[0].body["step"] == step
    refused = org.rows("schedule.refused")[0]
    assert (refused.body["reason"], refused.body["practice"]) == (why, OPTIMIZE)
    assert org.rows("schedule.declared") == []


def test_rejecting_ratifies_nothing(org, project, snapshot):
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "reject")
    assert result.output.replace(key_of(project, OPTIMIZE), "k:<id>") == snapshot
    org.locus.tick()
    assert ratify_rows(org) == []
    assert org.rows(("practice.ratified", "schedule.declared")) == []


def test_a_family_is_not_rejected_whole(project):
    assert hale_cli(project, "review", "operating", "reject").exit_code == 2


def _beat(project) -> None:
    """A node's heartbeat in memory: the organism is running beside the verb."""
    from hale_runtime.memory import open_memory

    memory = open_memory(project / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    memory.upsert_node("node:n1", "node", {"last_tick": time.time_ns() // 1_000_000})
    memory.close()


def test_beside_a_running_organism_the_verb_prints_the_ratify_step(project, clock, snapshot):
    _beat(project)
    ready, stop = threading.Event(), threading.Event()

    def serve() -> None:
        org = Org(project, clock)
        ready.set()
        while not stop.is_set():
            org.locus.tick()
            time.sleep(0.05)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(30)
    key = key_of(project, OPTIMIZE)
    try:
        result = hale_cli(project, "review", key, "approve", env={"HALE_DNA_ANSWER_WAIT": "20"})
    finally:
        stop.set()
        thread.join()
    assert result.exit_code == 0
    assert result.output.replace(key, "k:<id>") == snapshot


def test_no_ratification_in_time_says_so_and_the_decision_stays(project, snapshot):
    _beat(project)
    key = key_of(project, OPTIMIZE)
    result = hale_cli(project, "review", key, "approve", env={"HALE_DNA_ANSWER_WAIT": "0.3"})
    assert result.exit_code == 0
    assert result.output.replace(key, "k:<id>") == snapshot
    assert len(Record.open(project).rows(kind="review.decided")) == 1


# --- the Board decides -----------------------------------------------------------------

# Memory's word on who decides, on a record made before signing (`old`): a signed
# record proves the Board by key first (tests/authority).
ANN = {"HALE_DNA_NODE": "ann@desk:c0ffee00"}
BOB = {"HALE_DNA_NODE": "bob@laptop:c0ffee01"}


def _memory(project, board: str | None = None):
    from hale_runtime.memory import open_memory

    memory = open_memory(project / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    if board is not None:
        memory.set_holder("board", board)
    return memory


def test_once_the_board_is_held_only_its_holder_decides_a_review(old, snapshot):
    project = old
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


def test_while_nobody_holds_the_board_whoever_asks_decides(old):
    project = old
    _memory(project).close()  # memory is named, and names no Board holder
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "reject", env=BOB)
    assert result.exit_code == 0
    assert Record.open(project).rows(kind="review.decided")[0].who == "bob@laptop:c0ffee01"


def test_with_no_memory_named_whoever_asks_decides(old):
    project = old
    assert not (project / ".git" / "hale" / "memory.sqlite3").exists()
    result = hale_cli(project, "review", key_of(project, OPTIMIZE), "approve", env=BOB)
    assert result.exit_code == 0
    assert Record.open(project).rows(kind="review.decided")[0].body["by"] == ("bob@laptop:c0ffee01")


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


def _ratify(project, clock, key: str, memory: bool = True) -> Org:
    org = Org(project, clock, memory=memory)
    assert hale_cli(project, "review", key, "approve").exit_code == 0
    org.locus.tick()
    return org


def test_a_graph_convener_with_no_memory_named_is_refused_and_the_ratification_stands(
    project, clock, snapshot
):
    key = _audit_practice(project)
    org = _ratify(project, clock, key, memory=False)
    [ratified] = org.rows("practice.ratified")
    assert ratified.key == AUDIT
    assert ratified.body["step"] == snapshot
    refused = org.rows("schedule.refused")[0]
    assert (refused.key, refused.body["practice"]) == ("audit", AUDIT)
    assert "no memory is named" in refused.body["reason"]


def test_a_graph_convener_held_in_memory_declares_and_puts_the_rhythm(project, clock):
    org = Org(project, clock)
    org.memory.set_holder("auditor", "bob")
    key = _audit_practice(project)
    assert hale_cli(project, "review", key, "approve").exit_code == 0
    org.locus.tick()
    assert org.rows("practice.ratified")[0].body["step"] == (
        "schedule audit declared: ask-edit on every 3600000ms, convened by position:auditor"
    )
    edges = [(e.src, e.dst, e.props["cadence"]) for e in org.memory.edges("convenes")]
    assert edges == [("position:auditor", "definition:ask-edit", "every 1h")]


def test_a_graph_convener_nobody_holds_carries_the_hole(project, clock):
    key = _audit_practice(project)
    org = _ratify(project, clock, key)
    assert org.rows("practice.ratified")[0].body["step"] == (
        "its schedule was refused (nobody holds position:auditor: it convenes "
        "nothing until someone does (`hale dna fill auditor <holder>`))"
    )
    assert org.rows("schedule.refused")[0].body["hole"] == "position:auditor"


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
    rejected = hale_cli(clone, "review", key, "reject", env={"HALE_DNA_NODE": "org@desk:c0ffee01"})
    assert rejected.exit_code == 0, rejected.output
    origin = Record.open(project)
    origin.sync()
    assert [r.key for r in origin.rows(kind="review.decided")] == [key]


def test_a_decision_the_engine_will_not_admit_is_said_once(project, clock):
    baseline = project / "vendor" / "dna" / "baseline.hl"
    baseline.write_text(baseline.read_text().replace('"practice-ratify"', '"practice-kept"'))
    key = key_of(project, OPTIMIZE)
    assert hale_cli(project, "review", key, "approve").exit_code == 0
    org = Org(project, clock)
    org.locus.tick()
    org.locus.tick()
    [refused] = org.rows("practice.refused")
    assert refused.key == key and "practice-ratify" in refused.body["reason"]
    assert org.rows("practice.ratified") == []
