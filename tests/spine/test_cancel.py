"""Cancel through real processes: `hale dna task cancel` writes
`workflow.cancel_requested`, the node relays it until the organization
(subscribed to WorkflowCancelRequested) answers it, and then never again;
the root is fenced, `hale dna show` says so; a cancel for a task that has
settled or never was is answered with why, and nothing else is written."""

from __future__ import annotations

import sqlite3
import time

from node_helpers import hale
from spine_helpers import declare_monthly, lines, rows, wait_row
from support.rows import without_epoch

POST = "t1/wf1/s1/post/a0"


def relayed(root, request_id: str) -> int:
    """How many times the request went out on the (embedded) nerves."""
    db = sqlite3.connect(root / ".git" / "hale" / "memory.sqlite3")
    try:
        found = db.execute(
            "SELECT count(*) FROM nerves WHERE subject = 'workflow.cancel_requested' "
            "AND json_extract(body, '$.key') = ?",
            (request_id,),
        ).fetchone()
    finally:
        db.close()
    return found[0]


def test_a_cancel_asked_from_any_clone_fences_the_root_and_is_relayed_until_answered(
    make_clone, nodes
):
    a, b = make_clone("a"), make_clone("b")
    nodes(a).wait_running()
    declare_monthly(a, every_ms=2000)
    wait_row(b, "board.case", POST, sync=True)
    asked = hale(b, "dna", "task", "cancel", "t1")
    assert asked.returncode == 0, asked.stderr
    (request,) = rows(b, "workflow.cancel_requested", sync=True)
    assert without_epoch(request.body) == {"task": "t1", "by": request.who}
    assert asked.stdout == (
        f"cancel of t1 asked (workflow.cancel_requested {request.key}); "
        "the organization answers it when it hears it\n"
    )
    answer = wait_row(b, "workflow.cancel_answered", request.key, sync=True)
    assert without_epoch(answer.body) == {"task": "t1", "cancelled": True, "why": ""}
    assert without_epoch(rows(b, "workflow.cancelled", "t1", sync=True)[0].body) == {
        "by": request.who
    }
    (fenced,) = rows(b, "attempt.outcome", POST, sync=True)
    assert without_epoch(fenced.body) == {
        "outcome": "cancelled", "performer": "person", "detail": "fenced: t1 was cancelled",
    }  # fmt: skip
    assert without_epoch(wait_row(b, "workflow.settled", "t1", sync=True).body) == {
        "outcome": "cancelled", "reason": "t1 was cancelled",
    }  # fmt: skip
    sent = relayed(a, request.key)
    time.sleep(1.5)  # several ticks of 0.2 s after the answer
    assert sent >= 1 and relayed(a, request.key) == sent

    shown = hale(b, "dna", "show", "t1").stdout.splitlines()
    assert shown[0] == "t1  close-month@1  cancelled (t1 was cancelled)"
    assert shown[2] == f"  cancelled by {request.who}: everything below it is fenced"
    assert "  step t1/wf1/s1  record  fenced" in shown
    assert f"      attempt {POST}  person  cancelled: fenced: t1 was cancelled" in shown
    assert f"attempt:{POST}" not in hale(b, "dna", "review").stdout


def test_a_cancel_for_a_settled_or_unknown_task_is_answered_with_why_alone(make_clone, nodes):
    a = make_clone("a")
    nodes(a).wait_running()
    declare_monthly(a, every_ms=2000)
    wait_row(a, "board.case", POST)
    assert hale(a, "dna", "task", "cancel", "t1").stdout == (
        "task t1 cancelled: everything below it is fenced (`hale dna show t1`)\n"
    )
    before = lines(a)
    unknown = hale(a, "dna", "task", "cancel", "t99")  # refused at the verb: nothing written
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert unknown.stderr.startswith("hale: no task t99 in the record; nothing asked")
    assert not [ln for ln in lines(a) if ln not in before and ln.startswith("workflow.cancel_")]
    for task, why in (("t1", "t1 has settled cancelled"),):
        before = lines(a)
        refused = hale(a, "dna", "task", "cancel", task)
        assert refused.returncode == 1, refused.stderr
        assert refused.stdout == f"task cancel: refused: {why}\n"
        new = [line for line in lines(a) if line not in before]
        asked = [line for line in new if line.startswith("workflow.cancel_")]
        assert [line.split()[0] for line in asked] == [
            "workflow.cancel_requested", "workflow.cancel_answered",
        ]  # fmt: skip
        assert not [line for line in new if line.split()[1] in (task,) or "t1/" in line]
