"""The Scheduler locus: the organization's schedules, rebuilt from the record.

`rebuild` folds every row (state.py) and holds each schedule in the Hale
Scheduler from where the record stands. Each `tick(now)` first reads the
rows appended since (declarations, pauses and resumes written from any
clone, answers, settlements), then ticks the Hale Scheduler once, writes
the rows it decided as one commit and lets the engine write its
admissions. An occurrence is admitted under `sched:<id>@<time>`; the
engine admits an ask once, so an occurrence asked twice, or again after a
restart, is one execution. `on_schedule_requested` answers a relayed
`schedule.requested` once, under the request's id.

A row the locus cannot fold or hold (terms that cannot stand, or anything
that raises while it takes the row in) changes nothing here and is kept in
`poison`, for the organization to quarantine (`take_poison`).

The locus also carries out the Board's decisions (ratify.py): an approving
`review.decided` it reads is admitted as a `practice-ratify` execution
under `review:<k-id>` on its tick, and the engine's organism performer
(ratify.py's `OrganismPlugin`, given as `organism`) is bound to this locus,
so its `ratify` step declares the practice's schedule here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hale_runtime.errors import one_line
from hale_runtime.record import Record, Row, kinds
from hale_runtime.record.follow import Follower
from hale_runtime.schedules.binding import ScheduleHost
from hale_runtime.schedules.declare import decide, put_rhythm
from hale_runtime.schedules.ratify import OrganismPlugin, approved
from hale_runtime.schedules.scheduler import Scheduler
from hale_runtime.schedules.state import Fold, ScheduleState
from hale_runtime.schedules.terms import Terms, ask_id, stamp
from hale_runtime.seen import Seen

ANSWERED = kinds.SCHEDULE_ANSWERED


class SchedulerLocus:
    def __init__(
        self,
        root: Path | None,
        record: Record,
        memory: Any | None,
        catalog: Any,
        engine: Any,
        clock: Callable[[], int] | None = None,
        scheduler: Scheduler | None = None,
        resume: tuple[int, dict[str, Any]] | None = None,
        organism: OrganismPlugin | None = None,
    ):
        self.root, self.record, self.memory = root, record, memory
        self.catalog, self.engine = catalog, engine
        self.clock = clock or record.clock
        self.scheduler = scheduler or Scheduler(root)
        self.host = ScheduleHost(catalog, memory, self._admit, self._is_open)
        self.admitted = 0
        self.to_ratify: list[str] = []
        self.poison: dict[str, tuple[str, str]] = {}  # row id -> (kind, why)
        if organism is not None:
            organism.bind(self)  # the engine's organism declares ratified schedules here
        self.rebuild(resume)

    # ---- state -------------------------------------------------------------------

    def rebuild(self, resume: tuple[int, dict[str, Any]] | None = None) -> None:
        """Fold the record (from a checkpoint's `(seq, snapshot)` when given, else
        from its start) and hold every schedule from where it stands."""
        self.fold, self.answered, self.follower = Fold(), Seen(), Follower(self.record)
        self.to_ratify = []
        if resume is not None:
            self.follower = Follower(self.record, resume[0])
            data = resume[1]
            self.fold = Fold.restore(data["fold"])
            self.answered = Seen.from_bytes(data["answered"])
            self.to_ratify = list(data["to_ratify"])
            self.poison.update(data.get("poison", {}))
        self.scheduler.state = self.scheduler.program.call(self.scheduler.entry, "new_scheduler")
        for row in self.follower.new_rows():
            self.fold.apply(row)
            if row.kind == ANSWERED:
                self.answered.add(row.key)
            elif approved(row):
                self.to_ratify.append(row.key)
        for s in list(self.fold.schedules.values()):
            self._hold(s)

    def snapshot(self) -> dict[str, Any]:
        """The locus's fold as plain data (a checkpoint's part)."""
        return {
            "fold": self.fold.snapshot(),
            "answered": self.answered.to_bytes(),
            "to_ratify": list(self.to_ratify),
            "poison": {**self.fold.poison, **self.poison},  # found, not yet quarantined
        }

    def _hold(self, s: ScheduleState) -> None:
        overlap = self.host.overlaps(s.terms.definition)
        try:
            self.scheduler.hold(s.terms, overlap, s.floor, s.paused, s.last_task)
        except Exception as error:  # terms the Scheduler cannot hold: never ticked
            self.poison[s.declared_id] = (kinds.SCHEDULE_DECLARED, one_line(error))
            self.scheduler.pause(s.terms.id)  # what it held before, if anything: due no more

    def take_poison(self) -> dict[str, tuple[str, str]]:
        """The rows found poison since the last call: row id -> (kind, why)."""
        found = {**self.fold.poison, **self.poison}
        self.fold.poison.clear()
        self.poison.clear()
        return found

    def catch_up(self) -> None:
        """Read to the record's tip (before a checkpoint)."""
        self.read()

    @property
    def cursor(self) -> int:
        """The seq read to (the checkpointer's question)."""
        return self.follower.seq

    def read(self) -> None:
        """Take in the rows appended since the last read."""
        for row in self.follower.new_rows():
            try:
                self._take(row)
            except Exception as error:  # input: the locus goes on without it
                self.poison[row.id] = (row.kind, one_line(error))

    def _take(self, row: Row) -> None:
        changed = self.fold.apply(row)
        if row.kind == ANSWERED:
            self.answered.add(row.key)
        elif approved(row):
            self.to_ratify.append(row.key)
        elif changed is None:
            return
        elif row.kind == kinds.SCHEDULE_DECLARED:
            self._hold(self.fold.schedules[changed])
        elif row.kind == kinds.SCHEDULE_PAUSED:
            self.scheduler.pause(changed)
        elif row.kind == kinds.SCHEDULE_RESUMED:
            self.scheduler.resume(changed, row.at)

    # ---- ticking -------------------------------------------------------------------

    def tick(self, now: int | None = None) -> int:
        """One tick on the wall clock (or at `now`); how many schedules occurred."""
        now = self.clock() if now is None else now
        self.read()
        self.admitted = 0
        handled = self.scheduler.tick(self.host, now)
        rows = self.host.take_rows()
        if rows:
            self.record.append_many(rows)
        self.ratify_decided()
        if self.admitted:
            self.engine.pump()
        self.read()
        return handled

    def _admit(self, schedule: str, at: int) -> str:
        terms = self.fold.schedules[schedule].terms
        inputs = json.loads(terms.args)
        ask = ask_id(schedule, at)
        result = self.engine.admit_from(self.catalog, terms.definition, ask, terms.convener, inputs)
        if result.refused:
            body = {"occurrence": at, "at": stamp(at), "ask": ask, "reason": result.refused}
            self.host.rows.append((kinds.SCHEDULE_FAILED, schedule, body))
            return f"refused: {result.refused}"
        self.admitted += 1
        return result.task

    def ratify_decided(self) -> int:
        """Admit a practice-ratify execution for each approval read; how many were new."""
        from hale_runtime.schedules.ratify import CONVENER, DEFINITION, ask_of

        todo, self.to_ratify = self.to_ratify, []
        new, refused = 0, []
        for key in dict.fromkeys(todo):
            result = self.engine.admit_from(self.catalog, DEFINITION, ask_of(key), CONVENER)
            if result.refused:
                refused.append((key, result.refused))
            elif result.new:
                new += 1
        self._refuse_ratifications(refused)
        self.admitted += new
        return new

    def _refuse_ratifications(self, refused: list[tuple[str, str]]) -> None:
        """A decision the engine would not admit is said as a row, once: the
        Board sees why its practice was not ratified."""
        said = {r.key for r in self.record.rows(kind=kinds.PRACTICE_REFUSED)}
        rows = [
            (kinds.PRACTICE_REFUSED, key, {"definition": "practice-ratify", "reason": why})
            for key, why in refused
            if key not in said
        ]
        if rows:
            self.record.append_many(rows)

    def _is_open(self, task: str) -> bool:
        return self.engine.settled(task) is None

    # ---- requests -------------------------------------------------------------------

    def on_schedule_requested(self, message: Any) -> bool:
        """The ScheduleRequested subscription: answer the request once; whether it did."""
        self.read()
        request = str(message.body.get("key", ""))
        if not request or request in self.answered:
            return False
        body = message.body.get("body") or {}
        self.answer(request, body, str(message.body.get("who", "")))
        return True

    def answer(self, request: str, body: dict[str, Any], who: str) -> None:
        """Decide the request and write the declaration (or refusal) with its answer."""
        terms = Terms.from_body(body)
        why = self.scheduler.may_ask(self.host, who, terms.convener)
        answer: dict[str, Any] = {"schedule": terms.id, "declared": False, "why": why}
        rows = []
        decision = None
        if not why:
            source = {"request": request, "by": who}
            decision = decide(self.scheduler, self.host, self.fold, terms, self.clock(), source)
            rows = decision.rows
            answer.update(declared=decision.declared, why=decision.why)
            answer["unchanged"] = decision.unchanged
        self.record.append_many([*rows, (ANSWERED, request, answer)])
        if decision and decision.declared and not decision.unchanged:
            put_rhythm(self.memory, terms)
        self.read()
