"""Asking the organization for a schedule, and the rows the verbs write.

`request` writes `schedule.requested` under a request id of its own
(`sr-<12 hex>`), with the terms, the convener as `position:<name>` and who
asked; `answer` is the organization's `schedule.answered` under that id,
once this clone holds it (the verb waits for it: cli/organism.py).
`pause_or_resume` writes the row in your name, unless the schedule already
stands so.
"""

from __future__ import annotations

import secrets

from hale_runtime.errors import Refused
from hale_runtime.record import Record, Row, kinds
from hale_runtime.schedules.listing import fold_of
from hale_runtime.schedules.terms import Terms


def request(record: Record, terms: Terms) -> Row:
    """Write the request; its row (its key is the request id). RowRefused when
    its writer is neither the Board's holder nor the convener's, by key."""
    body = {**terms.as_body(), "by": record.who}
    return record.append(kinds.SCHEDULE_REQUESTED, f"sr-{secrets.token_hex(6)}", body)


def answer(record: Record, request_id: str) -> Row | None:
    """The `schedule.answered` row for the request, if this clone holds it."""
    rows = record.rows(kind=kinds.SCHEDULE_ANSWERED, key=request_id)
    return rows[-1] if rows else None


def pause_or_resume(record: Record, id: str, pause: bool) -> tuple[bool, str]:
    """(whether a row was written, the line to print); KeyError when no such
    schedule, Refused when this writer may not (nothing written)."""
    held = fold_of(record).schedules[id]
    if pause and held.paused:
        return False, f"schedule {id} is already paused (nothing written)"
    if not pause and not held.paused:
        return False, f"schedule {id} is already live (nothing written)"
    kind = kinds.SCHEDULE_PAUSED if pause else kinds.SCHEDULE_RESUMED
    why = record.judge(kind, id, {"by": record.who})
    if why:  # only the Board or the convener's holder, proven by key (record/trust.py)
        raise Refused(f"schedule {'pause' if pause else 'resume'} {id}: {why}")
    if pause:
        record.append(kinds.SCHEDULE_PAUSED, id, {"by": record.who})
        line = f"schedule {id} paused (schedule.paused; nothing occurs until it is resumed, and nothing is missed)"
    else:
        record.append(kinds.SCHEDULE_RESUMED, id, {"by": record.who})
        line = f"schedule {id} resumed (schedule.resumed)"
    return True, line
