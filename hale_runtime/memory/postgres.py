"""Memory in PostgreSQL, shared by several nodes, through psycopg 3.

One autocommit connection per instance: a single-statement write (take,
renew, release) is one round trip and its own transaction; multi-statement
writes run inside `connection.transaction()`. The clock is the server's
`statement_timestamp()`: one value per statement, taken when the statement
arrives, so a take that waited on a racer's row lock decides on the earlier
time and errs towards refusing. The fence check inside a transaction locks
the claim row `FOR SHARE`, so a takeover waits until the fenced write has
committed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import psycopg

from hale_runtime.memory.dsn import redact
from hale_runtime.memory.schema import PG_MIGRATE_LOCK
from hale_runtime.memory.store import Exec, SqlMemory
from hale_runtime.memory.types import MemoryFailed

CONNECT_TIMEOUT_S = 10


def connect(dsn: str, what: str) -> psycopg.Connection:
    """An autocommit connection to `dsn`, failing as MemoryFailed."""
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        raise MemoryFailed(f"cannot reach {what} at {redact(dsn)}: {error}") from error


class PostgresMemory(SqlMemory):
    """Memory in a PostgreSQL database; one instance per thread."""

    dialect = "postgresql"
    now_sql = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
    param = "%s"
    lock_row = " FOR SHARE"
    table_exists = (
        "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?"
    )

    def __init__(self, dsn: str, clock: Callable[[], float] = time.monotonic):
        super().__init__(dsn, clock)
        self._conn = connect(dsn, "memory")

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            cursor = self._conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []
        except psycopg.Error as error:
            raise MemoryFailed(f"memory {redact(self.dsn)}: {error}") from error

    _read = _run
    _write_one = _run

    def _transaction(self) -> AbstractContextManager[Exec]:
        return self._in_transaction()

    @contextmanager
    def _in_transaction(self) -> Iterator[Exec]:
        try:
            with self._conn.transaction():
                yield self._run
        except psycopg.Error as error:  # BEGIN or COMMIT failed
            raise MemoryFailed(f"memory {redact(self.dsn)}: {error}") from error

    def _lock_migrations(self, run: Exec) -> None:
        run("SELECT pg_advisory_xact_lock(%s)", (PG_MIGRATE_LOCK,))

    def close(self) -> None:
        self._conn.close()
