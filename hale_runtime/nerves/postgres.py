"""Nerves over PostgreSQL LISTEN/NOTIFY on the memory database.

A NOTIFY payload is limited to 8000 bytes, so publishing inserts the body
into the `nerves` table and notifies only its id on the `hale_nerves`
channel, in the same statement (the notification leaves at commit, after
the row is visible). A subscription owns a connection that LISTENs; `poll`
waits for notifications, then reads the bodies of the ids it was told
about, in the order the notifications came. Ids are not read by range
(a sequence's ids can commit out of order), only by notification.
A lost connection raises NervesFailed: a node stops rather than act deaf.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg

from hale_runtime.memory.dsn import redact
from hale_runtime.memory.postgres import connect
from hale_runtime.memory.types import MemoryFailed
from hale_runtime.nerves.message import Message, NervesFailed, check_subject

CHANNEL = "hale_nerves"
UNTIL_SLICE_S = 0.05  # how often a wait that may end early asks whether it should
NOW = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
PUBLISH = f"""WITH m AS (
        INSERT INTO nerves (subject, body, at_ms) VALUES (%s, %s, {NOW}) RETURNING id)
    SELECT id, pg_notify('{CHANNEL}', id::text) FROM m"""
BODIES = """SELECT id, subject, body FROM nerves
    WHERE id = ANY(%s) AND left(subject, %s) = %s"""


def _connect(dsn: str) -> psycopg.Connection:
    try:
        return connect(dsn, "nerves")
    except MemoryFailed as error:
        raise NervesFailed(str(error)) from error


class PostgresNerves:
    """Nerves on a PostgreSQL database; one instance per thread."""

    def __init__(self, dsn: str):
        self.dsn = dsn
        self._conn = _connect(dsn)

    def publish(self, subject: str, body: dict[str, Any]) -> int:
        """Send `body` under `subject`; the message's id."""
        check_subject(subject)
        payload = json.dumps(body, sort_keys=True)
        try:
            return self._conn.execute(PUBLISH, (subject, payload)).fetchone()[0]
        except psycopg.Error as error:
            raise NervesFailed(f"nerves {redact(self.dsn)}: {error}") from error

    def subscribe(self, subject_prefix: str = "") -> PostgresSubscription:
        """Hear every message published from now on whose subject starts with the prefix."""
        return PostgresSubscription(self.dsn, subject_prefix)

    def close(self) -> None:
        self._conn.close()


class PostgresSubscription:
    def __init__(self, dsn: str, prefix: str):
        self.dsn, self.prefix = dsn, prefix
        self._conn = _connect(dsn)
        self._guard(lambda: self._conn.execute(f"LISTEN {CHANNEL}"))

    def _guard(self, act: Any) -> Any:
        try:
            return act()
        except psycopg.Error as error:
            raise NervesFailed(f"nerves {redact(self.dsn)}: {error}") from error

    def _notified(self, timeout: float, until: Callable[[], bool] | None) -> list[int]:
        # a wait asked to end early waits in slices, asking `until` between them
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            wait = max(0.0, left if until is None else min(left, UNTIL_SLICE_S))
            first = list(self._conn.notifies(timeout=wait, stop_after=1))
            if first or left <= wait or (until is not None and until()):
                break
        rest = list(self._conn.notifies(timeout=0)) if first else []
        return [int(n.payload) for n in first + rest if n.channel == CHANNEL]

    def poll(self, timeout: float = 0.0, until: Callable[[], bool] | None = None) -> list[Message]:
        """What was published since the last poll, waiting up to `timeout`
        seconds for it, or until `until()` says to stop waiting."""
        ids = self._guard(lambda: self._notified(timeout, until))
        if not ids:
            return []
        params = (ids, len(self.prefix), self.prefix)
        rows = self._guard(lambda: self._conn.execute(BODIES, params).fetchall())
        order = {id: n for n, id in enumerate(ids)}
        rows.sort(key=lambda row: order[row[0]])
        return [Message(i, s, b if isinstance(b, dict) else json.loads(b)) for i, s, b in rows]

    def __iter__(self) -> Iterator[Message]:
        while True:
            yield from self.poll(timeout=1.0)

    def close(self) -> None:
        self._conn.close()
