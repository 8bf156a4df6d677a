"""What each page of the face shows, read from this clone's record by key and by kind.

One execution is its root's rows, read through the index's key ranges
(`record.under`), folded by the engine's own fold (`State.apply`) and drawn
by `hale dna show`'s renderer, so the tree and its ids read as the verbs
print them. Time travel folds the first N of those rows: the tree as it
stood after row N. The genome line that decided a step is the `leaf` or
`child` call the catalog recorded for the member (the catalog's cached
document, `catalog/load.py`), read from the genome file. Schedules are the
schedules' fold (`hale dna schedule`), with their occurrences taken from
the executions they admitted and the next ones from their terms. The
organism page is `hale dna status`'s and `hale dna body`'s lines, the
budget spent by window from `model.called` rows, readings, concerns and the
rows the record refuses with why.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hale_runtime.engine import ids

DAY_MS = 86_400_000
RECENT = 20  # readings, concerns and quarantined rows shown


@dataclass
class RowView:
    n: int  # 1-based place in the execution's rows
    seq: int
    kind: str
    key: str
    who: str
    at: int
    body: str


@dataclass
class ExecutionView:
    root: str
    rows: list[RowView]
    at: int  # the tree drawn after this many rows
    tree: list[tuple[int, str]]  # (depth, line) as `hale dna show` prints it
    outcome: str
    reasons: list[str]  # a failure's reason, from the root down
    sources: dict[str, str] = field(default_factory=dict)  # step id -> genome line


def execution(
    record: Any, root: str, at: int | None, genome: Genome | None
) -> ExecutionView | None:
    """The page of root execution `root`, its tree folded from its first `at` rows."""
    from hale_runtime.engine.show import fold_root, render

    root = ids.root_of(root)
    rows = record.under(root, "/.")
    whole = fold_root(rows, root)
    if root not in whole.tasks:
        return None
    upto = len(rows) if at is None else max(1, min(at, len(rows)))
    state = whole if upto == len(rows) else fold_root(rows[:upto], root)
    lines = render(state, root).splitlines() if root in state.tasks else []
    tree = [((len(line) - len(line.lstrip(" "))) // 2, line.strip()) for line in lines]
    task = whole.tasks[root]
    shown = [
        RowView(n, r.seq, r.kind, r.key, r.who, r.at, json.dumps(r.body, ensure_ascii=False))
        for n, r in enumerate(rows, 1)
    ]
    view = ExecutionView(root, shown, upto, tree, task.outcome or "open", _reasons(whole, root))
    if genome is not None:
        view.sources = genome.lines_for(whole, root)
    return view


def _reasons(state: Any, root: str) -> list[str]:
    """A failure's reason up to the root: each failed task's reason, then the failed
    attempts' details below it, deepest last."""
    out: list[str] = []
    for task in state.tasks.values():
        if task.outcome == "failed":
            out.append(f"{task.id}: {task.reason or 'failed'}")
    for a in state.attempts.values():
        if a.outcome == "failed":
            out.append(f"{a.id}: {a.detail or 'failed'}")
    return out


class Genome:
    """Where the catalog says each member was declared, read once per genome."""

    def __init__(self, root: Path):
        self.root = root
        self.sites: dict[tuple[str, int, int, str], str] | None = None

    def _load(self) -> dict[tuple[str, int, int, str], str]:
        from hale_runtime.catalog.load import load_document

        sites: dict[tuple[str, int, int, str], str] = {}
        try:
            doc = load_document(self.root)
        except Exception:  # a genome that does not build: no lines to show, the page still reads
            return sites
        for d in doc.get("definitions", []):
            for rev in d.get("revisions", []):
                for step in rev.get("steps", []):
                    for m in step.get("members", []):
                        at = str(m.get("at", ""))
                        if at:
                            place = (str(d.get("id")), int(rev.get("rev", 0)), int(step["index"]))
                            sites[(*place, str(m.get("key")))] = at
        return sites

    def lines_for(self, state: Any, root: str) -> dict[str, str]:
        """step id -> `file:line: text` of the genome call that declared its members."""
        if self.sites is None:
            self.sites = self._load()
        out: dict[str, str] = {}
        for task in state.tasks.values():
            for step in task.steps:
                for key in step.members:
                    site = self.sites.get((task.plan.id, task.plan.rev, step.index, key))
                    if site:
                        out.setdefault(step.id, self._line(site))
        return out

    def _line(self, site: str) -> str:
        path, _, rest = site.partition(":")
        line = rest.split(":")[0]
        try:
            text = (self.root / path).read_text().splitlines()[int(line) - 1].strip()
        except (OSError, ValueError, IndexError):
            text = ""
        return f"{path}:{line}: {text}"


@dataclass
class ScheduleView:
    id: str
    paused: bool
    when: str
    definition: str
    convener: str
    occurred: int
    skipped: int
    missed: int
    last: str
    marks: list[tuple[int, str]]  # (ms, occurred|skipped|missed|next), oldest first


def schedules(record: Any, now_ms: int, ahead: int = 5) -> list[ScheduleView]:
    """`hale dna schedule`'s listing, each with its timeline."""
    from hale_runtime.record import kinds
    from hale_runtime.schedules.listing import fold_of
    from hale_runtime.schedules.terms import parse_ask, when

    fold = fold_of(record)
    marks: dict[str, list[tuple[int, str]]] = {id: [] for id in fold.schedules}
    for r in record.rows(kind=kinds.WORKFLOW_ADMITTED, key_prefix="t"):
        parsed = parse_ask(str(r.body.get("ask", "")))
        if parsed and parsed[0] in marks:
            marks[parsed[0]].append((parsed[1], "occurred"))
    for r in record.rows(kind=(kinds.SCHEDULE_SKIPPED, kinds.SCHEDULE_MISSED)):
        if r.key in marks:
            marks[r.key] += [(at, r.kind.removeprefix("schedule.")) for at in _occurrences(r.body)]
    out = []
    for id, s in fold.schedules.items():
        t = s.terms
        shown = sorted(marks[id])[-30:]
        if not s.paused:
            shown += [(at, "next") for at in next_occurrences(t, now_ms, ahead)]
        out.append(ScheduleView(id, s.paused, when(t), t.definition, t.convener, s.occurred,
                                s.skipped, s.missed, s.last_task or "none", shown))  # fmt: skip
    return out


def _occurrences(body: dict[str, Any]) -> list[int]:
    """The occurrences a `schedule.skipped` (one) or `schedule.missed` (a run) names."""
    if isinstance(body.get("occurrence"), int):
        return [body["occurrence"]]
    first, last, count = body.get("first"), body.get("last"), int(body.get("count") or 0)
    if not isinstance(first, int) or not isinstance(last, int) or count < 1:
        return []
    step = (last - first) // max(count - 1, 1)
    return [first + i * step for i in range(min(count, 30))]


def next_occurrences(terms: Any, now_ms: int, count: int) -> list[int]:
    """The next `count` occurrences after now, by the schedule's own terms."""
    if terms.cron:
        from croniter import croniter

        it = croniter(terms.cron, now_ms / 1000)
        return [int(it.get_next(float) * 1000) for _ in range(count)]
    step = max(terms.every_ms, 1)
    first = now_ms - now_ms % step + step
    return [first + i * step for i in range(count)]


@dataclass
class Waiting:
    cases: list[Any]
    reviews: list[Any]


def waiting(record: Any) -> Waiting:
    """The cases (attempts waiting for a person) and the open Reviews."""
    from hale_runtime.engine.cases import open_cases
    from hale_runtime.schedules import review

    open_reviews = [r for r in review.reviews(record) if r.decision is None]
    return Waiting(open_cases(record), open_reviews)


@dataclass
class OrganismView:
    status: list[str]
    body: str
    budget: list[tuple[str, int]]  # (day, µ$ spent), oldest first
    allowance: int | None
    window: str
    readings: list[Any]
    concerns: list[Any]
    quarantined: list[tuple[Any, str]]


def organism(record: Any, root: Path, now_ms: int, days: int = 7) -> OrganismView:
    from hale_runtime.node.lease import OWNER_ENV
    from hale_runtime.node.status import gather, read_lease, render
    from hale_runtime.record import kinds

    try:
        status = render(gather(root, 1.0))
    except Exception as error:  # a status that cannot be read is said, the page still reads
        status = [f"status: not read ({error})"]
    try:
        lease, where = read_lease(root, record, 1.0, os.environ.get(OWNER_ENV) or None)
        body = f"body: {lease.describe() if lease else 'nobody holds the lease'} ({where})"
    except Exception as error:
        body = f"body: not read ({error})"
    first_day = now_ms - now_ms % DAY_MS - (days - 1) * DAY_MS
    spent = {first_day + i * DAY_MS: 0 for i in range(days)}
    for r in record.rows(kind=kinds.MODEL_CALLED):
        day = r.at - r.at % DAY_MS
        if day in spent:
            spent[day] += int(r.body.get("micros", 0) or 0)
    allowance, window = _policy(root)
    budget = [(time.strftime("%m-%d", time.gmtime(d / 1000)), v) for d, v in spent.items()]
    readings = record.rows(kind=kinds.READING_TAKEN)[-RECENT:]
    concerns = record.rows(kind=kinds.CONCERN_RAISED)[-RECENT:]
    poison = list(record.poison_rows())[-RECENT:]
    return OrganismView(status, body, budget, allowance, window, readings, concerns, poison)


def _policy(root: Path) -> tuple[int | None, str]:
    from hale_runtime.engine.budget import policy_from_genome

    try:
        policy = policy_from_genome(root)
    except Exception:  # no genome that says: the chart shows spending alone
        return None, "none"
    return getattr(policy, "allowance_micros", None), str(getattr(policy, "window", "none"))
