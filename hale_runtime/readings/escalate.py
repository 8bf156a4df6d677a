"""The `raise` step of concern-escalate: a concern put where a person answers it.

The organization admits `concern-escalate` under the ask `concern:<row id>`
(concerns.py). Its one step is the organism's; this is what it does: read
the task's ask, the `concern.raised` row it names and the readings that
raised it, and hand the attempt on a queue as a case (`board.case`), its
objective naming the target and each reading (kind, source, detail). The
queue is the Board's: the baseline genome names no other answerer for a
concern. The case is then an open case like any other: `hale dna review`
lists it, and `hale dna effect resolve attempt:<id>` answers it (the
concern dealt with, or not); a person who wants work done on it asks a task
(`hale dna task create`) naming the concern. After a crash, an attempt
whose case is in the record acted; one without had not.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.performers import ACTED, NOT_ACTED, Pending, Reconciled, Work
from hale_runtime.record import kinds

ASK = "concern:"
STEP = "/raise/"
QUEUE = "board"
SHOWN = 240  # characters of a reading's detail the case shows


def concern_of(record: Any, work: Work) -> Any | None:
    """The `concern.raised` row the attempt's task answers (None: not a concern's)."""
    if STEP not in work.attempt:
        return None
    admitted = record.rows(kind=kinds.WORKFLOW_ADMITTED, key=work.task)
    ask = str(admitted[0].body.get("ask", "")) if admitted else ""
    if not ask.startswith(ASK):
        return None
    return record.get(ask.removeprefix(ASK))


def escalate(record: Any, concern: Any, work: Work) -> Pending:
    """The case on the Board's queue, with the readings that raised the concern."""
    ids = [str(i) for i in concern.body.get("readings", [])]
    readings = [r for r in (record.get(i) for i in ids) if r is not None]
    shown = "; ".join(_reading(r) for r in readings) or "the readings are not in this record"
    objective = (
        f"concern at {concern.key}: {len(ids)} readings within "
        f"{concern.body.get('window_s', '?')}s — {shown}"
    )
    case = {"queue": QUEUE, "objective": objective, "requires": ["person"]}
    return Pending([(kinds.BOARD_CASE, case)])


def _reading(row: Any) -> str:
    detail = str(row.body.get("detail", "")).strip()
    if len(detail) > SHOWN:
        detail = detail[:SHOWN] + "…"
    source = row.body.get("source", "")
    return f"{row.body.get('kind', '?')} ({source}) {row.id}" + (f": {detail}" if detail else "")


def reconciled(work: Work) -> Reconciled:
    """After a crash: a case in the record is the step done (a person answers it)."""
    if any(kind == kinds.BOARD_CASE for kind, _ in work.facts):
        return Reconciled(ACTED)
    return Reconciled(NOT_ACTED)
