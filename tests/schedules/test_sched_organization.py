"""The locus hosted by the organization process: relayed, heard by topic, ticked."""

from __future__ import annotations

from schedule_helpers import DAY, START, terms

from hale_runtime.memory import open_memory
from hale_runtime.node.organization import Organization
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record


def test_a_relayed_request_reaches_the_schedule_requested_subscription(project, monkeypatch):
    memory_file = project / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory_file))
    open_memory(memory_file).migrate()
    org = Organization(project, project, "org@box:c0ffee00")
    org.load()
    assert "ScheduleRequested" in org.dispatcher.topics()
    main = (project / "dna" / "org" / "main.hl").read_text()
    assert "ScheduleRequested" not in main  # no entry in bindings { }
    subscription = org.nerves.subscribe("")
    asker = Record.open(project, who="org@desk:c0ffee00")
    t = terms()
    asker.append("schedule.requested", "sr-000000000001", {**t.as_body(), "by": asker.who})
    relay = Relay()
    assert relay.relay(asker, org.nerves) == 1
    assert org.dispatcher.pump(subscription, 1.0) == 1
    answered = org.record.rows(kind="schedule.answered")
    assert [(r.key, r.body["declared"]) for r in answered] == [("sr-000000000001", True)]
    claims = [r.kind for r in org.record.rows(kind=("claim.taken", "claim.released"))]
    assert claims == ["claim.taken", "claim.released"]
    relay.relay(asker, org.nerves)  # answered: relayed no more
    assert org.dispatcher.pump(subscription, 0.2) == 0
    assert [t.__qualname__ for t in org.tickers].count("SchedulerLocus.tick") == 1


def test_the_organization_ticks_the_scheduler(project, monkeypatch, clock):
    memory_file = project / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory_file))
    open_memory(memory_file).migrate()
    org = Organization(project, project, "org@box:c0ffee00")
    org.record.clock = clock
    org.load()
    org.record.append("schedule.declared", "walk", {
        **terms(id="walk", every_ms=DAY, definition="optimize-walk", args={},
                convener="position:leader").as_body(),
        "occurrence": START,
    })  # fmt: skip
    clock.now = START + DAY + 1_000
    for tick in org.tickers:
        tick()
    admitted = org.record.rows(kind="workflow.admitted")
    assert [r.body["ask"] for r in admitted] == ["sched:walk@2025-11-30T00:00Z"]
    assert org.record.rows(kind="org.reviewed")  # the engine ran the pass
