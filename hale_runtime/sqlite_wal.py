"""Open a SQLite file in WAL mode, however many processes open it at once.

Switching a file to WAL takes an exclusive lock, and SQLite answers "database
is locked" at once, without its busy handler, when another connection holds
the file meanwhile: several nodes starting on a fresh memory do exactly that.
WAL is a property of the file, so the mode is read first (a shared lock, which
does wait) and set only while it is not WAL yet, retried with a short backoff
until the busy timeout has passed.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path


def connect_wal(
    path: Path, timeout_s: float, *, check_same_thread: bool = True
) -> sqlite3.Connection:
    """An autocommit connection to `path` in WAL mode, waiting `timeout_s` for locks."""
    db = sqlite3.connect(
        path, timeout=timeout_s, isolation_level=None, check_same_thread=check_same_thread
    )
    db.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
    deadline = time.monotonic() + timeout_s
    pause = 0.002
    while db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            db.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                db.close()
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    return db
