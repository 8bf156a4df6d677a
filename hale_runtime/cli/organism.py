"""What the verbs share about the organism: whether one runs, its memory, waiting.

A verb that writes a request syncs it and, beside a running organism (a
node ticking over this project's memory: its heartbeat is under
`HEARTBEAT_FRESH_MS` old), waits for the answer in its own clone's record
(the node syncs into it), syncing while it waits: `wait_for`, for
`HALE_DNA_ANSWER_WAIT` seconds (a minute unless a test shortens it). The
verbs alone use these; the parts they call (asks, schedules) only read and
write rows.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hale_runtime.record import Record, RecordError

ANSWER_WAIT_ENV = "HALE_DNA_ANSWER_WAIT"
ANSWER_WAIT_S = 60.0
POLL_S = 0.2
HEARTBEAT_FRESH_MS = 5_000
T = TypeVar("T")


def answer_wait_s() -> float:
    """How long a verb waits for the organization's answer, in seconds."""
    text = os.environ.get(ANSWER_WAIT_ENV, "").strip()
    return float(text) if text else ANSWER_WAIT_S


def sync_quietly(record: Record) -> str:
    """Sync with the remote when there is one; "" or why it did not."""
    if record.remote() is None:
        return ""
    try:
        record.sync()
    except RecordError as error:
        return str(error)
    return ""


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


def organism_running(root: Path, now_ms: int | None = None) -> bool:
    """Whether a node ticks over this project's memory (a fresh heartbeat)."""
    from hale_runtime.memory import MemoryFailed

    memory = project_memory(root)
    if memory is None:
        return False
    now_ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    try:
        beats = [n.props.get("last_tick", 0) for n in memory.nodes("node")]
    except MemoryFailed:
        return False
    finally:
        memory.close()
    return any(now_ms - int(b or 0) <= HEARTBEAT_FRESH_MS for b in beats)
