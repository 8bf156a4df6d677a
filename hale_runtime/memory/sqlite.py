"""Memory embedded in one SQLite file: no server, one writer at a time.

The connection runs in autocommit mode and every write is an explicit
`BEGIN IMMEDIATE … COMMIT`, so a writer takes the database's write lock
before reading anything it decides on, and a busy database is waited for
(`busy_timeout`) rather than failed. WAL lets readers run beside the writer.
The clock is SQLite's own `julianday('now')` (millisecond resolution, one
value per statement), read from the operating system by SQLite, not Python.

Durable (the default): WAL with `synchronous=FULL`, so every commit fsyncs
the WAL before it returns (a claim's token never falls back after a power
loss); SQLite's automatic checkpoint (every 1,000 WAL pages) copies the WAL
into the database and fsyncs it. HALE_DNA_DURABILITY=relaxed runs NORMAL:
commits survive a crash of the process but may be lost with the machine.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from hale_runtime import durability
from hale_runtime.memory.store import Exec, SqlMemory
from hale_runtime.memory.types import MemoryFailed
from hale_runtime.sqlite_wal import connect_wal

BUSY_TIMEOUT_MS = 30_000


def connect(path: Path) -> sqlite3.Connection:
    """An autocommit connection to `path` in WAL mode, creating the file's folder."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = connect_wal(path, BUSY_TIMEOUT_MS / 1000)
        db.execute("PRAGMA secure_delete = ON")  # an erased protected body is zeroed, not left
        db.execute(f"PRAGMA synchronous = {'FULL' if durability.durable() else 'NORMAL'}")
    except (sqlite3.Error, OSError, durability.UnknownDurability) as error:
        raise MemoryFailed(f"cannot open memory at {path}: {error}") from error
    return db


@contextmanager
def write_transaction(db: sqlite3.Connection, where: str) -> Iterator[Exec]:
    """`BEGIN IMMEDIATE`, yield a statement runner, commit (roll back on any error)."""

    def run(sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise MemoryFailed(f"{where}: {error}") from error

    run("BEGIN IMMEDIATE")
    try:
        yield run
        run("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class SqliteMemory(SqlMemory):
    """Memory in a SQLite file; one instance per thread."""

    dialect = "sqlite"
    now_sql = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
    table_exists = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic):
        self.path = Path(path).absolute()
        super().__init__(f"sqlite://{self.path}", clock)
        self._db = connect(self.path)

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise MemoryFailed(f"memory {self.dsn}: {error}") from error

    def _erased(self) -> None:
        """Copy the WAL into the database and truncate it: the frames that held an
        erased body are gone from disk (secure_delete zeroes it in the database)."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as error:
            raise MemoryFailed(f"memory {self.dsn}: {error}") from error

    def _write_one(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._transaction() as run:
            return run(sql, params)

    def _transaction(self) -> AbstractContextManager[Exec]:
        return write_transaction(self._db, f"memory {self.dsn}")

    def close(self) -> None:
        self._db.close()
