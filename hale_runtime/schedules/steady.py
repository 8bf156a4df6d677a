"""The simulation's rhythm: when the organism repeats itself, the rest of the
window is counted, not run.

Years of a one-minute schedule are millions of executions; running each
through the engine and the record costs milliseconds. So `Rhythm` watches
each tick's rows (`observe`) and holds, per schedule, its last occurrence,
how many it has seen and how each settled. The rhythm is steady when,
since the last tick that broke it, at least `STEADY` ticks each admitted
only scheduled occurrences, every one settled within its own tick with its
schedule's one outcome, each tick wrote the same rows per occurrence
(kinds and model spend), each schedule's occurrences followed its cadence
one after the other, and every live schedule occurred at least twice.
A tick breaks it when it writes anything else: a skip, a miss, a failure,
a declaration, a row of no occurrence, an execution left open.

`project` then lists what the remaining window would hold, schedule by
schedule along each cadence, with the outcome each settled with, tasks
numbered on in time order, as the engine numbers them, provided nothing
could change the rhythm: no execution held open (`--open-for`), no down
period still to come, and a budget that every window of the projection
keeps (its spend so far plus the steady spend per occurrence times the
occurrences the window holds, with one call's room to spare). Otherwise
the simulation goes on tick by tick.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hale_runtime.engine.ids import root_of
from hale_runtime.schedules.terms import Terms, parse_ask

STEADY = 5  # ticks in a row that must repeat before the rest is counted
MINUTE, DAY = 60_000, 86_400_000
_CLOCK = [f"{m // 60:02d}:{m % 60:02d}Z" for m in range(1440)]  # a day's minutes, named
BREAKS = {"schedule.skipped", "schedule.missed", "schedule.failed", "schedule.refused"}


@dataclass
class _Seen:
    last: int  # ms of its last occurrence
    outcome: str
    count: int = 1


@dataclass
class Rhythm:
    ticks: int = 0
    seen: dict[str, _Seen] = field(default_factory=dict)
    shape: frozenset | None = None  # the rows one occurrence writes: (kind, n) and spend
    spend: int = 0  # µ$ one occurrence spends
    last_task: int = 0

    def reset(self) -> None:
        self.ticks, self.seen, self.shape, self.spend = 0, {}, None, 0

    def observe(self, rows: list[Any], cadence: dict[str, Terms]) -> None:
        """Take one tick's rows; `cadence` has the live schedules' terms."""
        admitted: dict[str, tuple[str, int]] = {}
        for r in rows:
            if r.kind == "workflow.admitted":
                parsed = parse_ask(str(r.body.get("ask", "")))
                if parsed is None:
                    return self.reset()
                admitted[r.key] = parsed
                self.last_task = max(self.last_task, _number(r.key))
        if not admitted:
            return self.reset()
        settled: dict[str, str] = {}
        kinds: Counter = Counter()
        spend = 0
        for r in rows:
            if r.kind in BREAKS or r.kind.startswith("schedule.") or root_of(r.key) not in admitted:
                return self.reset()
            kinds[r.kind] += 1
            if r.kind == "workflow.settled":
                settled[r.key] = str(r.body.get("outcome", ""))
            if r.kind == "model.called":
                spend += int(r.body.get("micros", 0))
        n = len(admitted)
        if set(settled) != set(admitted) or spend % n or any(c % n for c in kinds.values()):
            return self.reset()
        shape = frozenset((k, c // n) for k, c in kinds.items())
        if self.shape is not None and (shape != self.shape or spend // n != self.spend):
            self.reset()
        self.shape, self.spend = shape, spend // n
        for task, (sid, at) in sorted(admitted.items(), key=lambda t: t[1][1]):
            terms = cadence.get(sid)
            if terms is None:
                return self.reset()
            was = self.seen.get(sid)
            if was is None:
                self.seen[sid] = _Seen(at, settled[task])
                continue
            if next_of(terms, was.last) != at or was.outcome != settled[task]:
                self.reset()
                self.seen[sid] = _Seen(at, settled[task])
                continue
            was.last, was.count = at, was.count + 1
        self.ticks += 1

    def steady(self, cadence: dict[str, Terms]) -> bool:
        return (
            self.ticks >= STEADY
            and set(self.seen) == set(cadence)
            and all(s.count >= 2 for s in self.seen.values())
        )

    def project(self, cadence: dict[str, Terms], end: int, budget: Any) -> list[tuple[int, str, str, str]]:  # fmt: skip
        """(at, schedule, task, outcome) of every occurrence left before `end`,
        in time order; [] when the budget might not keep them."""
        found: list[tuple[int, str, str]] = []
        for sid, s in self.seen.items():
            terms, at = cadence[sid], next_of(cadence[sid], s.last)
            if terms.cron:
                while at < end:
                    found.append((at, sid, s.outcome))
                    at = next_of(terms, at)
            else:
                found += [(t, sid, s.outcome) for t in range(at, end, terms.every_ms)]
        if len(self.seen) > 1:
            order = {sid: i for i, sid in enumerate(self.seen)}
            found.sort(key=lambda f: (f[0], order[f[1]]))
        if not self._kept(found, budget):
            return []
        n = self.last_task
        return [(at, sid, f"t{n + i}", outcome) for i, (at, sid, outcome) in enumerate(found, 1)]

    def _kept(self, found: list[tuple[int, str, str]], budget: Any) -> bool:
        allowance = budget.policy.allowance_micros if budget is not None else 0
        if not self.spend or not allowance:
            return True
        per: Counter = Counter()
        day, label = None, ""
        for at, _, _ in found:  # a window is whole days: its label found once a day
            if at // DAY != day:
                day, label = at // DAY, budget.window_of(at)
            per[label] += 1
        return all(budget.spent(w)[0] + self.spend * (c + 1) <= allowance for w, c in per.items())


def stamps(ats: list[int]) -> list[str]:
    """`terms.stamp` of each time, the date spelled once a day (ten years of
    minutes are millions of names; `stamp` alone spends ~3 µs on each)."""
    from hale_runtime.schedules.terms import stamp

    out, day, date = [], None, ""
    for at in ats:
        if at % MINUTE:
            out.append(stamp(at))
            continue
        if at // DAY != day:
            day = at // DAY
            date = stamp(day * DAY)[:11]  # `2026-01-01T`
        out.append(date + _CLOCK[at % DAY // MINUTE])
    return out


def next_of(terms: Terms, at: int) -> int:
    """The occurrence after `at` on the schedule's cadence."""
    if not terms.cron:
        return at + terms.every_ms
    from hale_runtime.schedules import cron

    return _compiled(terms.cron).next_after(at) if cron else at


_CRONS: dict[str, Any] = {}


def _compiled(expr: str) -> Any:
    from hale_runtime.schedules import cron

    if expr not in _CRONS:
        _CRONS[expr] = cron.compile_cron(expr)
    return _CRONS[expr]


def _number(task: str) -> int:
    digits = task[1:] if task.startswith("t") else ""
    return int(digits) if digits.isdigit() else 0
