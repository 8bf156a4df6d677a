"""Memory in PostgreSQL, shared by several nodes, through psycopg 3.

One autocommit connection per instance: a single-statement write (take,
renew, release) is one round trip and its own transaction; multi-statement
writes run inside `connection.transaction()`. The clock is the server's
`statement_timestamp()`: one value per statement, taken when the statement
arrives, so a take that waited on a racer's row lock decides on the earlier
time and errs towards refusing. The fence check inside a transaction locks
the claim row `FOR SHARE`, so a takeover waits until the fenced write has
committed.

An append to the ledger is one statement in its own transaction (autocommit:
one round trip, one commit), prepared: the live claim row read in a subquery
and the rows, as VALUES, joined to it, so a stale epoch inserts nothing. It
locks no claim row (8 appenders sharing one row's lock cost a fifth of their
throughput); the end of an epoch locks the ledger table instead, waiting for
the appends in flight (docs/record.md, "Fenced appends").

A claim's take, renew and release (`_write_one`), and a ledger append of up
to PREPARED_ROWS rows, skip psycopg's cursor and go to libpq itself: each
statement prepared once per connection under a name of ours, then one
`exec_prepared` with the parameters as text and the rows loaded by
psycopg's own loaders. That is a quarter of the client's CPU time
per statement, which is what 8 claimers or appenders on 2 cores wait on
(bench/claims.py, bench/ledger.py).
A statement psycopg deallocated (it sends DEALLOCATE ALL after a rollback) is
prepared again and run once more: "does not exist" means nothing ran.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import psycopg
from psycopg import pq
from psycopg.adapt import Transformer

from hale_runtime.memory.dsn import redact
from hale_runtime.memory.schema import PG_MIGRATE_LOCK
from hale_runtime.memory.store import Exec, SqlMemory
from hale_runtime.memory.types import MemoryFailed

NOW_SQL = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
# the ledger's fenced append, its rows in one statement: `c` is the live claim row;
# no row in `c`, nothing inserted. An epoch ends (take_epoch, release_epoch) behind
# LEDGER_LOCK, which waits for every append holding the table and holds back every
# later one until the end commits; an append takes its snapshot once it has the
# table, so it then reads the new claim row.
LEDGER_APPEND = f"""INSERT INTO ledger (id, line, epoch)
    SELECT v.id, v.line, c.token
    FROM (SELECT token FROM claims WHERE key = %s AND token = %s
          AND until_ms > {NOW_SQL}) AS c,
         (VALUES {{rows}}) AS v(id, line, n)
    ORDER BY v.n ON CONFLICT (id) DO NOTHING RETURNING id"""
LEDGER_LOCK = "LOCK TABLE ledger IN SHARE MODE"  # conflicts with an insert's ROW EXCLUSIVE
PREPARED_ROWS = 16  # statements for batches up to this many rows are prepared


@functools.cache
def ledger_append_sql(n: int) -> str:
    """LEDGER_APPEND for `n` rows (one statement text a batch size)."""
    return LEDGER_APPEND.format(rows=", ".join(f"(%s, %s, {i})" for i in range(n)))


CONNECT_TIMEOUT_S = 10
NO_STATEMENT = "26000"  # invalid_sql_statement_name: a prepared statement not there
TUPLES_OK, COMMAND_OK = pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK


@functools.cache
def numbered(sql: str) -> bytes:
    """`sql` with libpq's numbered placeholders ($1, $2, ...) for psycopg's %s."""
    parts = sql.split("%s")
    return (parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], 1))).encode()


def as_text(value: object) -> bytes:
    """A parameter in PostgreSQL's text format (only str without NUL and int reach here)."""
    return value.encode() if isinstance(value, str) else str(value).encode()


def connect(dsn: str, what: str) -> psycopg.Connection:
    """An autocommit connection to `dsn`, failing as MemoryFailed."""
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        raise MemoryFailed(f"cannot reach {what} at {redact(dsn)}: {error}") from error


class PostgresMemory(SqlMemory):
    """Memory in a PostgreSQL database; one instance per thread."""

    dialect = "postgresql"
    now_sql = NOW_SQL
    param = "%s"
    lock_row = " FOR SHARE"
    ledger_lock = LEDGER_LOCK
    table_exists = (
        "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?"
    )

    def __init__(self, dsn: str, clock: Callable[[], float] = time.monotonic):
        super().__init__(dsn, clock)
        self._conn = connect(dsn, "memory")
        self._names: dict[str, bytes] = {}  # statement -> its name, prepared on this connection
        self._made = itertools.count()
        self._loads = Transformer(self._conn)  # psycopg's loaders, for a libpq result's rows

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            cursor = self._conn.execute(sql, params)
            # nfields asks libpq directly; description builds column objects
            return cursor.fetchall() if cursor.pgresult and cursor.pgresult.nfields else []
        except psycopg.Error as error:
            raise MemoryFailed(f"memory {redact(self.dsn)}: {error}") from error

    _read = _run

    def _write_one(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement on its own, prepared and run through libpq (the module's comment)."""
        if not all(type(p) is int or (type(p) is str and "\x00" not in p) for p in params):
            return self._run(sql, params)  # libpq's text would end at a NUL: psycopg refuses it
        values = [as_text(p) for p in params]
        pgconn = self._conn.pgconn
        try:
            for _ in range(2):
                name = self._names.get(sql)
                if name is None:
                    name = self._prepare(sql)
                result = pgconn.exec_prepared(name, values)
                if result.status == TUPLES_OK:
                    self._loads.set_pgresult(result)
                    return self._loads.load_rows(0, result.ntuples, tuple)
                if result.status == COMMAND_OK:
                    return []
                if (
                    result.error_field(pq.DiagnosticField.SQLSTATE) != NO_STATEMENT.encode()
                    or pgconn.transaction_status != pq.TransactionStatus.IDLE
                ):
                    break
                self._names.clear()  # deallocated under us (all, as a rollback does): again
            error = result.get_error_message()
        except psycopg.Error as failed:
            error = str(failed)
        raise MemoryFailed(f"memory {redact(self.dsn)}: {(error.strip() or '?').splitlines()[0]}")

    def _prepare(self, sql: str) -> bytes:
        name = f"hale_{next(self._made)}".encode()  # never a name used before
        done = self._conn.pgconn.prepare(name, numbered(sql))
        if done.status != COMMAND_OK:
            raise MemoryFailed(f"memory {redact(self.dsn)}: {done.get_error_message()}")
        self._names[sql] = name
        return name

    def _transaction(self) -> AbstractContextManager[Exec]:
        return self._in_transaction()

    @contextmanager
    def _in_transaction(self) -> Iterator[Exec]:
        try:
            with self._conn.transaction():
                yield self._run
        except psycopg.Error as error:  # BEGIN or COMMIT failed
            raise MemoryFailed(f"memory {redact(self.dsn)}: {error}") from error

    def ledger_append(self, rows: list[tuple[str, str]], fence: tuple[str, int]) -> None:
        """SqlMemory.ledger_append in one statement (LEDGER_APPEND)."""
        if not rows:
            return
        key, epoch = fence
        params = (key, epoch, *(part for row in rows for part in row))
        if len(rows) <= PREPARED_ROWS:  # one prepared statement a batch size, through libpq
            inserted = self._write_one(ledger_append_sql(len(rows)), params)
        else:
            inserted = self._run(ledger_append_sql(len(rows)), params)
        if not inserted:  # fenced (nothing written), or every row held already
            self.check_fence(key, epoch)  # a stale epoch never becomes live again

    def _lock_migrations(self, run: Exec) -> None:
        run("SELECT pg_advisory_xact_lock(%s)", (PG_MIGRATE_LOCK,))

    def close(self) -> None:
        self._conn.close()
