"""Asking the organization for a schedule, and the rows the verbs write.

`request` writes `schedule.requested` under a request id of its own
(`sr-<12 hex>`), with the terms, the convener as `position:<name>` and who
asked. Beside a running organism (a node ticking over this project's
memory: its heartbeat is fresh) the verb then waits for
`schedule.answered` under that id, reading its own clone's record (the
node syncs into it); from a clone with none it syncs the request to the
remote and leaves it there. The wait is `HALE_DNA_ANSWER_WAIT` seconds (a
minute unless a test shortens it).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hale_runtime.record import Record, RecordError, Row, kinds
from hale_runtime.schedules.listing import fold_of
from hale_runtime.schedules.terms import Terms

ANSWER_WAIT_ENV = "HALE_DNA_ANSWER_WAIT"
ANSWER_WAIT_S = 60.0
POLL_S = 0.2
HEARTBEAT_FRESH_MS = 5_000
T = TypeVar("T")


def answer_wait_s() -> float:
    text = os.environ.get(ANSWER_WAIT_ENV, "").strip()
    return float(text) if text else ANSWER_WAIT_S


def request(record: Record, terms: Terms) -> Row:
    """Write the request; its row (its key is the request id)."""
    body = {**terms.as_body(), "by": record.who}
    return record.append(kinds.SCHEDULE_REQUESTED, f"sr-{secrets.token_hex(6)}", body)


def sync_quietly(record: Record) -> str:
    """Sync with the remote when there is one; "" or why it did not."""
    if record.remote() is None:
        return ""
    try:
        record.sync()
    except RecordError as error:
        return str(error)
    return ""


def wait_answer(
    record: Record,
    request_id: str,
    timeout_s: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> Row | None:
    """The `schedule.answered` row for the request, or None when none came in time."""

    def found() -> Row | None:
        rows = record.rows(kind=kinds.SCHEDULE_ANSWERED, key_prefix=request_id)
        return rows[-1] if rows else None

    return wait_for(record, found, timeout_s, sleep, monotonic)


def wait_for(
    record: Record,
    found: Callable[[], T | None],
    timeout_s: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> T | None:
    """What `found` finds in this clone's record, syncing until it does or time is up."""
    deadline = monotonic() + timeout_s
    while True:
        result = found()
        if result is not None:
            return result
        if monotonic() >= deadline:
            return None
        sync_quietly(record)
        sleep(POLL_S)


def organism_running(root: Path, now_ms: int | None = None) -> bool:
    """Whether a node ticks over this project's memory (a fresh heartbeat)."""
    from hale_runtime.memory import MemoryFailed, memory_dsn, open_memory
    from hale_runtime.memory.dsn import is_postgres, sqlite_path

    dsn = memory_dsn(root)
    if not is_postgres(dsn) and not sqlite_path(dsn).is_file():
        return False
    now_ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    try:
        memory = open_memory(dsn)
        try:
            if memory.schema_version() == 0:
                return False
            beats = [n.props.get("last_tick", 0) for n in memory.nodes("node")]
        finally:
            memory.close()
    except MemoryFailed:
        return False
    return any(now_ms - int(b or 0) <= HEARTBEAT_FRESH_MS for b in beats)


def project_memory(root: Path) -> Any | None:
    """This project's memory when it exists and is migrated, else None."""
    from hale_runtime.memory import MemoryFailed, memory_dsn, open_memory
    from hale_runtime.memory.dsn import is_postgres, sqlite_path

    dsn = memory_dsn(root)
    if not is_postgres(dsn) and not sqlite_path(dsn).is_file():
        return None
    try:
        memory = open_memory(dsn)
        if memory.schema_version() == 0:
            memory.close()
            return None
    except MemoryFailed:
        return None
    return memory


def pause_or_resume(record: Record, id: str, pause: bool) -> tuple[bool, str]:
    """(whether a row was written, the line to print); KeyError when no such schedule.
    The clone syncs first, so it reads the schedule as the remote has it."""
    sync_quietly(record)
    held = fold_of(record).schedules[id]
    if pause and held.paused:
        return False, f"schedule {id} is already paused (nothing written)"
    if not pause and not held.paused:
        return False, f"schedule {id} is already live (nothing written)"
    if pause:
        record.append(kinds.SCHEDULE_PAUSED, id, {"by": record.who})
        line = f"schedule {id} paused (schedule.paused; nothing occurs until it is resumed, and nothing is missed)"
    else:
        record.append(kinds.SCHEDULE_RESUMED, id, {"by": record.who})
        line = f"schedule {id} resumed (schedule.resumed)"
    sync_quietly(record)
    return True, line
