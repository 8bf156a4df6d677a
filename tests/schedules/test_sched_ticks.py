"""Occurrences on the wall clock, stepped by hand through days without sleeping."""

from __future__ import annotations

from schedule_helpers import DAY, HOUR, MINUTE, START, terms


def declare(org, **kw) -> None:
    request = org.ask(terms(**kw))
    assert org.answer(request)["declared"], org.answer(request)


def test_a_cron_occurs_at_its_matching_minute_in_utc(org):
    declare(org)
    org.run_until(START + 3 * DAY)
    assert org.asks("nightly") == [
        "sched:nightly@2025-11-29T02:00Z",
        "sched:nightly@2025-11-30T02:00Z",
        "sched:nightly@2025-12-01T02:00Z",
    ]
    admitted = org.rows("workflow.admitted")
    assert {r.body["convener"] for r in admitted} == {"position:editor"}
    assert admitted[0].body["inputs"] == {"objective": "reconcile the records of the day"}
    assert admitted[0].body["definition"] == "ask-edit@1"  # the newest revision


def test_a_cron_is_evaluated_once_a_minute_whatever_the_tick(org):
    declare(org, cron="*/30 * * * *")
    org.run_until(START + 2 * HOUR + MINUTE, step=7_000)
    assert len(org.asks("nightly")) == 4  # 00:30 01:00 01:30 02:00


def test_an_interval_occurs_at_each_step_from_the_epoch(org):
    declare(org, id="often", every_ms=90_000)
    org.run_until(START + 10 * MINUTE, step=1_000)
    asks = org.asks("often")
    assert asks[0] == "sched:often@2025-11-29T00:01:30Z"
    assert len(asks) == 6  # 01:30 03:00 04:30 06:00 07:30 09:00


def test_nothing_at_or_before_the_declarations_occurrence_is_due(org, clock):
    clock.now = START + 2 * HOUR + 30_000  # 02:00:30, inside the 02:00 minute
    declare(org)
    org.run_until(START + 2 * HOUR + 5 * MINUTE)
    assert org.asks("nightly") == []
    declared = org.rows("schedule.declared")[-1]
    assert declared.body["occurrence"] == START + 2 * HOUR


def test_missed_occurrences_are_rows_and_never_run_late(org, clock):
    declare(org)
    org.run_until(START + 3 * HOUR)  # 02:00 on day 0 ran
    clock.now = START + 3 * DAY + 5 * HOUR  # the organism was down for three nights
    org.start()
    org.locus.tick()
    missed = org.rows("schedule.missed")
    assert [m.body for m in missed] == [
        {
            "first": START + DAY + 2 * HOUR,
            "last": START + 3 * DAY + 2 * HOUR,
            "count": 3,
            "from": "2025-11-30T02:00Z",
            "to": "2025-12-02T02:00Z",
        }
    ]
    assert len(org.asks("nightly")) == 1
    org.run_until(START + 4 * DAY + 3 * HOUR)
    assert org.asks("nightly")[-1] == "sched:nightly@2025-12-03T02:00Z"  # the next on time


def test_an_interval_downtime_misses_each_step_but_runs_the_current_one(org, clock):
    declare(org, id="often", every_ms=10 * MINUTE)
    org.run_until(START + 10 * MINUTE)
    clock.now = START + 65 * MINUTE
    org.start()
    org.locus.tick()
    assert org.rows("schedule.missed")[0].body["count"] == 4  # 20 30 40 50
    assert org.asks("often")[-1] == "sched:often@2025-11-29T01:00Z"


def test_an_occurrence_while_the_last_is_open_is_skipped(org):
    declare(org, id="p", every_ms=HOUR, definition="ask-person", convener="position:editor")
    org.run_until(START + 3 * HOUR)
    assert len(org.asks("p")) == 1  # a person holds it open
    skipped = org.rows("schedule.skipped")
    assert [s.body["at"] for s in skipped] == ["2025-11-29T02:00Z", "2025-11-29T03:00Z"]
    assert {s.body["open"] for s in skipped} == {"t1"}


def test_overlap_admits_beside_an_open_execution(org):
    declare(org, id="o", every_ms=HOUR, definition="hold-open")
    org.run_until(START + 3 * HOUR)
    assert len(org.asks("o")) == 3
    assert org.rows("schedule.skipped") == []


def test_a_paused_schedule_passes_unfired_and_unmissed(org):
    declare(org)
    org.run_until(START + 3 * HOUR)
    org.record.append("schedule.paused", "nightly", {"by": "ann"})
    org.run_until(START + 2 * DAY + 3 * HOUR)
    assert len(org.asks("nightly")) == 1
    assert org.rows("schedule.missed") == []
    org.record.append("schedule.resumed", "nightly", {"by": "ann"})
    org.run_until(START + 3 * DAY + 3 * HOUR)
    assert org.asks("nightly")[-1] == "sched:nightly@2025-12-02T02:00Z"
    assert org.rows("schedule.missed") == []


def test_a_resume_goes_on_from_the_next_occurrence(org, clock):
    declare(org, id="often", every_ms=HOUR)
    org.record.append("schedule.paused", "often", {"by": "ann"})
    org.run_until(START + 5 * HOUR + 30 * MINUTE)
    org.record.append("schedule.resumed", "often", {"by": "ann"})  # at 05:30
    org.run_until(START + 7 * HOUR)
    assert org.asks("often") == ["sched:often@2025-11-29T06:00Z", "sched:often@2025-11-29T07:00Z"]


def test_a_resume_read_at_a_restart_counts_misses_only_from_the_resume(org, clock):
    declare(org, id="often", every_ms=HOUR)
    org.record.append("schedule.paused", "often", {"by": "ann"})
    org.run_until(START + HOUR)
    # the organism goes down; the schedule is resumed from a clone at 10:30
    clock.now = START + 10 * HOUR + 30 * MINUTE
    org.record.append("schedule.resumed", "often", {"by": "ann"})
    clock.now = START + 13 * HOUR + 5 * MINUTE
    org.start()
    org.locus.tick()
    assert [m.body["count"] for m in org.rows("schedule.missed")] == [2]  # 11:00, 12:00
    assert org.asks("often") == ["sched:often@2025-11-29T13:00Z"]


def test_an_occurrence_asked_twice_or_after_a_restart_is_one_execution(org, clock):
    declare(org)
    clock.now = START + 2 * HOUR + 10_000
    org.locus.tick()
    org.start()  # a restart inside the same minute: the state is rebuilt from the record
    org.locus.tick()
    clock.advance(20_000)
    org.start()
    org.locus.tick()
    assert org.asks("nightly") == ["sched:nightly@2025-11-29T02:00Z"]
    # asked directly again, the engine gives the same task
    again = org.engine.admit_from(
        org.catalog, "ask-edit", "sched:nightly@2025-11-29T02:00Z", "position:editor",
        {"objective": "reconcile the records of the day"},
    )  # fmt: skip
    assert (again.task, again.new) == ("t1", False)


def test_other_terms_hold_from_their_declaration(org, clock):
    declare(org)
    org.run_until(START + 3 * HOUR)
    declare(org, every_ms=HOUR)  # now hourly
    org.run_until(START + 6 * HOUR)
    assert org.asks("nightly") == [
        "sched:nightly@2025-11-29T02:00Z",
        "sched:nightly@2025-11-29T04:00Z",
        "sched:nightly@2025-11-29T05:00Z",
        "sched:nightly@2025-11-29T06:00Z",
    ]


def test_utc_minutes_have_no_daylight_saving(org, clock):
    clock.now = 1_774_828_800_000  # 2026-03-30T00:00Z, the night Europe moves its clocks
    declare(org, cron="30 1 * * *")
    org.run_until(clock.now + 2 * DAY)
    assert org.asks("nightly") == [
        "sched:nightly@2026-03-30T01:30Z",
        "sched:nightly@2026-03-31T01:30Z",
    ]


def test_an_occurrence_the_catalog_refuses_fails_as_a_row(org, clock):
    declare(org)
    org.catalog.definitions.pop(("ask-edit", 1))  # the genome changed under the schedule
    org.run_until(START + 3 * HOUR)
    failed = org.rows("schedule.failed")
    assert failed[0].body["reason"] == "no workflow ask-edit in the catalog"
