"""The open cases: attempts waiting for a person, as `hale dna review` lists them.

An attempt waits for a person when its performer handed it on the Board's
queue (`board.case`) or, after a crash, could not say whether it acted
(`effect.unresolved`), until its `attempt.outcome`. The record keeps those
keys open as their rows go in (`Record.open_keys("case")`, kinds.OPEN_UNTIL),
so the cases answered long ago are never read; each root left is folded
alone (engine/show.py's `read_root`), so a case is listed exactly when the
engine's own fold says the attempt waits for a person. What that costs
grows with the open cases, not with the record's age.

For whom: the person the Leader named for an ask-person (its
`intent.offered` row's `whom`), else the Board, whose queue it is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from hale_runtime.engine import ids
from hale_runtime.record import kinds

BOARD = "the Board"


@dataclass(frozen=True)
class Case:
    attempt: str
    task: str  # the root
    definition: str  # id@rev
    objective: str
    since: int  # ms: when it was handed to a person
    whom: str
    why: str  # how it came to wait for a person


def open_cases(record: Any) -> list[Case]:
    """Every attempt waiting for a person, in the order it began to wait."""
    cases: list[Case] = []
    roots: dict[str, Any] = {}
    for attempt, _, at in record.open_keys("case"):
        root = ids.root_of(attempt)
        if root not in roots:
            roots[root] = _read_root(record, root)
        case = _case(record, roots[root], root, attempt, at)
        if case is not None:
            cases.append(case)
    return sorted(cases, key=lambda c: (c.since, c.attempt))


def _read_root(record: Any, root: str) -> Any:
    from hale_runtime.engine.show import read_root

    return read_root(record, root)


def _case(record: Any, state: Any, root: str, attempt: str, at: int) -> Case | None:
    a = state.attempts.get(attempt)
    task = state.tasks.get(root)
    if a is None or task is None or not a.waits_for_person:
        return None
    if a.unresolved:
        why = f"the {a.performer} could not say whether it acted"
    else:
        why = "a case on the Board's queue"
    definition = task.plan.name
    objective = str((a.case or {}).get("objective") or a.unit.leaf.objective)  # the case's own
    return Case(attempt, root, definition, objective, at, _whom(record, task), why)


def _whom(record: Any, task: Any) -> str:
    if not task.ask:
        return BOARD
    offered = record.rows(kind=kinds.INTENT_OFFERED, key=task.ask)
    whom = offered[0].body.get("whom") if offered else ""
    return str(whom) if whom else BOARD


ANSWER = "answer one with `hale dna effect resolve attempt:<id> --outcome succeeded|failed [--note TEXT]`"


def case_lines(cases: list[Case]) -> list[str]:
    """`hale dna review`'s cases: each attempt, its objective, since when, for whom."""
    if not cases:
        return ["cases: none open"]
    lines = [f"cases: {len(cases)} open, waiting for a person"]
    for c in cases:
        stamp = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(c.since / 1000))
        lines.append(f"  attempt:{c.attempt} — {c.objective}")
        lines.append(f"      {c.task} {c.definition}, since {stamp}, for {c.whom}: {c.why}")
    lines.append(ANSWER)
    return lines
