"""Memory's operations, written once over both SQL dialects.

Claims: one row per key. `take` is a single `INSERT … ON CONFLICT (key) DO
UPDATE … WHERE (expired or same holder) RETURNING`, so of racing nodes one
lands and the rest get no row back; the token rises by one on every grant
and the row is never deleted (release sets `until_ms` to 0), so a token is
never handed out twice. Every time comparison uses the database's clock
(`{now}`, one value per statement). Renew, release and the fence check
match on (key, holder, token) and an unexpired `until_ms`.

Graph: positions, nodes and edges are plain upserts. The projection cursor
moves by compare-and-swap (`UPDATE … WHERE value = expected`, or an insert
when it has never moved), in the same transaction as the ops it carries,
so two nodes racing to project one row apply it once.

Backends supply the clock expression, the placeholder, transactions and
JSON; statements here are written with `?` and `{now}`.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from hale_runtime.memory.schema import MIGRATIONS, VERSION_TABLE, latest
from hale_runtime.memory.types import (
    DropEdge,
    DropVia,
    Edge,
    EraseProtected,
    Fenced,
    Grant,
    GraphOp,
    KeepProtected,
    Node,
    SetHolder,
)

Exec = Callable[[str, tuple], list[tuple]]

TAKE = """INSERT INTO claims (key, holder, token, until_ms, granted_ms)
    SELECT ?, ?, 1, t.now + ?, t.now FROM (SELECT {now} AS now) AS t WHERE true
    ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, token = claims.token + 1,
        until_ms = excluded.until_ms, granted_ms = excluded.granted_ms
    WHERE claims.until_ms <= excluded.granted_ms OR claims.holder = excluded.holder
    RETURNING holder, token, until_ms, granted_ms"""
RENEW = """UPDATE claims SET until_ms = {now} + ?
    WHERE key = ? AND holder = ? AND token = ? AND until_ms > {now}
    RETURNING holder, token, until_ms, {now}"""
RELEASE = """UPDATE claims SET until_ms = 0
    WHERE key = ? AND holder = ? AND token = ? AND until_ms > {now} RETURNING token"""
CLAIM_ROW = "SELECT holder, token, until_ms, {now} FROM claims WHERE key = ?"
SET_HOLDER = """INSERT INTO positions (name, holder) VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder"""
UPSERT_NODE = """INSERT INTO nodes (id, kind, props) VALUES (?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, props = excluded.props"""
UPSERT_EDGE = """INSERT INTO edges (src, kind, dst, via, props) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (src, kind, dst, via) DO UPDATE SET props = excluded.props"""
DROP_EDGE = "DELETE FROM edges WHERE src = ? AND kind = ? AND dst = ?"
DROP_VIA = "DELETE FROM edges WHERE kind = ? AND via = ?"
KEEP_PROTECTED = """INSERT INTO protected (digest, body) VALUES (?, ?)
    ON CONFLICT (digest) DO NOTHING"""
ERASE_PROTECTED = "DELETE FROM protected WHERE digest = ?"
# one statement a row: inserted only while the claim's grant `epoch` is live (an epoch
# ends only after the appends in flight: take_epoch, release_epoch)
LEDGER_APPEND = """INSERT INTO ledger (id, line, epoch)
    SELECT ?, ?, token FROM claims WHERE key = ? AND token = ? AND until_ms > {now}
    ON CONFLICT (id) DO NOTHING RETURNING id"""
CURSOR_FIRST = """INSERT INTO cursors (name, value) VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE cursors.value IS NULL
    RETURNING name"""
CURSOR_MOVE = "UPDATE cursors SET value = ? WHERE name = ? AND value = ? RETURNING name"


def _position(name: str) -> str:
    """Positions are stored by bare name; `position:leader` and `leader` are one."""
    return name.removeprefix("position:")


CHECKPOINT_PUT = (
    "INSERT INTO checkpoints (name, data, written_ms) VALUES (?, ?, {now}) "
    "ON CONFLICT (name) DO NOTHING"
)
CHECKPOINT_TRIM = (
    "DELETE FROM checkpoints WHERE name NOT IN "
    "(SELECT name FROM checkpoints ORDER BY name DESC LIMIT ?)"
)


class SqlMemory(ABC):
    """The memory store; a backend subclass binds it to one database connection."""

    dialect = ""
    now_sql = ""  # SQL expression: the database's clock, ms since the epoch
    param = "?"
    lock_row = ""  # suffix locking a claim row against takeover until commit
    ledger_lock = ""  # waits out the ledger's appends in flight (take_epoch, release_epoch)
    table_exists = ""  # SQL: count of tables named ?

    def __init__(self, dsn: str, clock: Callable[[], float] = time.monotonic):
        self.dsn = dsn
        self.clock = clock  # the node's clock: only ever used for Grant.deadline
        self._sql: dict[str, str] = {}

    # -- what a backend provides -------------------------------------------
    @abstractmethod
    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Provided by each backend."""

    @abstractmethod
    def _write_one(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Provided by each backend."""

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Exec]:
        """Provided by each backend."""

    def _lock_migrations(self, run: Exec) -> None:  # noqa: B027 - optional hook
        """Serialize concurrent migrators (SQLite's BEGIN IMMEDIATE already does)."""

    def _json_out(self, value: Any) -> dict:
        return json.loads(value) if isinstance(value, str | bytes) else value

    @abstractmethod
    def close(self) -> None:
        """Provided by each backend."""

    def __enter__(self) -> SqlMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def q(self, template: str) -> str:
        """`template` in this dialect: `{now}` expanded, `?` as the placeholder."""
        sql = self._sql.get(template)
        if sql is None:
            sql = template.replace("{now}", self.now_sql).replace("?", self.param)
            self._sql[template] = sql
        return sql

    # -- schema ---------------------------------------------------------------
    def migrate(self) -> tuple[int, int]:
        """Bring the schema to the latest version; return (before, after)."""
        with self._transaction() as run:
            self._lock_migrations(run)
            run(VERSION_TABLE, ())
            rows = run("SELECT version FROM schema_version", ())
            before = rows[0][0] if rows else 0
            for statements in MIGRATIONS[self.dialect][before:]:
                for statement in statements:
                    run(statement, ())
            after = latest(self.dialect)
            if not rows:
                run(self.q("INSERT INTO schema_version (version) VALUES (?)"), (after,))
            elif after != before:
                run(self.q("UPDATE schema_version SET version = ?"), (after,))
        return before, after

    def schema_version(self) -> int:
        """The applied schema version (0: never migrated)."""
        if not self._read(self.q(self.table_exists), ("schema_version",))[0][0]:
            return 0
        rows = self._read("SELECT version FROM schema_version")
        return rows[0][0] if rows else 0

    def now_ms(self) -> int:
        """The database's clock, ms since the epoch."""
        return int(self._read(self.q("SELECT {now}"))[0][0])

    # -- claims ---------------------------------------------------------------
    def _grant(self, key: str, row: tuple, started: float) -> Grant:
        holder, token, until, now = row
        deadline = started + (until - now) / 1000.0
        return Grant(key, holder, int(token), int(until), int(now), deadline)

    def take(self, key: str, holder: str, ttl_s: float) -> Grant | None:
        """Claim `key` for `holder` for `ttl_s` seconds of the database's clock.

        Granted (with the next token) when the key is free, expired, released
        or already `holder`'s; None when someone else holds it.
        """
        started = self.clock()
        rows = self._write_one(self.q(TAKE), (key, holder, _ms(ttl_s)))
        return self._grant(key, rows[0], started) if rows else None

    def take_many(self, keys: list[str], holder: str, ttl_s: float) -> list[Grant | None]:
        """`take` for each key, in one transaction: a round's claims cost one commit
        (one fsync on SQLite), as its rows cost one append."""
        started = self.clock()
        sql, ttl = self.q(TAKE), _ms(ttl_s)
        with self._transaction() as run:
            rows = [run(sql, (key, holder, ttl)) for key in keys]
        return [
            self._grant(k, r[0], started) if r else None for k, r in zip(keys, rows, strict=True)
        ]

    def take_each(self, wanted: list[tuple[str, str]], ttl_s: float) -> list[Grant | None]:
        """`take` of each (key, holder), in one transaction (the head's batch of legs' claims)."""
        started = self.clock()
        sql, ttl = self.q(TAKE), _ms(ttl_s)
        with self._transaction() as run:
            rows = [run(sql, (key, holder, ttl)) for key, holder in wanted]
        return [
            self._grant(k, r[0], started) if r else None
            for (k, _), r in zip(wanted, rows, strict=True)
        ]

    def release_each(self, grants: list[tuple[str, str, int]]) -> None:
        """`release` of each (key, holder, token), in one transaction."""
        if grants:
            sql = self.q(RELEASE)
            with self._transaction() as run:
                for grant in grants:
                    run(sql, grant)

    def renew(self, key: str, holder: str, token: int, ttl_s: float) -> Grant:
        """Extend the live grant `token` of `key` by `ttl_s` from now; Fenced otherwise."""
        started = self.clock()
        rows = self._write_one(self.q(RENEW), (_ms(ttl_s), key, holder, token))
        if not rows:
            raise self._fenced(key, token)
        return self._grant(key, rows[0], started)

    def release(self, key: str, holder: str, token: int) -> bool:
        """Give back grant `token`; False when it was no longer live (nothing to give)."""
        return bool(self._write_one(self.q(RELEASE), (key, holder, token)))

    def take_epoch(
        self, key: str, holder: str, ttl_s: float, within: Exec | None = None
    ) -> Grant | None:
        """`take` of the claim that fences the ledger, whose token is an epoch: it
        first waits for the appends in flight, so none under the old epoch commits
        after the new one does (`ledger_lock`). `within`: the caller's transaction."""
        started = self.clock()
        rows = self._ending_epoch(within, TAKE, (key, holder, _ms(ttl_s)))
        return self._grant(key, rows[0], started) if rows else None

    def release_epoch(self, key: str, holder: str, token: int, within: Exec | None = None) -> bool:
        """`release` of the claim that fences the ledger, after the appends in flight."""
        return bool(self._ending_epoch(within, RELEASE, (key, holder, token)))

    def _ending_epoch(self, within: Exec | None, statement: str, params: tuple) -> list[tuple]:
        """`statement` behind `ledger_lock`, in `within` or a transaction of its own."""
        with self._transaction() if within is None else nullcontext(within) as run:
            if self.ledger_lock:
                run(self.ledger_lock, ())
            return run(self.q(statement), params)

    def claim(self, key: str) -> Grant | None:
        """The live grant on `key`, if any."""
        started = self.clock()
        rows = self._read(self.q(CLAIM_ROW), (key,))
        if not rows or rows[0][2] <= rows[0][3]:
            return None
        return self._grant(key, rows[0], started)

    def check_fence(self, key: str, token: int) -> Grant:
        """The live grant `token` of `key`; Fenced if taken over, released or expired."""
        started = self.clock()
        return self._check(self._read, key, token, started, "")

    def _check(self, run: Exec, key: str, token: int, started: float, lock: str) -> Grant:
        rows = run(self.q(CLAIM_ROW) + lock, (key,))
        if not rows:
            raise Fenced(key, token, "was never granted")
        holder, current, until, now = rows[0]
        if current != token:
            raise Fenced(key, token, f"was taken over by {holder} (token {current})")
        if until == 0:
            raise Fenced(key, token, "was released")
        if until <= now:
            raise Fenced(key, token, f"expired {now - until} ms ago")
        return self._grant(key, rows[0], started)

    def _fenced(self, key: str, token: int) -> Fenced:
        """Why `token` is no longer live (read after the refused statement)."""
        try:
            self.check_fence(key, token)
        except Fenced as refused:
            return refused
        return Fenced(key, token, "is not held by that holder")

    # -- graph ------------------------------------------------------------------
    def set_holder(self, position: str, holder: str | None) -> None:
        self.apply([SetHolder(position, holder)])

    def holder_of(self, position: str) -> str | None:
        rows = self._read(
            self.q("SELECT holder FROM positions WHERE name = ?"), (_position(position),)
        )
        return rows[0][0] if rows else None

    def positions(self) -> dict[str, str | None]:
        return dict(self._read("SELECT name, holder FROM positions ORDER BY name"))

    def upsert_node(self, id: str, kind: str, props: dict[str, Any] | None = None) -> None:
        self.apply([Node(id, kind, props or {})])

    def upsert_edge(
        self, src: str, kind: str, dst: str, props: dict[str, Any] | None = None
    ) -> None:
        self.apply([Edge(src, kind, dst, props or {})])

    def node(self, id: str) -> Node | None:
        rows = self._read(self.q("SELECT id, kind, props FROM nodes WHERE id = ?"), (id,))
        return Node(rows[0][0], rows[0][1], self._json_out(rows[0][2])) if rows else None

    def nodes(self, kind: str | None = None) -> list[Node]:
        sql, params = "SELECT id, kind, props FROM nodes", ()
        if kind is not None:
            sql, params = sql + self.q(" WHERE kind = ?"), (kind,)
        rows = self._read(sql + " ORDER BY id", params)
        return [Node(i, k, self._json_out(p)) for i, k, p in rows]

    def edges(self, kind: str | None = None) -> list[Edge]:
        sql, params = "SELECT src, kind, dst, props, via FROM edges", ()
        if kind is not None:
            sql, params = sql + self.q(" WHERE kind = ?"), (kind,)
        rows = self._read(sql + " ORDER BY src, kind, dst, via", params)
        return [Edge(s, k, d, self._json_out(p), v) for s, k, d, p, v in rows]

    def apply(self, ops: Iterable[GraphOp], fence: tuple[str, int] | None = None) -> None:
        """Apply graph ops in one transaction; under `fence` (key, token) only while live."""
        ops = list(ops)
        with self._transaction() as run:
            if fence is not None:
                self._check(run, fence[0], fence[1], self.clock(), self.lock_row)
            self._apply_ops(run, ops)
        if any(isinstance(op, EraseProtected) for op in ops):
            self._erased()

    def _apply_ops(self, run: Exec, ops: Iterable[GraphOp]) -> None:
        for op in ops:
            sql, params = self._op_statement(op)
            run(self.q(sql), params)

    def _op_statement(self, op: GraphOp) -> tuple[str, tuple]:
        match op:
            case SetHolder(position, holder):
                return SET_HOLDER, (_position(position), holder)
            case Node(id, kind, props):
                return UPSERT_NODE, (id, kind, json.dumps(props, sort_keys=True))
            case Edge(src, kind, dst, props, via):
                return UPSERT_EDGE, (src, kind, dst, via, json.dumps(props, sort_keys=True))
            case DropEdge(src, kind, dst):
                return DROP_EDGE, (src, kind, dst)
            case DropVia(kind, via):
                return DROP_VIA, (kind, via)
            case KeepProtected(digest, body):
                return KEEP_PROTECTED, (digest, json.dumps(body, sort_keys=True))
            case EraseProtected(digest):
                return ERASE_PROTECTED, (digest,)
        raise TypeError(f"not a graph op: {op!r}")

    # -- checkpoints (schema 2) -------------------------------------------------
    def checkpoint_names(self) -> list[str]:
        """The checkpoints memory holds, by name, the newest (highest) first."""
        return [name for (name,) in self._read("SELECT name FROM checkpoints ORDER BY name DESC")]

    def read_checkpoint(self, name: str) -> bytes | None:
        rows = self._read(self.q("SELECT data FROM checkpoints WHERE name = ?"), (name,))
        return bytes(rows[0][0]) if rows else None

    def write_checkpoint(self, name: str, data: bytes, keep: int) -> None:
        """Keep `data` under `name` (written once), and only the `keep` newest."""
        with self._transaction() as run:
            run(self.q(CHECKPOINT_PUT), (name, data))
            run(self.q(CHECKPOINT_TRIM), (keep,))

    def protected_body(self, digest: str) -> dict | None:
        """A protected body memory keeps (None: never kept, or erased)."""
        rows = self._read(self.q("SELECT body FROM protected WHERE digest = ?"), (digest,))
        return self._json_out(rows[0][0]) if rows else None

    # -- the ledger (ledger/) ----------------------------------------------------
    def ledger_append(self, rows: list[tuple[str, str]], fence: tuple[str, int]) -> None:
        """Append rows (id, stored line) in one transaction, only while claim `fence`
        (key, epoch) is live: Fenced, with nothing written, under a stale epoch.
        A row whose id the ledger holds already is held once."""
        key, epoch = fence
        sql = self.q(LEDGER_APPEND)
        with self._transaction() as run:
            for row_id, line in rows:
                if not run(sql, (row_id, line, key, epoch)):  # fenced, or held already
                    self._check(run, key, epoch, self.clock(), "")

    def ledger_waiting(self, limit: int) -> list[tuple[str, str]]:
        """(id, line) of the rows the ledger holds, oldest first, at most `limit`."""
        sql = self.q("SELECT id, line FROM ledger ORDER BY seq LIMIT ?")
        return [(i, line) for i, line in self._read(sql, (limit,))]

    def ledger_forget(self, ids: list[str]) -> None:
        """Delete rows the record now holds."""
        sql = self.q("DELETE FROM ledger WHERE id = ?")
        with self._transaction() as run:
            for row_id in ids:
                run(sql, (row_id,))

    def ledger_count(self) -> int:
        return int(self._read("SELECT count(*) FROM ledger")[0][0])

    # -- projection cursor ----------------------------------------------------
    def cursor(self, name: str) -> str | None:
        """Where the projection `name` stands (None: it has not moved yet)."""
        rows = self._read(self.q("SELECT value FROM cursors WHERE name = ?"), (name,))
        return rows[0][0] if rows else None

    def advance_cursor(self, name: str, expected: str | None, new: str) -> bool:
        """Move cursor `name` from `expected` to `new`; False if it was not at `expected`."""
        return self.apply_projection(name, expected, new, [])

    def apply_projection(
        self,
        cursor_name: str,
        expected: str | None,
        new: str,
        ops: Iterable[GraphOp],
        fence: tuple[str, int] | None = None,
    ) -> bool:
        """Apply `ops` and move the cursor, in one transaction, only if it is at `expected`."""
        try:
            with self._transaction() as run:
                if fence is not None:
                    self._check(run, fence[0], fence[1], self.clock(), self.lock_row)
                if expected is None:
                    moved = run(self.q(CURSOR_FIRST), (cursor_name, new))
                else:
                    moved = run(self.q(CURSOR_MOVE), (new, cursor_name, expected))
                if not moved:
                    raise _NotMoved
                ops = list(ops)
                self._apply_ops(run, ops)
        except _NotMoved:
            return False
        if any(isinstance(op, EraseProtected) for op in ops):
            self._erased()
        return True

    def _erased(self) -> None:  # noqa: B027 - optional hook
        """After a protected body is deleted: leave no copy of it in the store's own
        files (SQLite checkpoints and truncates its WAL; PostgreSQL's are its own)."""

    def reset_projection(self, cursor_name: str, expected: str) -> bool:
        """Forget what projection `cursor_name` made (positions, the graph but nodes'
        own heartbeats, protected bodies) and its cursor, in one transaction, only
        if the cursor is still at `expected`: it is then rebuilt from the record."""
        with self._transaction() as run:
            moved = run(self.q("DELETE FROM cursors WHERE name = ? AND value = ? RETURNING name"),
                        (cursor_name, expected))  # fmt: skip
            if not moved:
                return False
            for sql in RESET_PROJECTION:
                run(self.q(sql), ())
        self._erased()  # protected bodies went with it
        return True


# what a projection made, forgotten when it is rebuilt (a node's heartbeat is its own)
RESET_PROJECTION = (
    "DELETE FROM positions",
    "DELETE FROM edges",
    "DELETE FROM nodes WHERE kind != 'node'",
    "DELETE FROM protected",
)


class _NotMoved(Exception):
    """The cursor was not where the caller expected: roll back, answer False."""


def _ms(ttl_s: float) -> int:
    ms = int(round(ttl_s * 1000))
    if ms <= 0:
        raise ValueError(f"a claim's ttl must be positive, not {ttl_s}")
    return ms
