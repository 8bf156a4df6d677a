"""A person's case, end to end through real processes: the seed's close-month
on a schedule under `hale dna dev`, its reconcile done by the service, its
post handed to a person as a case on the Board's queue, listed by
`hale dna review` and answered by `hale dna effect resolve` from another
clone; the outcome carries `resolved_by` and the execution settles."""

from __future__ import annotations

import re

from node_helpers import hale
from spine_helpers import declare_monthly, rows, wait_row
from support.rows import without_epoch

POST = "t1/wf1/s1/post/a0"


def test_close_month_is_reconciled_by_the_service_and_posted_by_a_person(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    nodes(a).wait_running()
    declare_monthly(a, every_ms=2000)
    wait_row(b, "board.case", POST, sync=True)
    (reconciled,) = rows(b, "attempt.outcome", "t1/wf1/s0/reconcile/a0", sync=True)
    assert (reconciled.body["performer"], reconciled.body["outcome"]) == ("service", "succeeded")

    listing = hale(b, "dna", "review")
    assert listing.returncode == 0, listing.stderr
    at = listing.stdout.splitlines().index(f"  attempt:{POST} — post the journal entries")
    assert re.fullmatch(
        r"      t1 close-month@1, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ, "
        r"for the Board: a case on the Board's queue",
        listing.stdout.splitlines()[at + 1],
    )
    assert listing.stdout.startswith("reviews: 7 open") and "cases: 1 open" in listing.stdout

    asked = hale(b, "dna", "effect", "resolve", f"attempt:{POST}", "--outcome", "succeeded",
                 "--note", "posted the entries by hand")  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith(f"attempt:{POST} succeeded asked (attempt.outcome.requested)")
    settled = wait_row(b, "workflow.settled", "t1", sync=True)
    assert without_epoch(settled.body) == {"outcome": "succeeded"}
    (outcome,) = rows(b, "attempt.outcome", POST, sync=True)
    who = rows(b, "attempt.outcome.requested", f"{POST}#1", sync=True)[0].who
    assert without_epoch(outcome.body) == {
        "outcome": "succeeded", "performer": "person", "detail": "posted the entries by hand",
        "resolved_by": who,
    }  # fmt: skip
    assert who != rows(a, "attempt.claimed", POST)[0].who  # another clone answered it

    shown = hale(b, "dna", "show", "t1")
    assert f"attempt {POST}  person  succeeded: posted the entries by hand (resolved by {who})" in (
        shown.stdout
    )
    assert f"attempt:{POST}" not in hale(b, "dna", "review").stdout
    again = hale(b, "dna", "effect", "resolve", f"attempt:{POST}", "--outcome", "failed")
    assert again.returncode == 1
    assert again.stderr == f"hale: attempt {POST} already has its outcome: succeeded\n"


def test_a_case_answered_beside_the_organism_says_the_outcome_and_what_refuses(make_clone, nodes):
    a = make_clone("a")
    nodes(a).wait_running()
    declare_monthly(a, every_ms=2000)
    wait_row(a, "board.case", POST)
    early = hale(a, "dna", "effect", "resolve", "attempt:t1/wf1/s0/reconcile/a0",
                 "--outcome", "failed")  # fmt: skip
    assert early.returncode == 1 and "already has its outcome: succeeded" in early.stderr
    resolved = hale(a, "dna", "effect", "resolve", f"attempt:{POST}", "--outcome", "failed")
    assert resolved.returncode == 0, resolved.stderr
    (outcome,) = rows(a, "attempt.outcome", POST)
    assert resolved.stdout == f"attempt:{POST} failed (resolved by {outcome.body['resolved_by']})\n"
    assert outcome.body["detail"] == "resolved by a person"
    assert without_epoch(wait_row(a, "workflow.settled", "t1").body) == {
        "outcome": "failed", "reason": "step 1 failed: post",
    }  # fmt: skip
