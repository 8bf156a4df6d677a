"""Memory's schema, one numbered migration at a time, per dialect.

`schema_version` holds one row: the highest migration applied. Migrating
runs, in one write transaction, every migration above it in order and then
records the new version, so running it twice (or from two nodes at once:
SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock) changes nothing.
Claims rows are never deleted, so a key's token never goes back.
"""

from __future__ import annotations

# The advisory lock PostgreSQL nodes take while migrating ("hale" in ASCII).
PG_MIGRATE_LOCK = 0x68616C65

VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"

_SQLITE_V1 = [
    """CREATE TABLE claims (
        key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        token INTEGER NOT NULL,
        until_ms INTEGER NOT NULL,
        granted_ms INTEGER NOT NULL)""",
    "CREATE TABLE positions (name TEXT PRIMARY KEY, holder TEXT)",
    "CREATE TABLE nodes (id TEXT PRIMARY KEY, kind TEXT NOT NULL, props TEXT NOT NULL)",
    """CREATE TABLE edges (
        src TEXT NOT NULL, kind TEXT NOT NULL, dst TEXT NOT NULL, props TEXT NOT NULL,
        PRIMARY KEY (src, kind, dst))""",
    "CREATE INDEX edges_by_kind ON edges (kind)",
    "CREATE TABLE cursors (name TEXT PRIMARY KEY, value TEXT)",
    """CREATE TABLE nerves (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subject TEXT NOT NULL, body TEXT NOT NULL, at_ms INTEGER NOT NULL)""",
]

_PG_V1 = [
    """CREATE TABLE claims (
        key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        token BIGINT NOT NULL,
        until_ms BIGINT NOT NULL,
        granted_ms BIGINT NOT NULL)""",
    "CREATE TABLE positions (name TEXT PRIMARY KEY, holder TEXT)",
    "CREATE TABLE nodes (id TEXT PRIMARY KEY, kind TEXT NOT NULL, props JSONB NOT NULL)",
    """CREATE TABLE edges (
        src TEXT NOT NULL, kind TEXT NOT NULL, dst TEXT NOT NULL, props JSONB NOT NULL,
        PRIMARY KEY (src, kind, dst))""",
    "CREATE INDEX edges_by_kind ON edges (kind)",
    "CREATE TABLE cursors (name TEXT PRIMARY KEY, value TEXT)",
    """CREATE TABLE nerves (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        subject TEXT NOT NULL, body JSONB NOT NULL, at_ms BIGINT NOT NULL)""",
]

# 2: the organization's checkpoints, kept in memory by PostgreSQL nodes (node/checkpoint.py)
_SQLITE_V2 = [
    "CREATE TABLE checkpoints (name TEXT PRIMARY KEY, data BLOB NOT NULL, written_ms INTEGER NOT NULL)"
]
_PG_V2 = [
    "CREATE TABLE checkpoints (name TEXT PRIMARY KEY, data BYTEA NOT NULL, written_ms BIGINT NOT NULL)"
]

# 3: protected bodies, kept by digest until a redaction erases them (record/protected.py)
_V3 = ["CREATE TABLE protected (digest TEXT PRIMARY KEY, body TEXT NOT NULL)"]

# 4: the ledger the record may adopt for the legs' rows (ledger/): rows as stored lines,
# by id, with the epoch they were appended under; carried into the record and deleted
_SQLITE_V4 = [
    """CREATE TABLE ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE, line TEXT NOT NULL, epoch INTEGER NOT NULL)"""
]
_PG_V4 = [
    """CREATE TABLE ledger (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE, line TEXT NOT NULL, epoch BIGINT NOT NULL)"""
]

# 5: one `convenes` edge a schedule (issue 32): edges are keyed by their ends and `via`,
# the schedule that carries one ("" for the edges that are one per ends)
_SQLITE_V5 = [
    """CREATE TABLE edges_v5 (
        src TEXT NOT NULL, kind TEXT NOT NULL, dst TEXT NOT NULL, via TEXT NOT NULL DEFAULT '',
        props TEXT NOT NULL, PRIMARY KEY (src, kind, dst, via))""",
    """INSERT INTO edges_v5 (src, kind, dst, via, props)
        SELECT src, kind, dst, CASE WHEN kind = 'convenes'
            THEN coalesce(json_extract(props, '$.schedule'), '') ELSE '' END, props FROM edges""",
    "DROP TABLE edges",
    "ALTER TABLE edges_v5 RENAME TO edges",
    "CREATE INDEX edges_by_kind ON edges (kind)",
    "CREATE INDEX edges_by_via ON edges (kind, via)",
]
_PG_V5 = [
    "ALTER TABLE edges ADD COLUMN via TEXT NOT NULL DEFAULT ''",
    "UPDATE edges SET via = coalesce(props->>'schedule', '') WHERE kind = 'convenes'",
    "ALTER TABLE edges DROP CONSTRAINT edges_pkey",
    "ALTER TABLE edges ADD PRIMARY KEY (src, kind, dst, via)",
    "CREATE INDEX edges_by_via ON edges (kind, via)",
]

# dialect -> migrations; migration n (1-based) is MIGRATIONS[dialect][n - 1]
MIGRATIONS: dict[str, list[list[str]]] = {
    "sqlite": [_SQLITE_V1, _SQLITE_V2, _V3, _SQLITE_V4, _SQLITE_V5],
    "postgresql": [_PG_V1, _PG_V2, _V3, _PG_V4, _PG_V5],
}
CHECKPOINTS_SINCE = 2  # the schema version that holds checkpoints


def latest(dialect: str) -> int:
    """The version a fully migrated memory of `dialect` is at."""
    return len(MIGRATIONS[dialect])
