"""Embedded nerves: a table in the SQLite memory file, polled by id.

Publishing inserts a row (`nerves`: id, subject, JSON body) in a `BEGIN
IMMEDIATE` transaction. SQLite has one writer at a time, so ids become
visible in the order they were given, and a subscription can keep a single
cursor: the highest id it has read. It starts at the newest id when it is
made (it hears what is published after), and `poll` reads the rows past its
cursor, every 20 ms until something matching its prefix arrives or the
timeout passes. No server, no socket: any process that can open the file
can publish and subscribe. Rows are kept; nothing here deletes them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hale_runtime.memory.sqlite import connect, write_transaction
from hale_runtime.memory.types import MemoryFailed
from hale_runtime.nerves.message import Message, NervesFailed, check_subject

POLL_INTERVAL_S = 0.02
BATCH = 500
NOW = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"


class SqliteNerves:
    """Nerves in a SQLite file; one instance per thread."""

    def __init__(self, path: Path):
        self.path = Path(path).absolute()
        self.dsn = f"sqlite://{self.path}"
        try:
            self._db = connect(self.path)
        except MemoryFailed as error:
            raise NervesFailed(str(error)) from error

    def publish(self, subject: str, body: dict[str, Any]) -> int:
        """Send `body` under `subject`; the message's id."""
        check_subject(subject)
        payload = json.dumps(body, sort_keys=True)
        sql = f"INSERT INTO nerves (subject, body, at_ms) VALUES (?, ?, {NOW}) RETURNING id"
        try:
            with write_transaction(self._db, f"nerves {self.dsn}") as run:
                return run(sql, (subject, payload))[0][0]
        except MemoryFailed as error:
            raise NervesFailed(str(error)) from error

    def read(self, after: int) -> list[Message]:
        """Up to BATCH messages with ids above `after`, oldest first."""
        sql = "SELECT id, subject, body FROM nerves WHERE id > ? ORDER BY id LIMIT ?"
        try:
            rows = self._db.execute(sql, (after, BATCH)).fetchall()
        except sqlite3.Error as error:
            raise NervesFailed(f"nerves {self.dsn}: {error}") from error
        return [Message(i, s, json.loads(b)) for i, s, b in rows]

    def newest(self) -> int:
        try:
            return self._db.execute("SELECT coalesce(max(id), 0) FROM nerves").fetchone()[0]
        except sqlite3.Error as error:
            raise NervesFailed(f"nerves {self.dsn}: {error}") from error

    def subscribe(self, subject_prefix: str = "") -> SqliteSubscription:
        """Hear every message published from now on whose subject starts with the prefix."""
        return SqliteSubscription(self, subject_prefix)

    def close(self) -> None:
        self._db.close()


class SqliteSubscription:
    def __init__(self, nerves: SqliteNerves, prefix: str):
        self.nerves, self.prefix = nerves, prefix
        self.cursor = nerves.newest()

    def poll(self, timeout: float = 0.0, until: Callable[[], bool] | None = None) -> list[Message]:
        """What arrived past the cursor, waiting up to `timeout` seconds for
        something, or until `until()` says to stop waiting."""
        deadline = time.monotonic() + timeout
        while True:
            heard = self.nerves.read(self.cursor)
            if heard:
                self.cursor = heard[-1].id
            matching = [m for m in heard if m.subject.startswith(self.prefix)]
            if matching or len(heard) == BATCH:
                return matching
            if time.monotonic() >= deadline or (until is not None and until()):
                return []
            time.sleep(POLL_INTERVAL_S)

    def __iter__(self) -> Iterator[Message]:
        while True:
            yield from self.poll(timeout=1.0)

    def close(self) -> None:
        """Nothing to free: the subscription is only a cursor."""
