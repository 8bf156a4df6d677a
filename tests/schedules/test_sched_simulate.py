"""`hale dna simulate`: schedules on a virtual clock, on a copy of the record.

The check against the real Scheduler: the same project's record is replayed
by the organization a node runs (record, engine, locus; tests' `Org`) on a
hand clock ticking every 30 seconds through the same window, down periods
and all, and the occurrences it writes must be the simulation's. The
performers answer the same way on both sides (the simulation's policy, or
the shipped performers where they answer at once), so what is compared is
the time-skipping run against a plain ticking one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest
from schedule_helpers import DAY, HOUR, MINUTE, START, Org, hale_cli, terms

from hale_runtime.record import Record
from hale_runtime.schedules import simulate as simulate_module
from hale_runtime.schedules.simulate import Answering, Report, Simulation, TooLong
from hale_runtime.schedules.terms import stamp

FROM = START + 2 * DAY  # 2025-12-01T00:00Z
TO = FROM + 3 * DAY
DOWN = (FROM + DAY + HOUR, FROM + DAY + 3 * HOUR)  # the 2nd night's 02:00 passes unticked
TICK = 30_000


def declared(org: Org, *schedules) -> Org:
    for t in schedules:
        assert org.answer(org.ask(t))["declared"]
    return org


def simulate(project: Path, *args: str) -> dict:
    result = hale_cli(
        project, "simulate", "--from", stamp(FROM), "--to", stamp(TO), *args, "--json"
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def replay(project: Path, clock, down=(), open_for: int | None = None) -> list:
    """The real organization on a hand clock, ticking every 30 s through the window."""
    clock.now = FROM
    org = Org(project, clock)
    answering = Answering(clock, open_for) if open_for is not None else None
    if answering:
        answering.wrap(org.engine)
    since = org.record.cursor()
    while clock.now < TO:
        if any(a <= clock.now < b for a, b in down):
            clock.now = max(b for a, b in down if a <= clock.now < b)
            org.start()  # back up after the outage: everything rebuilt from the record
            if answering:
                answering.wrap(org.engine)
            continue
        if answering and answering.release(org.engine, clock.now):
            org.engine.pump()
        org.locus.tick()
        org.engine.pump()
        clock.now += TICK
    return [s.as_json() for s in Report.read(org.record, since, FROM, TO).schedules]


def keys(schedules: list, what: str) -> dict[str, list[str]]:
    return {s["id"]: [o["occurrence"] for o in s[what]] for s in schedules}


def test_the_simulation_is_what_a_node_on_a_hand_clock_does(org, project, clock) -> None:
    declared(
        org,
        terms(),
        terms(id="often", every_ms=HOUR, definition="hold-open", args={"objective": "x"}),
    )
    down = f"{stamp(DOWN[0])}/{stamp(DOWN[1])}"
    simulated = simulate(project, "--down", down)["schedules"]
    replayed = replay(project, clock, down=[DOWN])
    for what in ("occurred", "skipped", "missed", "failed"):
        assert keys(simulated, what) == keys(replayed, what), what
    nightly = keys(simulated, "occurred")["nightly"]
    assert nightly == ["sched:nightly@2025-12-01T02:00Z", "sched:nightly@2025-12-03T02:00Z"]
    assert keys(simulated, "missed")["nightly"] == [  # before the window, then down
        "sched:nightly@2025-11-29T02:00Z",
        "sched:nightly@2025-11-30T02:00Z",
        "sched:nightly@2025-12-02T02:00Z",
    ]
    often = keys(simulated, "missed")["often"]
    assert often[-2:] == ["sched:often@2025-12-02T01:00Z", "sched:often@2025-12-02T02:00Z"]
    assert len(keys(simulated, "occurred")["often"]) == 3 * 24 - 2


def test_open_executions_are_skipped_as_a_node_skips_them(org, project, clock) -> None:
    declared(org, terms(id="hourly", every_ms=HOUR, cron=""))
    simulated = simulate(project, "--open-for", "90m")["schedules"]
    replayed = replay(project, clock, open_for=90 * MINUTE)
    for what in ("occurred", "skipped", "missed"):
        assert keys(simulated, what) == keys(replayed, what), what
    (hourly,) = simulated
    assert len(hourly["occurred"]) == len(hourly["skipped"]) == 36  # every other hour is open
    assert hourly["skipped"][0] == {
        "occurrence": "sched:hourly@2025-12-01T01:00Z",
        "at": "2025-12-01T01:00Z",
        "open": hourly["occurred"][0]["task"],
    }
    assert {o["outcome"] for o in hourly["occurred"][:-1]} == {"succeeded"}


def _state(project: Path) -> tuple:
    repo = pygit2.Repository(str(project / ".git"))
    refs = sorted((r, str(repo.references[r].target)) for r in repo.references)
    hale = sorted(
        (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in (project / ".git/hale").iterdir()
    )
    return refs, hale


def test_the_real_record_and_memory_are_never_written(
    org, project, snapshot, tmp_path, monkeypatch
) -> None:
    # the copy goes to a scratch folder of this test's own, so other runs' copies don't count
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(simulate_module, "_SCRATCH", str(scratch))
    declared(org, terms())
    rows = len(Record.open(project).rows())
    before = _state(project)
    result = hale_cli(project, "simulate", "--from", stamp(FROM), "--to", stamp(TO))
    assert result.exit_code == 0, result.output
    assert result.output == snapshot
    assert _state(project) == before and len(Record.open(project).rows()) == rows
    assert list(scratch.iterdir()) == []  # the copy went


def test_a_fresh_project_has_nothing_to_simulate(project, snapshot) -> None:
    result = hale_cli(project, "simulate", "--from", stamp(FROM), "--to", stamp(TO))
    assert result.exit_code == 0 and result.output == snapshot


@pytest.mark.parametrize(
    "args, why",
    [
        (["--from", "2025-12-01 00:00"], "--from: `2025-12-01 00:00` is not a UTC time"),
        (["--from", "2025-12-02", "--to", "2025-12-01"], "--to 2025-12-01T00:00Z is not after"),
        (["--down", "2025-12-01T00:00Z"], "write a period as START/END"),
        (["--down", "2025-12-02T00:00Z/2025-12-01T00:00Z"], "its end is not after its start"),
        (["--open-for", "90 minutes"], "--open-for: `90 minutes` is not a duration"),
    ],
)
def test_bad_options_say_what_to_write(project, args, why) -> None:
    result = hale_cli(project, "simulate", *args)
    assert result.exit_code == 2 and why in result.output and "Traceback" not in result.output


def test_a_window_with_too_much_work_is_stopped_by_its_budget(org, project) -> None:
    declared(org, terms(id="often", every_ms=MINUTE, cron=""))
    with pytest.raises(TooLong):  # executions held open: no steady rhythm to count the rest by
        Simulation(project, FROM, TO, open_for=90 * MINUTE, max_ticks=50).run()
