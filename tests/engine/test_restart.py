"""Restart: the record is the execution. A new engine over the same record
rebuilds only what is unfinished, under the original ids; nothing is admitted
again; an attempt with an outcome never runs again; an attempt a dead process
left claimed is reconciled before anything is delivered again. Revisions: a
task born under a revision finishes under it after the next appears."""

from __future__ import annotations

from click.testing import CliRunner
from engine_helpers import Scripted, catalog_of, work

from hale_runtime.asks.settle import Settler
from hale_runtime.cli import hale
from hale_runtime.nerves import Message
from hale_runtime.node.relay import message_of
from hale_runtime.performers import ACTED, FAILED, SUCCEEDED, UNKNOWN, Answer, Reconciled


def three(c) -> None:
    assert c.define("three", 1, "record record record", "three steps") == ""
    for s, key in enumerate(("x", "y", "z")):
        assert c.leaf("three", 1, s, key, work(f"do {key}", "analysis"), 2) == ""


def crash_after_claiming(org, service: Scripted):
    """Admit, then run one round past the first step (claimed and delivered),
    and drop the engine before the answer is recorded: a dead process."""
    org.plugins = (service,)
    e = org.engine()
    e.admit(catalog_of(three).bind("three"), "ask", "leader")
    e.pump()  # x: answered; y: claimed and delivered, answer lost with the process
    assert org.lines()[-1].startswith("attempt.claimed t1/wf1/s1/y/a")
    return e


def test_nothing_is_admitted_again_and_an_outcome_never_runs_again(org):
    service = Scripted("service", {"t1/wf1/s1/y/a0": "later"})
    crash_after_claiming(org, service)
    assert service.acted == ["t1/wf1/s0/x/a0", "t1/wf1/s1/y/a0"]
    service.script = {}
    e = org.engine()  # the restart
    assert e.admit(catalog_of(three).bind("three"), "ask", "leader").task == "t1"
    e.pump()
    assert service.acted == ["t1/wf1/s0/x/a0", "t1/wf1/s1/y/a0", "t1/wf1/s1/y/a0", "t1/wf1/s2/z/a0"]
    assert len(org.rows(kind="workflow.admitted")) == 1
    assert [r.key for r in org.rows(kind="effect.redelivered")] == ["t1/wf1/s1/y/a0"]
    assert e.settled("t1") == SUCCEEDED


def test_a_performer_that_acted_answers_from_its_own_record(org):
    service = Scripted("service", {"t1/wf1/s1/y/a0": "later"})
    crash_after_claiming(org, service)
    service.reconcile_as = Reconciled(ACTED, Answer(SUCCEEDED, "from my journal"))
    e = org.engine()
    e.pump()
    assert service.acted.count("t1/wf1/s1/y/a0") == 1
    assert org.rows(kind="effect.redelivered") == []
    (y,) = [r for r in org.rows(kind="attempt.outcome") if r.key == "t1/wf1/s1/y/a0"]
    assert y.body["detail"] == "from my journal"
    assert e.settled("t1") == SUCCEEDED


def test_one_that_cannot_say_waits_for_a_person(org, monkeypatch):
    service = Scripted("service", {"t1/wf1/s1/y/a0": "later"})
    crash_after_claiming(org, service)
    service.reconcile_as = Reconciled(UNKNOWN)
    e = org.engine()
    e.pump()
    org.engine().pump()  # a second restart says nothing new
    (row,) = org.rows(kind="effect.unresolved")
    assert (
        row.body["resolve"]
        == "hale dna effect resolve attempt:t1/wf1/s1/y/a0 --outcome failed|succeeded"
    )
    assert e.settled("t1") is None
    monkeypatch.chdir(org.root)
    runner = CliRunner()
    r = runner.invoke(
        hale, ["dna", "effect", "resolve", "attempt:t1/wf1/s1/y/a0", "--outcome", "failed"]
    )
    assert r.exit_code == 0 and r.output.startswith("attempt:t1/wf1/s1/y/a0 failed asked")
    assert e.settled("t1") is None and not [
        row for row in org.rows(kind="attempt.outcome") if row.key == "t1/wf1/s1/y/a0"
    ]  # asked, the legs' way: the organization writes the outcome
    again = runner.invoke(
        hale, ["dna", "effect", "resolve", "attempt:t1/wf1/s1/y/a0", "--outcome", "failed"]
    )
    assert again.exit_code == 1 and "is asked already (failed)" in again.stderr
    (asked,) = org.rows(kind="attempt.outcome.requested")
    said = Settler(e.record, e).on_outcome_requested(Message(0, asked.kind, message_of(asked)))
    assert said == "settled failed"  # the relayed ask, settled as a leg's is (asks/settle.py)
    (y,) = [row for row in org.rows(kind="attempt.outcome") if row.key == "t1/wf1/s1/y/a0"]
    assert y.body["detail"] == "resolved by a person" and y.body["performer"] == "service"
    again = runner.invoke(
        hale, ["dna", "effect", "resolve", "attempt:t1/wf1/s1/y/a0", "--outcome", "failed"]
    )
    assert again.exit_code == 1 and "already has its outcome: failed" in again.stderr
    e.pump()  # y failed, so it is tried again
    assert "attempt.admitted t1/wf1/s1/y/a1" in org.lines()
    assert e.settled("t1") == SUCCEEDED
    assert service.acted.count("t1/wf1/s1/y/a0") == 1


def test_resolve_refuses_an_attempt_not_waiting_for_a_person(org, monkeypatch):
    service = Scripted("service", {"t1/wf1/s1/y/a0": "later"})
    crash_after_claiming(org, service)
    monkeypatch.chdir(org.root)
    r = CliRunner().invoke(
        hale, ["dna", "effect", "resolve", "attempt:t1/wf1/s1/y/a0", "--outcome", "succeeded"]
    )
    assert r.exit_code == 1 and "is not waiting for a person" in r.stderr
    r = CliRunner().invoke(
        hale, ["dna", "effect", "resolve", "t1/wf1/s1/y/a0", "--outcome", "succeeded"]
    )
    assert r.exit_code == 2


def test_a_person_case_on_the_queue_is_not_handed_again(org):
    def build(c):
        assert c.define("ask-person", 1, "record", "a person") == ""
        assert c.leaf("ask-person", 1, 0, "p", work("decide", "person"), 1) == ""

    e = org.engine()
    e.admit(catalog_of(build).bind("ask-person"), "ask", "leader")
    e.pump()
    e2 = org.engine()
    e2.pump()
    assert len(org.rows(kind="board.case")) == 1 and org.rows(kind="effect.redelivered") == []
    e2.reply("t1/wf1/s0/p/a0", "person", SUCCEEDED)
    e2.pump()
    assert e2.settled("t1") == SUCCEEDED


def test_the_rebuilt_state_is_the_state_that_was_lost(org):
    service = Scripted("service", {"t1/wf1/s1/y/a0": FAILED, "t1/wf1/s1/y/a1": "later"})
    e = crash_after_claiming(org, service)
    assert org.lines()[-1] == "attempt.claimed t1/wf1/s1/y/a1"
    rebuilt = org.engine()
    for task, t in e.state.tasks.items():
        r = rebuilt.state.tasks[task]
        assert (r.outcome, len(r.steps), r.halt) == (t.outcome, len(t.steps), t.halt)
    assert {k: (a.outcome, a.claimed) for k, a in e.state.attempts.items()} == {
        k: (a.outcome, a.claimed) for k, a in rebuilt.state.attempts.items()
    }


def revision(c, rev: int) -> None:
    assert c.define("close", rev, " ".join(["record"] * (rev + 1)), f"close, revision {rev}") == ""
    for s in range(rev + 1):
        assert c.leaf("close", rev, s, f"s{s}", work(f"step {s}", "person"), 1) == ""


def test_a_task_born_under_a_revision_finishes_under_it_after_an_upgrade(org):
    e = org.engine()
    assert e.admit_from(catalog_of(lambda c: revision(c, 1)), "close", "a1", "leader").task == "t1"
    e.pump()
    upgraded = catalog_of(lambda c: (revision(c, 1), revision(c, 2)))
    e = org.engine()  # restarted on the upgraded genome
    assert e.admit_from(upgraded, "close", "a2", "leader").task == "t2"
    e.pump()
    for step in (
        "t1/wf1/s0/s0/a0",
        "t1/wf1/s1/s1/a0",
        "t2/wf2/s0/s0/a0",
        "t2/wf2/s1/s1/a0",
        "t2/wf2/s2/s2/a0",
    ):
        e.reply(step, "person", SUCCEEDED)
        e.pump()
    assert e.settled("t1") == e.settled("t2") == SUCCEEDED
    assert [r.key for r in org.rows(kind="step.registered", prefix="t1")] == [
        "t1/wf1/s0",
        "t1/wf1/s1",
    ]
    assert len(org.rows(kind="step.registered", prefix="t2")) == 3
