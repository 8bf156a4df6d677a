"""`hale dna simulate` counts the rest of a window once the organism's rhythm
is steady (schedules/steady.py): what it counts is what running every tick
reports, occurrence by occurrence, task by task."""

from __future__ import annotations

from pathlib import Path

import pytest
from schedule_helpers import DAY, HOUR, MINUTE, START, HandClock, Org, hale_cli, terms

from hale_runtime.schedules import steady
from hale_runtime.schedules.simulate import Simulation

FROM = START + 2 * DAY


def _report(root: Path, to: int, **kw) -> list[dict]:
    return [s.as_json() for s in Simulation(root, FROM, to, **kw).run().schedules]


@pytest.fixture
def rhythmic(project: Path) -> Path:
    org = Org(project, HandClock(START))
    org.ask(terms(id="often", every_ms=7 * MINUTE, cron=""))
    org.ask(terms(id="quarterly-hour", cron="*/15 * * * *"))
    paused = hale_cli(project, "schedule", "pause", "nightly")  # the fixture's daily one
    assert paused.exit_code == 0, paused.output
    return project


def test_the_counted_rest_is_what_running_it_reports(rhythmic: Path, monkeypatch):
    to = FROM + 6 * HOUR
    heard: list[int] = []
    counted = _report(rhythmic, to, progress=heard.append)
    assert heard[-1] == to and heard[-2] < to - HOUR, "the rest was counted, not ticked"
    monkeypatch.setattr(steady, "STEADY", 10**9)  # never steady: every tick run
    ran = _report(rhythmic, to)
    assert counted == ran
    by = {s["id"]: s for s in ran}
    assert len(by["often"]["occurred"]) > 40 and len(by["quarterly-hour"]["occurred"]) > 20
    tasks = [o["task"] for s in ran for o in s["occurred"]]
    assert len(set(tasks)) == len(tasks)


def test_a_down_period_to_come_is_run_not_counted(rhythmic: Path, monkeypatch):
    to = FROM + 150 * MINUTE
    down = [(FROM + 30 * MINUTE, FROM + 45 * MINUTE)]
    heard: list[int] = []
    counted = _report(rhythmic, to, down=down, progress=heard.append)
    assert heard[-2] > FROM + 45 * MINUTE, "run through the down period"
    assert heard[-2] < to - HOUR, "and counted once steady after it"
    monkeypatch.setattr(steady, "STEADY", 10**9)
    assert counted == _report(rhythmic, to, down=down)
