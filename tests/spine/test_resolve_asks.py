"""A person's resolve is its own ask: each `hale dna effect resolve` writes
`attempt.outcome.requested` under `<attempt>#<n>`, so one the Settler
refuses (by the authority check) answers only itself; the relay carries the
next person's, which settles the case; a resolve that contradicts an
outcome already decided is refused with who decided it. Real record,
engine, relay and CLI."""

from __future__ import annotations

from click.testing import CliRunner
from test_doors import engine_with_a_case

from hale_runtime.asks.settle import Settler, attempt_of
from hale_runtime.cli import hale
from hale_runtime.nerves import Message
from hale_runtime.node.relay import Relay, message_of

CASE = "t1/wf1/s0/p/a0"
ANN, CAROL = "ann@box:a", "carol@box:c"


def resolve(who: str, outcome: str):
    return CliRunner().invoke(
        hale, ["dna", "effect", "resolve", f"attempt:{CASE}", "--outcome", outcome],
        env={"HALE_DNA_NODE": who},
    )  # fmt: skip


def relayed(relay: Relay, record) -> list:
    relay.read(record)
    return list(relay.pending.values())


def test_a_refused_resolve_answers_only_itself(tmp_path, monkeypatch):
    org, e = engine_with_a_case(tmp_path)
    monkeypatch.chdir(org.root)
    settler, relay = Settler(e.record, e), Relay()
    settler.may_resolve = lambda person, writer, a: (
        "" if person == CAROL else f"{person} does not hold the Board"
    )
    assert resolve(ANN, "failed").exit_code == 0
    (ask,) = relayed(relay, e.record)
    assert ask.key == f"{CASE}#1" and attempt_of(ask.key) == CASE
    said = settler.on_outcome_requested(Message(1, ask.kind, message_of(ask)))
    assert said == f"{ANN} does not hold the Board"
    assert relayed(relay, e.record) == [] and not org.rows(kind="attempt.outcome")

    second = resolve(CAROL, "succeeded")  # heard: the refusal answered only ann's ask
    assert second.exit_code == 0, second.output
    (ask,) = relayed(relay, e.record)
    assert (ask.key, ask.who) == (f"{CASE}#2", CAROL)
    assert settler.on_outcome_requested(Message(2, ask.kind, message_of(ask))) == (
        "settled succeeded"
    )
    (outcome,) = [r for r in org.rows(kind="attempt.outcome") if r.key == CASE]
    assert (outcome.body["outcome"], outcome.body["resolved_by"]) == ("succeeded", CAROL)
    answers = {r.key: r.body for r in org.rows(kind="attempt.outcome.answered")}
    assert answers[f"{CASE}#2"] == {"settled": "succeeded", "why": "", "ask": ask.id}
    assert answers[f"{CASE}#1"]["settled"] == ""

    # written from a clone that had not synced: another outcome, refused with who
    late = e.record.append("attempt.outcome.requested", f"{CASE}#3",
                           {"outcome": "failed", "resolved_by": CAROL})  # fmt: skip
    said = settler.on_outcome_requested(Message(3, late.kind, message_of(late)))
    assert said == f"{CASE} already has its outcome: succeeded (resolved by {CAROL})"
    again = e.record.append("attempt.outcome.requested", f"{CASE}#4",
                            {"outcome": "succeeded", "resolved_by": CAROL})  # fmt: skip
    # the same decision by the same person (an ask whose answer a crash lost)
    assert settler.on_outcome_requested(Message(4, again.kind, message_of(again))) == (
        "settled succeeded"
    )
    assert len([r for r in org.rows(kind="attempt.outcome") if r.key == CASE]) == 1
    assert relayed(relay, e.record) == []


def test_a_second_resolve_waits_while_one_is_unanswered(tmp_path, monkeypatch):
    org, e = engine_with_a_case(tmp_path)
    monkeypatch.chdir(org.root)
    assert resolve(ANN, "failed").exit_code == 0
    waiting = resolve(CAROL, "succeeded")
    assert waiting.exit_code == 1
    assert f"attempt {CASE}'s outcome is asked already (failed)" in waiting.stderr
    assert [r.key for r in org.rows(kind="attempt.outcome.requested")] == [f"{CASE}#1"]


def test_attempt_of_reads_a_legs_key_and_a_persons():
    assert attempt_of("t1/wf1/s0/p/a0") == "t1/wf1/s0/p/a0"
    assert attempt_of("t1/wf1/s0/p/a0#12") == "t1/wf1/s0/p/a0"
    assert attempt_of("t1.s0.x#y/wf1/s0/p/a0") == "t1.s0.x#y/wf1/s0/p/a0"  # a member key's #
    assert attempt_of("t1/wf1/s0/p/a0#") == "t1/wf1/s0/p/a0#"
