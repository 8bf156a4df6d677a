"""What the verbs share about the organism: whether one runs, its memory, waiting.

A verb that writes a request syncs it and, beside a running organism (a
node ticking over this project's memory: its heartbeat is under
`HEARTBEAT_FRESH_MS` old), waits for the answer in its own clone's record
(the node syncs into it), syncing while it waits: `wait_for`, for
`HALE_DNA_ANSWER_WAIT` seconds (a minute unless a test shortens it). The
verbs alone use these; the parts they call (asks, schedules) only read and
write rows.

Sync never fails silently. A verb that wrote rows syncs them (`unlanded`),
and when the remote cannot take them it says `written here; not yet at
<remote>: <why>` and exits 1 (`exit_unless_landed`), without waiting for
an answer; the rows stay in the clone and go with the next sync, whoever
runs it. A verb that reads syncs first when there is a remote
(`fetch_unless_offline`; `--offline` skips it), so a fresh clone sees what
the organism did; a sync that fails is said on stderr and the verb reads
this clone's record.
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
    """Sync with the remote when there is one; "" or why it did not. It takes the
    clone's sync lock, as the node's processes do: two fetches at once in one
    clone fail on each other's ref locks."""
    from hale_runtime.node.syncing import sync as locked_sync

    if record.remote() is None:
        return ""
    try:
        locked_sync(record)
    except RecordError as error:
        return str(error)
    return ""


def unlanded(record: Record) -> str:
    """Sync what a verb wrote: "" once the remote holds it (or there is none), else the
    line that says it does not."""
    why = sync_quietly(record)
    return (
        f"written here; not yet at {record.remote()}: {why.removeprefix('sync: ')}" if why else ""
    )


def exit_unless_landed(record: Record) -> None:
    """A writing verb's last word: exit 1 saying so when its rows are not at the remote."""
    from hale_runtime.cli.common import fail

    line = unlanded(record)
    if line:
        fail(line)


def fetch_unless_offline(record: Record, offline: bool) -> None:
    """A reading verb's first step: sync with the remote, unless `--offline`."""
    import click

    why = "" if offline else sync_quietly(record)
    if "the record is damaged: " in why:  # reading would find it too: one line, the repair
        from hale_runtime.cli.common import fail

        fail(why[why.index("the record is damaged: ") :])
    if why:
        shown = why.removeprefix("sync: ")
        click.echo(f"hale: not synced with {record.remote()} ({shown}); reading this clone's record",
                   err=True)  # fmt: skip


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


def answer_or_leave(
    root: Path, record: Record, asked: str, find: Callable[[], T | None], silence: str
) -> T | None:
    """A writing verb's wait for the organization's answer to the ask it wrote.

    None, having said `asked`, when no organization runs to answer (or exit 1
    when the rows did not reach the remote); else the answer `find` reads,
    or exit 1 saying `silence` when none came in time."""
    import click

    from hale_runtime.cli.common import fail

    not_landed = unlanded(record)
    if not_landed or not organism_running(root):
        click.echo(asked)
        if not_landed:
            fail(not_landed)
        return None
    answer = wait_for(record, find, answer_wait_s())
    if answer is None:
        fail(silence)
    return answer
