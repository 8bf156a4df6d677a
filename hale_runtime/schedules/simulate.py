"""`hale dna simulate`: the genome's Scheduler and engine on a virtual clock.

An author who writes a schedule, or changes scheduler.hl, sees what it will
do over a month in seconds, as Temporal's time-skipping test server lets a
workflow's timers fire at once. Nothing here decides anything the node
would not: it is the node's own organism, on a clock that jumps.

1. A throwaway copy of the record: a new bare repository in a temporary
   folder that borrows the project's git objects (alternates; git never
   writes to those) and copies its `refs/dna/*` refs. Every row the
   simulation writes is a new object and a ref move in the copy, which goes
   with the folder. The project's repository, record and memory are only
   read.
2. A scratch memory (SQLite in the same folder), projected from the copy
   as a node projects its own, so positions and holders are the record's.
3. The organism as a node builds it (plug.py): the catalog and the
   Scheduler from the genome on disk, an Engine with the shipped performers
   and the offline provider (no plugin from entry points, so no model is
   ever called), and the Scheduler locus, all on the virtual clock. Every
   performer answers at once, a person too; with `open_for`, each answer is
   held until its execution has been open that long.
4. Time skips from event to event in the window [start, end): the
   Scheduler's soonest due occurrence (its `soonest`; a genome Scheduler
   without one is ticked once a second, as a node ticks), the next held
   answer, the end of a down period. The organism starts at `start` as a
   node started then would, so occurrences the record left unhandled
   before it are missed at the first tick. A down period [a, b) has no
   tick; at b the organism restarts, everything rebuilt from the copy, as
   after a real outage. The copy lives in a RAM-backed folder where the
   system has one (/dev/shm): its commits are never to last.
5. The report is read back from the rows the simulation wrote: per
   schedule, the executions admitted (asks `sched:<id>@<time>`) and how
   they settled, the skipped and missed occurrences (a missed row's run
   spelled out occurrence by occurrence), the admissions the engine
   refused.

Once the organism's rhythm is steady (steady.py: every tick the same
executions, settled at once, on each schedule's cadence), the rest of the
window is counted along the cadences rather than run, when nothing left in
it could change the rhythm; a `progress` callback hears how far the virtual
clock has got. A window with more than `max_ticks` ticks of work stops with
`TooLong`.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from hale_runtime import errors
from hale_runtime.performers import SUCCEEDED, Answer, Pending, Reconciled
from hale_runtime.performers.base import ACTED
from hale_runtime.record import Record, Row, kinds
from hale_runtime.schedules.state import KINDS, Fold
from hale_runtime.schedules.steady import Rhythm, stamps
from hale_runtime.schedules.terms import ASK_PREFIX, ask_id, parse_ask, stamp, when

SECOND = 1000
MAX_TICKS = 100_000
_SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
Window = tuple[int, int]  # [start, end) in ms


class TooLong(errors.Refused):
    """The window holds more ticks of work than the budget allows."""


class VirtualClock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


# --- the copy ------------------------------------------------------------------------


def copy_record(root: Path, into: Path) -> Path:
    """A bare repository at `into` holding the project's `refs/dna/*`, its
    objects borrowed from the project's repository."""
    gitdir = pygit2.discover_repository(str(root))
    if gitdir is None:
        raise FileNotFoundError(f"{root} is not in a git repository")
    source = pygit2.Repository(gitdir)
    pygit2.init_repository(str(into), bare=True)
    objects = Path(source.path) / "objects"
    (into / "objects" / "info" / "alternates").write_text(f"{objects.resolve()}\n")
    copy = pygit2.Repository(str(into))
    for name in source.references:
        if name.startswith("refs/dna/"):
            copy.references.create(name, source.references[name].resolve().target)
    return into


# --- performers that answer at once ---------------------------------------------------------


class Answering:
    """Wraps every performer: a person answers at once; an answer waits until
    its execution has been open `open_for` ms, then goes to the engine."""

    def __init__(self, clock: VirtualClock, open_for: int):
        self.clock, self.open_for = clock, open_for
        self.opened: dict[str, int] = {}  # root task -> when its first attempt came
        self.held: dict[str, tuple[int, str, Answer]] = {}  # attempt -> (due, kind, answer)

    def wrap(self, engine: Any) -> None:
        by_kind = engine.performers.by_kind
        for kind, inner in list(by_kind.items()):
            by_kind[kind] = _Simulated(inner, self)

    def hold(self, attempt: str, root: str, kind: str, result: Answer) -> Answer | Pending:
        due = self.opened.setdefault(root, self.clock()) + self.open_for
        if due <= self.clock():
            return result
        self.held[attempt] = (
            due,
            kind,
            Answer(result.outcome, result.detail, result.calls, result.grant),
        )
        return Pending(list(result.facts))

    def next_due(self) -> int | None:
        return min((due for due, _, _ in self.held.values()), default=None)

    def release(self, engine: Any, now: int) -> int:
        """Hand the engine every answer due by `now`; how many."""
        due = sorted((d, a) for a, (d, _, _) in self.held.items() if d <= now)
        for _, attempt in due:
            _, kind, answer = self.held.pop(attempt)
            engine.inbox.append((attempt, kind, answer))
        return len(due)


class _Simulated:
    def __init__(self, inner: Any, answering: Answering):
        self.inner, self.answering, self.kind = inner, answering, inner.kind

    def offers(self, capability: str) -> bool:
        return self.inner.offers(capability)

    def deliver(self, work: Any, ctx: Any) -> Answer | Pending:
        from hale_runtime.engine.ids import root_of

        result = self.inner.deliver(work, ctx)
        if isinstance(result, Pending):  # a person, answering at once
            result = Answer(SUCCEEDED, "answered at once by the simulation", facts=result.facts)
        return self.answering.hold(work.attempt, root_of(work.task), self.kind, result)

    def reconcile(self, work: Any, ctx: Any) -> Reconciled:
        if work.attempt in self.answering.held:  # after a restart: its answer is still to come
            return Reconciled(ACTED)
        return self.inner.reconcile(work, ctx)

    def __getattr__(self, name: str) -> Any:  # what a wrapped organism offers besides
        return getattr(self.inner, name)


# --- the run -------------------------------------------------------------------------------


@dataclass
class Simulation:
    root: Path
    start: int
    end: int
    down: list[Window] = field(default_factory=list)
    open_for: int = 0
    max_ticks: int = MAX_TICKS
    progress: Any = None  # called with the virtual clock's ms after each tick

    def run(self) -> Report:
        with tempfile.TemporaryDirectory(prefix="hale-simulate-", dir=_SCRATCH) as scratch:
            return self._run(Path(scratch))

    def _run(self, scratch: Path) -> Report:
        from hale_runtime.catalog import load_catalog
        from hale_runtime.memory import open_memory
        from hale_runtime.schedules.scheduler import Scheduler

        copy_record(self.root, scratch / "record.git")
        self.clock = VirtualClock(self.start)
        self.memory = open_memory(scratch / "memory.sqlite3")
        self.memory.migrate()
        self.catalog = load_catalog(self.root)
        built = Scheduler(self.root)  # built once, as a node builds its genome
        self.program = (built.program, built.entry)
        self.answering = Answering(self.clock, self.open_for)
        self.copy = scratch / "record.git"
        now = self._first_tick(self.start)
        self._boot()
        before = cursor = self.record.cursor()
        fold = Fold().apply_all(self.record.rows(kind=KINDS))
        rhythm, projected = Rhythm(), []
        ticks = 0
        while now is not None:
            ticks += 1
            if ticks > self.max_ticks:
                raise TooLong(f"more than {self.max_ticks:,} ticks of work")
            self._tick(now)
            rows = self.record.rows(since=cursor)
            cursor = self.record.cursor()
            fold.apply_all(r for r in rows if r.kind in KINDS)
            cadence = {id: s.terms for id, s in fold.schedules.items() if not s.paused}
            rhythm.observe(rows, cadence)
            if self.progress is not None:
                self.progress(now)
            if rhythm.steady(cadence) and self._unchanging(now):
                projected = rhythm.project(cadence, self.end, self.engine.state.budget)
                if projected:
                    break
            booted = self.record
            now = self._next(now)
            if self.record is not booted:  # a restart after a down period
                rhythm.reset()
                cursor = self.record.cursor()
        if self.progress is not None:
            self.progress(self.end)
        report = Report.read(self.record, before, self.start, self.end, projected)
        self.record.close()
        self.memory.close()
        return report

    def _boot(self) -> None:
        """Start (or restart) the organism on the copy, everything rebuilt from it."""
        from hale_runtime.engine import Engine
        from hale_runtime.memory.projection import project
        from hale_runtime.performers import Performers, plugin_manager
        from hale_runtime.schedules.locus import SchedulerLocus
        from hale_runtime.schedules.ratify import OrganismPlugin
        from hale_runtime.schedules.scheduler import Scheduler

        self.record = Record.open(self.copy, clock=self.clock)
        while project(self.record, self.memory):
            pass
        organism = OrganismPlugin(self.record)
        plugins = plugin_manager(organism, entry_points=False)
        self.engine = Engine(self.record, self.memory, Performers(plugins), clock=self.clock)
        self.answering.wrap(self.engine)
        scheduler = Scheduler(program=self.program)
        self.locus = SchedulerLocus(
            self.root, self.record, self.memory, self.catalog, self.engine, self.clock, scheduler,
            organism=organism,
        )  # fmt: skip

    def _unchanging(self, now: int) -> bool:
        """Nothing left in the window could change a steady rhythm: no answer
        held, no execution kept open, no down period still to come."""
        return not self.open_for and not self.answering.held and all(b <= now for _, b in self.down)

    def _tick(self, now: int) -> None:
        self.clock.now = now
        if self.answering.release(self.engine, now):
            self.engine.pump()
        self.locus.tick(now)
        self.engine.pump()

    def _next(self, now: int) -> int | None:
        """The next moment anything happens, past down periods; None past the end."""
        soonest = getattr(self.locus.scheduler.state, "f_soonest", None)
        if not isinstance(soonest, int):
            soonest = now + SECOND
        held = self.answering.next_due()
        nxt = max(now + 1, min(soonest, held if held is not None else soonest))
        up = self._first_tick(nxt)
        if up is not None and up != nxt:  # it falls in a down period: back up at its end
            self.clock.now = up
            self.record.close()
            self._boot()
        return up

    def _first_tick(self, at: int) -> int | None:
        """`at`, or the end of the down period holding it; None at or past the end."""
        for a, b in sorted(self.down):
            if a <= at < b:
                at = b
        return at if at < self.end else None


# --- the report ------------------------------------------------------------------------------


@dataclass
class Occurrences:
    """What one schedule did in the window."""

    id: str
    when: str
    definition: str
    convener: str
    paused: bool
    occurred: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    missed: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Report:
    start: int
    end: int
    schedules: list[Occurrences]

    @classmethod
    def read(
        cls, record: Record, since: int, start: int, end: int, projected: list | None = None
    ) -> Report:
        fold = Fold().apply_all(record.rows(kind=KINDS))
        by_id = {
            id: Occurrences(id, when(s.terms), s.terms.definition, s.terms.convener, s.paused)
            for id, s in fold.schedules.items()
        }
        written = record.rows(since=since)
        settled = {
            r.key: r.body.get("outcome", "") for r in written if r.kind == kinds.WORKFLOW_SETTLED
        }
        for row in written:
            _take(by_id, fold, row, settled)
        if projected:  # counted along the steady rhythm
            names = stamps([p[0] for p in projected])
            for (_, sid, task, outcome), at in zip(projected, names, strict=True):
                entry = {"occurrence": f"{ASK_PREFIX}{sid}@{at}", "at": at, "task": task, "outcome": outcome}  # fmt: skip
                by_id[sid].occurred.append(entry)
        return cls(start, end, list(by_id.values()))


def _take(by_id: dict[str, Occurrences], fold: Fold, row: Row, settled: dict[str, str]) -> None:
    if row.kind == kinds.WORKFLOW_ADMITTED:
        parsed = parse_ask(str(row.body.get("ask", "")))
        if parsed and parsed[0] in by_id:
            task = row.key
            entry = {"occurrence": row.body["ask"], "at": stamp(parsed[1]), "task": task}
            entry["outcome"] = settled.get(task, "open")
            by_id[parsed[0]].occurred.append(entry)
        return
    s = by_id.get(row.key)
    if s is None:
        return
    if row.kind == kinds.SCHEDULE_SKIPPED:
        at = int(row.body["occurrence"])
        s.skipped.append(
            {"occurrence": ask_id(s.id, at), "at": stamp(at), "open": row.body.get("open", "")}
        )
    elif row.kind == kinds.SCHEDULE_MISSED:
        s.missed += [
            {"occurrence": ask_id(s.id, at), "at": stamp(at)}
            for at in _run_of(fold, s.id, int(row.body["first"]), int(row.body["last"]))
        ]
    elif row.kind == kinds.SCHEDULE_FAILED:
        at = int(row.body["occurrence"])
        s.failed.append(
            {"occurrence": ask_id(s.id, at), "at": stamp(at), "reason": row.body.get("reason", "")}
        )


def _run_of(fold: Fold, id: str, first: int, last: int) -> list[int]:
    """Every occurrence of schedule `id` from `first` to `last`."""
    terms = fold.schedules[id].terms
    if not terms.cron:
        return list(range(first, last + 1, terms.every_ms))
    from hale_runtime.schedules import cron

    compiled, out, at = cron.compile_cron(terms.cron), [], first
    while at <= last:
        out.append(at)
        at = compiled.next_after(at)
    return out
