"""The record's index: the settled chain's rows in SQLite, `<gitdir>/hale/record.index`.

A long-lived record holds millions of rows; a process must not decode them
all to read a few, nor keep them all in memory. The index keeps what git
holds in a form that answers by place, by kind and by key: a table of the
chain's commits (their place, hex, parent and the rows they end at) and a
table of decoded rows (seq, id, kind, key, time, writer, clone, body as
canonical JSON), with indexes on id, on (key, seq) and on (kind, seq). A key
lookup (`hale dna history t7`, `show t7`) is then a range scan of the key
index, whatever the record's age.

It is derived and disposable, like the cache it replaces: only stamped
commits go in (they never move), a file that does not open, or whose schema
is another version's, is rebuilt from git, and deleting it loses only time.
Each row carries the verdict of the table of kinds (`poison`: why it does
not fit, NULL when it does); the version names that table by a digest of
kinds.py, so another table's verdicts are never read.
Several processes share it: SQLite's WAL lets them read while one writes,
and every write is one transaction that first checks the index still ends
where the writer thinks it does (`extend`), so two writers never interleave
two chains. A writer that finds the index ahead of it on the same chain just
skips what is there; one that finds another chain there (a remote that was
rewritten) cuts it back and writes its own, and the other readers notice
the cut when they next read (`holds`).
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hale_runtime.record import kinds, signing, trust
from hale_runtime.record.errors import RecordError
from hale_runtime.record.row import Row, canonical
from hale_runtime.record.signing import SIGNED

# the verdicts the index keeps are those of the table of kinds and of the rules of authority
TABLE = hashlib.sha256(
    b"".join(Path(m.__file__).read_bytes() for m in (kinds, trust, signing))
).hexdigest()[:16]
VERSION = f"hale-record-index 2 {TABLE}"
NAME = "record.index"
BUSY_MS = 30_000
CHUNK = 4096  # rows fetched at a time by a scan
_new = tuple.__new__
_loads = json.loads

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commits (
    n INTEGER PRIMARY KEY, hex TEXT NOT NULL UNIQUE, parent TEXT NOT NULL,
    end_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rows (
    seq INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, kind TEXT NOT NULL,
    key TEXT NOT NULL, at INTEGER NOT NULL, who TEXT NOT NULL, clone TEXT NOT NULL,
    body TEXT NOT NULL, poison TEXT);
CREATE INDEX IF NOT EXISTS rows_by_key ON rows (key, seq);
CREATE INDEX IF NOT EXISTS poison_by_seq ON rows (seq) WHERE poison IS NOT NULL;
CREATE INDEX IF NOT EXISTS rows_by_kind ON rows (kind, seq);
CREATE INDEX IF NOT EXISTS admissions_by_ask ON rows (json_extract(body, '$.ask'))
    WHERE kind = 'workflow.admitted';
"""
COLUMNS = "seq, id, kind, key, at, who, clone, body"
Commit = tuple[str, str, int]  # (hex, parent hex or "", rows it holds)


class IndexFailed(RecordError):
    """The index could not be used (at open the record goes on from git alone)."""


def _row(t: tuple) -> Row:
    seq, rid, kind, key, at, who, clone, body = t
    return _new(Row, (kind, key, _loads(body), who, at, clone, rid.hex(), seq))


class Index:
    """One clone's index file, opened by one process."""

    def __init__(self, gitdir: str | Path):
        self.path = Path(gitdir) / "hale" / NAME
        self.db = self._open()

    # ---- opening ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """The file as it is when it holds this version's index, else made anew."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                return self._prepare(self._connect())
            except sqlite3.DatabaseError:
                self._discard()  # not a database at all
            return self._prepare(self._connect())
        except (sqlite3.Error, OSError) as exc:
            raise IndexFailed(f"{self.path}: {exc}") from exc

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None,
                             check_same_thread=False)  # fmt: skip
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # derived: a lost tail is rebuilt from git
        return db

    @staticmethod
    def _prepare(db: sqlite3.Connection) -> sqlite3.Connection:
        """Make the schema, in one transaction, unless this version's is there;
        another version's tables are dropped first (the index is derived)."""
        db.execute("BEGIN IMMEDIATE")
        try:
            tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            found = None
            if "meta" in tables:
                found = db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
            if found is None or found[0] != VERSION:
                for table in ("meta", "commits", "rows"):
                    db.execute(f"DROP TABLE IF EXISTS {table}")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('version', ?)", (VERSION,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return db

    def _discard(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.path}{suffix}").unlink()

    def close(self) -> None:
        self.db.close()

    # ---- the chain it holds ------------------------------------------------------

    def end(self) -> tuple[int, int, str]:
        """(commits, rows, hex of the last commit or "") the index holds."""
        last = self._q("SELECT n, end_seq, hex FROM commits ORDER BY n DESC LIMIT 1").fetchone()
        return (last[0] + 1, last[1], last[2]) if last else (0, 0, "")

    def holds(self, commits: int, last_hex: str) -> bool:
        """Whether the index still holds the chain this reader saw: `commits`
        commits, the last of them `last_hex` (a cut by another writer says no)."""
        if commits == 0:
            return True
        return self.hex_at(commits - 1) == last_hex

    def position(self, hexid: str, below: int) -> int | None:
        """The place of commit `hexid` among the first `below` commits."""
        found = self._q("SELECT n FROM commits WHERE hex = ?", (hexid,)).fetchone()
        return found[0] if found and found[0] < below else None

    def end_of(self, n: int) -> int:
        """The rows up to and including commit `n`."""
        return self._q("SELECT end_seq FROM commits WHERE n = ?", (n,)).fetchone()[0]

    def hex_at(self, n: int) -> str:
        """The hex of commit `n` ("" when the index holds no such commit)."""
        found = self._q("SELECT hex FROM commits WHERE n = ?", (n,)).fetchone()
        return found[0] if found else ""

    # ---- rows --------------------------------------------------------------------

    def known(self, ids: Iterable[str], upto: int) -> dict[str, int]:
        """id -> seq for those of `ids` among the first `upto` rows."""
        wanted = [bytes.fromhex(i) for i in ids]
        found: dict[str, int] = {}
        for at in range(0, len(wanted), 500):
            part = wanted[at : at + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT id, seq FROM rows WHERE id IN ({marks}) AND seq <= ?"
            for rid, seq in self._q(sql, (*part, upto)):
                found[rid.hex()] = seq
        return found

    def scan(
        self,
        since: int,
        upto: int,
        kinds: Sequence[str] | None = None,
        ranges: Sequence[tuple[str, str | None]] = (),
        poison: bool = False,
        signatures: bool = False,
    ) -> Iterator[Row]:
        """Rows with since < seq <= upto in chain order; only `kinds` when given,
        only keys within one of `ranges` ([low, high), high None: no bound above);
        rows that do not fit their kind only when `poison`, signature rows only
        when `signatures` (or `kinds` names them).

        Each key range is its own search of the key index (SQLite answers an
        OR of ranges, or a range beside a seq bound, by scanning every row),
        merged back into chain order."""
        fits = [] if poison else ["poison IS NULL"]
        if kinds is None and not signatures:
            fits.append(f"kind != '{SIGNED}'")  # a batch's signature: read when asked
        if not ranges:
            return self._scan("rows", ["seq > ?", "seq <= ?", *fits], [since, upto], kinds)
        searches = []
        for low, high in ranges:
            where = ["key >= ?", "+seq > ?", "+seq <= ?", *fits]
            where += [] if high is None else ["key < ?"]
            args = [low, since, upto] + ([] if high is None else [high])
            searches.append(self._scan("rows INDEXED BY rows_by_key", where, args, kinds))
        return heapq.merge(*searches, key=lambda row: row.seq)

    def _scan(
        self, table: str, where: list[str], args: list[Any], kinds: Sequence[str] | None
    ) -> Iterator[Row]:
        if kinds is not None:
            where = [*where, f"kind IN ({','.join('?' * len(kinds))})"]
            args = [*args, *kinds]
        sql = f"SELECT {COLUMNS} FROM {table} WHERE {' AND '.join(where)} ORDER BY seq"
        cursor = self._q(sql, args)
        while True:
            chunk = cursor.fetchmany(CHUNK)
            if not chunk:
                return
            yield from map(_row, chunk)

    def kinds(self) -> list[str]:
        """Every kind the index holds, found by skipping along the kind index
        (one lookup a kind, whatever the number of rows)."""
        sql = (
            "WITH RECURSIVE k(kind) AS (SELECT min(kind) FROM rows UNION ALL "
            "SELECT (SELECT min(kind) FROM rows WHERE kind > k.kind) FROM k "
            "WHERE k.kind IS NOT NULL) SELECT kind FROM k WHERE kind IS NOT NULL"
        )
        return [kind for (kind,) in self._q(sql)]

    def admission(self, ask: str, upto: int) -> Row | None:
        """The first `workflow.admitted` row whose body's ask is `ask`."""
        sql = (
            f"SELECT {COLUMNS} FROM rows WHERE kind = 'workflow.admitted' "
            "AND json_extract(body, '$.ask') = ? AND seq <= ? AND poison IS NULL "
            "ORDER BY seq LIMIT 1"
        )
        found = self._q(sql, (ask, upto)).fetchone()
        return _row(found) if found else None

    def row_at(self, seq: int) -> Row | None:
        found = self._q(f"SELECT {COLUMNS} FROM rows WHERE seq = ?", (seq,)).fetchone()
        return _row(found) if found else None

    def poison_of(self, row_id: str, upto: int) -> str:
        """Why the row does not fit its kind ("" when it does, or is not here)."""
        sql = "SELECT poison FROM rows WHERE id = ? AND seq <= ?"
        found = self._q(sql, (bytes.fromhex(row_id), upto)).fetchone()
        return found[0] or "" if found else ""

    def poison(self, since: int, upto: int) -> Iterator[tuple[Row, str]]:
        """(row, why) of every row with since < seq <= upto that does not fit its kind."""
        sql = (
            f"SELECT {COLUMNS}, poison FROM rows WHERE seq > ? AND seq <= ? "
            "AND poison IS NOT NULL ORDER BY seq"
        )
        for found in self._q(sql, (since, upto)).fetchall():
            yield _row(found[:-1]), found[-1]

    def get(self, row_id: str, upto: int) -> Row | None:
        sql = f"SELECT {COLUMNS} FROM rows WHERE id = ? AND seq <= ?"
        found = self._q(sql, (bytes.fromhex(row_id), upto)).fetchone()
        return _row(found) if found else None

    # ---- writing -----------------------------------------------------------------

    def extend(
        self,
        held: tuple[int, str],
        commits: list[Commit],
        rows: list[Row],
        poison: dict[str, str] | None = None,
    ) -> None:
        """Append `commits` (and their `rows`, with `poison`'s verdicts) after the
        first `held[0]` commits, the last of which is `held[1]`; what the index
        already holds past there on the same chain is skipped, another chain is
        cut back."""
        start, last = held
        with self._write():
            if not self.holds(start, last):
                raise IndexFailed("the index was cut under this reader")
            n, skip_rows = start, 0
            for hexid, _, count in commits:
                there = self.hex_at(n)
                if not there:
                    break
                if there != hexid:
                    self._cut(n)
                    break
                n, skip_rows = n + 1, skip_rows + count
            todo = commits[n - start :]
            if not todo:
                return
            end = self.end_of(n - 1) if n else 0
            self._cut(n)
            self._insert(n, end, todo, rows[skip_rows:], poison or {})

    def _insert(
        self, n: int, end: int, commits: list[Commit], rows: list[Row], poison: dict[str, str]
    ) -> None:
        entries = []
        for hexid, parent, count in commits:
            end += count
            entries.append((n, hexid, parent, end))
            n += 1
        self.db.executemany("INSERT INTO commits VALUES (?, ?, ?, ?)", entries)
        self.db.executemany(
            "INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (r.seq, bytes.fromhex(r.id), r.kind, r.key, r.at, r.who, r.clone,
                 canonical(r.body), poison.get(r.id))
                for r in rows
            ],
        )  # fmt: skip

    def cut(self, keep: int) -> None:
        """Forget every commit past the first `keep` (a rewritten chain)."""
        with self._write():
            self._cut(keep)

    def _cut(self, keep: int) -> None:
        kept = self.end_of(keep - 1) if keep else 0
        self.db.execute("DELETE FROM commits WHERE n >= ?", (keep,))
        self.db.execute("DELETE FROM rows WHERE seq > ?", (kept,))

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise IndexFailed(f"{self.path}: {exc}") from exc
        try:
            yield
        except sqlite3.Error as exc:
            self.db.execute("ROLLBACK")
            raise IndexFailed(f"{self.path}: {exc}") from exc
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise IndexFailed(f"{self.path}: {exc}") from exc

    def _q(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, args)
        except sqlite3.Error as exc:
            raise IndexFailed(f"{self.path}: {exc} (it is derived: remove it)") from exc


def key_ranges(key: str, separators: str) -> list[tuple[str, str | None]]:
    """The key itself and every key below it: `key` then one of `separators`."""
    return [(key, key + "\x00")] + [prefix_range(key + s) for s in separators]


def prefix_range(prefix: str) -> tuple[str, str | None]:
    """Every key that starts with `prefix` (as text), as one range [low, high)."""
    for cut in range(len(prefix) - 1, -1, -1):
        after = ord(prefix[cut]) + 1
        if after == 0xD800:
            after = 0xE000  # no key holds a lone surrogate
        if after <= 0x10FFFF:
            return prefix, prefix[:cut] + chr(after)
    return prefix, None
