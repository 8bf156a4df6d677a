"""The chaos checker catches what it is there to catch: a history with each
kind of violation is flagged, and a clean one is not."""

from __future__ import annotations

from typing import Any, NamedTuple

from chaos_check import check, pending  # noqa: E402


class R(NamedTuple):
    kind: str
    key: str
    body: dict[str, Any]
    id: str


def history(*rows: tuple[str, str, dict[str, Any]]) -> list[R]:
    return [R(kind, key, body, f"r{n}") for n, (kind, key, body) in enumerate(rows)]


CLEAN = [
    ("intent.requested", "i-1", {}),
    ("claim.taken", "plan/i-1", {}),
    ("model.called", "plan/i-1", {}),
    ("intent.offered", "i-1", {}),
    ("workflow.admitted", "t1", {"ask": "i-1", "plan": {}}),
    ("attempt.admitted", "t1/wf1/s0/e/a0", {}),
    ("attempt.outcome", "t1/wf1/s0/e/a0", {}),
    ("workflow.settled", "t1", {}),
    ("intent.requested", "i-2", {}),
    ("intent.refused", "i-2", {}),
]


def test_a_clean_history_has_no_violation():
    h = check(history(*CLEAN), set(), set(), [])
    assert h.violations == [] and (h.asks, h.tasks, h.attempts) == (2, 1, 1)
    assert pending(history(*CLEAN), set()) == []


def test_each_way_of_doing_something_twice_or_never_is_a_violation():
    rows = history(
        *CLEAN,
        ("intent.offered", "i-1", {"again": True}),  # answered twice
        ("intent.requested", "i-3", {}),  # never answered
        ("model.called", "plan/i-1", {"late": True}),  # the Leader asked twice
        ("workflow.admitted", "t1", {"ask": "i-9", "plan": {}}),  # one id, two admissions
        ("workflow.admitted", "t2", {"ask": "i-1", "plan": {}}),  # one ask, two tasks
        ("attempt.outcome", "t1/wf1/s0/e/a0", {}),  # two outcomes
        ("workflow.settled", "t1", {}),  # two settlements
    )
    said = "\n".join(check(rows, set(), set(), ["b"]).violations)
    for expected in ("ask i-1 answered 2", "ask i-3 answered 0", "the Leader asked 2 times",
                     "task id t1 admitted 2", "an intent admitted as more than one execution: i-1",
                     "attempt t1/wf1/s0/e/a0 has 2 outcome", "execution t1 settled 2",
                     "execution t2 settled 0", "node b left crash-looping"):  # fmt: skip
        assert expected in said
    assert "ask i-3" in pending(rows, set()) and "task t2" in pending(rows, set())


def test_bad_rows_are_quarantined_once_and_good_rows_never():
    rows = history(*CLEAN, ("x.y", "bad", {}), ("zz", "bad2", {}), ("row.quarantined", "r10", {}))
    h = check(rows, {"r10", "r11"}, {"r10", "r11", "never-landed"}, [])
    assert h.bad_rows == 2 and h.quarantined == 1
    assert h.violations == ["bad row r11 quarantined 0 time(s)"]
    rows.append(R("row.quarantined", "r0", {}, "r13"))  # a good row answered as poison
    assert (
        "row r0, not one the run made bad, was quarantined"
        in check(rows, {"r10", "r11"}, {"r10", "r11"}, []).violations
    )


def test_a_row_under_a_superseded_epoch_is_void_and_must_be_quarantined():
    a, b = ({"epoch": {"of": "refs/dna/body", "n": n}} for n in (1, 2))
    rows = history(
        ("body.epoch", "refs/dna/body", {"n": 1}),
        *[(kind, key, {**body, **a}) for kind, key, body in CLEAN[:5]],
        ("body.epoch", "refs/dna/body", {"n": 2}),
        ("workflow.admitted", "t2", {"ask": "i-1", "plan": {}, **a}),  # A, woken late
        ("attempt.outcome", "t1/wf1/s0/e/a0", a),  # A's answer, after B took over
        *[(kind, key, {**body, **b}) for kind, key, body in CLEAN[5:]],
    )
    h = check(rows, set(), set(), [])
    assert h.stale == 2
    assert sorted(h.violations) == [
        "a row under a superseded epoch applied: attempt.outcome t1/wf1/s0/e/a0",
        "a row under a superseded epoch applied: workflow.admitted t2",
    ]
    answered = [("row.quarantined", f"r{n}", {"kind": "k", "why": "stale: superseded", **b})
                for n in (7, 8)]  # fmt: skip
    assert check(history(*[r[:3] for r in rows], *answered), set(), set(), []).violations == []


def test_a_strangers_forged_row_acted_on_is_a_violation():
    # her schedule asked (an occurrence's ask names it); her verdict and the
    # poison row itself do not count as acting on it
    forged = ("schedule.declared", "forged1xbeef", {"id": "forged1xbeef", "every_ms": 5000})
    rows = history(*CLEAN, forged, ("row.quarantined", "r10", {"why": "forged1xbeef"}))
    assert check(rows, {"r10"}, {"r10"}, [], {"forged1xbeef"}).violations == []
    acted = ("intent.requested", "s:forged1xbeef@1", {"objective": "x"})
    rows = history(*CLEAN, forged, ("row.quarantined", "r10", {"why": "-"}), acted)
    said = check(rows, {"r10"}, {"r10"}, [], {"forged1xbeef"}).violations
    assert any("acted on a stranger's forged row (forged1xbeef)" in v for v in said), said


def test_a_leader_call_lost_with_the_lease_and_asked_again_is_no_violation():
    """Body A (epoch 1) journaled the Leader's word, but B's epoch 2 reached the chain
    first: A's row is void, B's call is the one that landed. Asked, lost with the lease,
    asked again: counted (one landed, one void), not flagged. Two landed calls are."""
    ref = "refs/dna/owners/a/body"
    rows = history(
        ("body.epoch", ref, {"n": 1}),
        ("intent.requested", "i-1", {}),
        ("claim.taken", "plan/i-1", {}),
        ("body.epoch", ref, {"n": 2}),
        ("model.called", "plan/i-1", {"call": "plan/i-1#1", "epoch": {"of": ref, "n": 1}}),
        ("row.quarantined", "r4", {"why": "stale: superseded"}),
        ("model.called", "plan/i-1", {"call": "plan/i-1#2", "epoch": {"of": ref, "n": 2}}),
        ("intent.offered", "i-1", {"epoch": {"of": ref, "n": 2}}),
    )
    h = check(rows, set(), set(), [])
    assert h.violations == [] and (h.leader_landed, h.leader_void) == (1, 1)
    rows[4] = rows[4]._replace(body={"call": "plan/i-1#1", "epoch": {"of": ref, "n": 2}})
    rows[5] = rows[5]._replace(kind="claim.released", key="plan/i-1", body={})
    h = check(rows, set(), set(), [])  # both landed: the takeover asked again
    assert h.violations == ["the Leader asked 2 times on plan/i-1, each call landed"]


def test_a_stale_verdict_on_a_stale_row_still_answers_it():
    """Body A's `workflow.settled` is void (B's epoch 2 came first); B's verdict on it
    is void in turn (C's epoch 3): a verdict makes nothing, so the row is answered."""
    ref = "refs/dna/owners/a/body"
    rows = history(
        ("body.epoch", ref, {"n": 2}),
        ("workflow.settled", "t1", {"epoch": {"of": ref, "n": 1}}),
        ("body.epoch", ref, {"n": 3}),
        ("row.quarantined", "r1", {"why": "stale: superseded", "epoch": {"of": ref, "n": 2}}),
    )
    assert check(rows, set(), set(), []).violations == []
    assert "applied: workflow.settled t1" in check(rows[:3], set(), set(), []).violations[0]
