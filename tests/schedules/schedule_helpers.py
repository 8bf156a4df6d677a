"""Helpers for the Scheduler's tests: real projects (`hale dna new`), real git,
real SQLite memory, the real engine and catalog, and a clock moved by hand."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from support.clock import HandClock  # noqa: F401 (the schedule tests take it from here)

from hale_runtime.catalog import load_catalog
from hale_runtime.cli import hale
from hale_runtime.engine import Engine
from hale_runtime.memory import open_memory
from hale_runtime.nerves import Message
from hale_runtime.node.relay import message_of
from hale_runtime.performers import Performers, plugin_manager
from hale_runtime.record import Record
from hale_runtime.schedules.locus import SchedulerLocus
from hale_runtime.schedules.ratify import OrganismPlugin
from hale_runtime.schedules.terms import Terms

DAY = 86_400_000
HOUR = 3_600_000
MINUTE = 60_000
START = 1_764_374_400_000  # 2025-11-29T00:00Z
ORG = "org@box:c0ffee00"

OVERLAP_WORKFLOWS = """import "vendor/dna" as dna;

fn own_workflows(catalog: dna::WorkflowCatalog) -> String {
    let d = catalog.define("hold-open", 1, "record", "a job a person holds open");
    if len(d) > 0 { return d; }
    let l = catalog.leaf("hold-open", 1, 0, "p", dna::WorkRequest { objective: "{objective}", requires: "person" }, 1);
    if len(l) > 0 { return l; }
    let o = catalog.occurs("hold-open", 1, "overlap", "objective");
    if len(o) > 0 { return o; }
    // refused when the catalog is sealed: its step has no member
    return catalog.define("hollow", 1, "record", "a definition with an empty step");
}
"""


def new_project(path: Path, own_workflows: str | None = None) -> Path:
    result = CliRunner().invoke(hale, ["dna", "new", str(path)])
    assert result.exit_code == 0, result.output
    if own_workflows is not None:
        (path / "dna" / "org" / "own_workflows.hl").write_text(own_workflows)
    return path


def hale_cli(root: Path, *args: str, env: dict[str, str] | None = None):
    """Run `hale dna …` in `root`, as a user would."""
    import os

    old = Path.cwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(hale, ["dna", *args], env=env or {})
    finally:
        os.chdir(old)


class Org:
    """The organization's side: record, memory, catalog, engine and the locus."""

    def __init__(self, root: Path, clock: HandClock, memory: bool = True, budget=None):
        self.root, self.clock, self.with_memory, self.budget = root, clock, memory, budget
        self.memory = None
        if memory:
            self.memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
            self.memory.migrate()
        self.catalog = load_catalog(root)
        self.start()

    def start(self) -> None:
        """A (re)start: everything rebuilt from the record."""
        self.record = Record.open(self.root, clock=self.clock, who=ORG)
        mem = self.memory or _scratch_memory(self.root)
        organism = OrganismPlugin(self.record)
        performers = Performers(plugin_manager(organism, entry_points=False))
        self.engine = Engine(self.record, mem, performers, budget=self.budget, clock=self.clock)
        self.locus = SchedulerLocus(
            self.root, self.record, self.memory, self.catalog, self.engine, clock=self.clock,
            organism=organism,
        )  # fmt: skip

    def ask(self, terms: Terms, who: str = ORG) -> str:
        """Write a schedule.requested row as `who` and hand it to the locus; the request id."""
        writer = Record.open(self.root, clock=self.clock, who=who)
        body = {**terms.as_body(), "by": who}
        n = len(writer.rows(kind="schedule.requested"))
        row = writer.append("schedule.requested", f"sr-{n:012x}", body)
        self.locus.on_schedule_requested(Message(1, row.kind, message_of(row)))
        return row.key

    def answer(self, request: str) -> dict:
        rows = self.record.rows(kind="schedule.answered", key_prefix=request)
        return rows[-1].body

    def run_until(self, end: int, step: int = MINUTE) -> None:
        """Tick every `step` from now until `end` (inclusive)."""
        while self.clock.now + step <= end:
            self.clock.advance(step)
            self.locus.tick()

    def rows(self, kind: str | tuple, key: str | None = None) -> list:
        return self.record.rows(kind=kind, key_prefix=key)

    def asks(self, schedule: str) -> list[str]:
        return [
            r.body["ask"]
            for r in self.record.rows(kind="workflow.admitted")
            if r.body.get("ask", "").startswith(f"sched:{schedule}@")
        ]


def _scratch_memory(root: Path):
    """The engine's claims need a memory even when the Scheduler is given none."""
    m = open_memory(root / ".git" / "hale" / "engine.sqlite3")
    m.migrate()
    return m


def terms(
    id: str = "nightly",
    every_ms: int = 0,
    cron: str = "0 2 * * *",
    definition: str = "ask-edit",
    args: object = None,
    convener: str = "position:editor",
) -> Terms:
    args = {"objective": "reconcile the records of the day"} if args is None else args
    text = args if isinstance(args, str) else json.dumps(args)
    return Terms(id, every_ms, "" if every_ms else cron, definition, text, convener)
