"""Schedule state as a fold over the record's rows, one row at a time.

Each schedule is what its newest `schedule.declared` row says, paused or
live by its newest `schedule.paused`/`schedule.resumed` row, with counts:
occurred (the `workflow.admitted` rows whose ask is `sched:<id>@<time>`,
one per distinct ask), skipped and missed (the rows of those kinds; a
`schedule.missed` row carries how many occurrences it stands for). `floor`
is the latest occurrence nothing at or before which is due: the
declaration's own occurrence, the resume's, or the latest one handled (run,
skipped or missed), so a restart goes on exactly where the record stands.
The fold reads rows in chain order, so it serves the listing on any clone
and the Scheduler's rebuild alike. The occurrences already admitted are kept
as one compact `Seen` of their asks, and a task leaves `task_of` once it
settles, so a schedule that has run a million times costs what one that ran
once does. `snapshot`/`restore` make it a checkpoint's plain data. A
`schedule.declared` whose terms cannot stand (`terms.shape_refusal`, at the
row's own time), or any row whose folding raises, changes nothing and is
kept in `poison` for the organization to quarantine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import astuple, dataclass
from typing import Any

from hale_runtime.errors import one_line
from hale_runtime.record import Row, kinds
from hale_runtime.schedules.terms import Terms, occurrence_at, parse_ask, shape_refusal
from hale_runtime.seen import Seen

KINDS = (
    kinds.SCHEDULE_DECLARED,
    kinds.SCHEDULE_PAUSED,
    kinds.SCHEDULE_RESUMED,
    kinds.SCHEDULE_SKIPPED,
    kinds.SCHEDULE_MISSED,
    kinds.WORKFLOW_ADMITTED,
    kinds.WORKFLOW_SETTLED,
)


@dataclass
class ScheduleState:
    terms: Terms
    declared_seq: int = 0
    floor: int = 0
    paused: bool = False
    occurred: int = 0
    skipped: int = 0
    missed: int = 0
    last_task: str = ""
    last_open: bool = False
    declared_id: str = ""  # the row whose terms hold


class Fold:
    """Every declared schedule by id, in the order first declared."""

    def __init__(self) -> None:
        self.schedules: dict[str, ScheduleState] = {}
        self.task_of: dict[str, str] = {}  # open task -> schedule id, for settlements
        self.occurrences = Seen()  # the asks of every occurrence admitted
        self.seq = 0
        self.poison: dict[str, tuple[str, str]] = {}  # row id -> (kind, why): not folded

    def snapshot(self) -> dict[str, Any]:
        """The fold as plain data (a checkpoint's part)."""
        return {
            "schedules": [(key, *astuple(s)) for key, s in self.schedules.items()],
            "task_of": dict(self.task_of),
            "occurrences": self.occurrences.to_bytes(),
            "seq": self.seq,
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Fold:
        fold = cls()
        for key, terms, *rest in data["schedules"]:
            fold.schedules[key] = ScheduleState(Terms(*terms), *rest)
        fold.task_of = dict(data["task_of"])
        fold.occurrences = Seen.from_bytes(data["occurrences"])
        fold.seq = data["seq"]
        return fold

    def apply_all(self, rows: Iterable[Row]) -> Fold:
        for row in rows:
            self.apply(row)
        return self

    def apply(self, row: Row) -> str | None:
        """Fold one row; the id of the schedule it changed, if any."""
        self.seq = max(self.seq, row.seq)
        handler = _HANDLERS.get(row.kind)
        if handler is None:
            return None
        try:
            return handler(self, row)
        except Exception as error:  # input: changes nothing, quarantined
            self.poison[row.id] = (row.kind, one_line(error))
            return None

    def _declared(self, row: Row) -> str:
        terms = Terms.from_body(row.body)
        why = shape_refusal(terms, row.at)
        if why or terms.id != row.key:
            raise ValueError(why or f"it declares {terms.id!r} under the key {row.key!r}")
        floor = int(row.body.get("occurrence", occurrence_at(terms, row.at)))
        s = self.schedules.get(row.key)
        if s is None:
            s = self.schedules[row.key] = ScheduleState(terms)
        s.terms, s.declared_seq, s.floor = terms, row.seq, max(floor, s.floor)
        s.declared_id = row.id
        return row.key

    def _paused(self, row: Row) -> str | None:
        s = self.schedules.get(row.key)
        if s is not None:
            s.paused = True
        return row.key if s else None

    def _resumed(self, row: Row) -> str | None:
        s = self.schedules.get(row.key)
        if s is None:
            return None
        s.paused = False
        s.floor = max(s.floor, occurrence_at(s.terms, row.at))
        return row.key

    def _skipped(self, row: Row) -> str | None:
        s = self.schedules.get(row.key)
        if s is None:
            return None
        s.skipped += 1
        s.floor = max(s.floor, int(row.body.get("occurrence", 0)))
        return row.key

    def _missed(self, row: Row) -> str | None:
        s = self.schedules.get(row.key)
        if s is None:
            return None
        s.missed += int(row.body.get("count", 1))
        s.floor = max(s.floor, int(row.body.get("last", 0)))
        return row.key

    def _admitted(self, row: Row) -> str | None:
        parsed = parse_ask(str(row.body.get("ask", "")))
        if parsed is None or "parent" in row.body:
            return None
        s = self.schedules.get(parsed[0])
        if s is None or row.body["ask"] in self.occurrences:
            return None
        self.occurrences.add(row.body["ask"])
        s.occurred += 1
        s.last_task, s.last_open = row.key, True
        s.floor = max(s.floor, parsed[1])
        self.task_of[row.key] = parsed[0]
        return parsed[0]

    def _settled(self, row: Row) -> str | None:
        schedule = self.task_of.pop(row.key, None)
        s = self.schedules.get(schedule or "")
        if s is not None and s.last_task == row.key:
            s.last_open = False
        return schedule


_HANDLERS = {
    kinds.SCHEDULE_DECLARED: Fold._declared,
    kinds.SCHEDULE_PAUSED: Fold._paused,
    kinds.SCHEDULE_RESUMED: Fold._resumed,
    kinds.SCHEDULE_SKIPPED: Fold._skipped,
    kinds.SCHEDULE_MISSED: Fold._missed,
    kinds.WORKFLOW_ADMITTED: Fold._admitted,
    kinds.WORKFLOW_SETTLED: Fold._settled,
}
