"""The record's index: the settled chain's rows in SQLite, `<gitdir>/hale/record.index`.

A long-lived record holds millions of rows; a process must not decode them
all to read a few, nor keep them all in memory. The index keeps what git
holds in a form that answers by place, by kind and by key: a table of the
chain's commits (their place, hex, parent and the rows they end at) and a
table of decoded rows, with indexes on id, on (key, seq) and on (kind, seq).
A key lookup (`hale dna history t7`, `show t7`) is then a range scan of the
key index, whatever the record's age.

It holds every row of a long record, so each is kept small (at 10^5
executions the first form, which kept rows as they are written, took 290
bytes a row): a kind, a writer and a clone are each a number standing for
its text (`names`, a few dozen of them in a whole record); an id's index
holds its first 8 bytes as a number, not all 32 (the row has them all); a
body is canonical JSON deflated with a preset dictionary made of a body of
every kind in the table (`kinds.example`), which is what repeats from row to
row, and kept as text when that is no smaller; a `workflow.admitted` row's
ask is its own column, for the index of admissions by ask.

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
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hale_runtime.record import kinds, signing, trust
from hale_runtime.record.errors import RecordError
from hale_runtime.record.row import Row, canonical
from hale_runtime.record.signing import SIGNED
from hale_runtime.sqlite_wal import connect_wal

# the verdicts the index keeps are those of the table of kinds and of the rules of authority
TABLE = hashlib.sha256(
    b"".join(Path(m.__file__).read_bytes() for m in (kinds, trust, signing))
).hexdigest()[:16]
VERSION = f"hale-record-index 4 {TABLE}"
NAME = "record.index"
BUSY_MS = 30_000
# A rebuild writes the whole record; SQLite's automatic checkpoints are passive,
# so readers beside it can keep the WAL from ever starting over, and it grew to
# the index's size. Every CHECKPOINT_ROWS rows written the writer checkpoints
# and truncates it (waiting CHECKPOINT_WAIT_MS at most for readers), and a WAL
# that starts over is cut to WAL_LIMIT bytes.
CHECKPOINT_ROWS = 100_000
CHECKPOINT_WAIT_MS = 2_000
WAL_LIMIT = 16 << 20
CHUNK = 4096  # rows fetched at a time by a scan
_NOT_AN_INDEX = (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)  # what may be discarded
_new = tuple.__new__
_loads = json.loads

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commits (
    n INTEGER PRIMARY KEY, hex TEXT NOT NULL UNIQUE, parent TEXT NOT NULL,
    end_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS names (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS rows (
    seq INTEGER PRIMARY KEY, id8 INTEGER NOT NULL, id BLOB NOT NULL, kind INTEGER NOT NULL,
    key TEXT NOT NULL, at INTEGER NOT NULL, who INTEGER NOT NULL, clone INTEGER NOT NULL,
    body NOT NULL, ask TEXT, poison TEXT);
CREATE INDEX IF NOT EXISTS rows_by_id ON rows (id8);
CREATE INDEX IF NOT EXISTS rows_by_key ON rows (key, seq);
CREATE INDEX IF NOT EXISTS poison_by_seq ON rows (seq) WHERE poison IS NOT NULL;
CREATE INDEX IF NOT EXISTS rows_by_kind ON rows (kind, seq);
CREATE INDEX IF NOT EXISTS admissions_by_ask ON rows (ask) WHERE ask IS NOT NULL;
CREATE TABLE IF NOT EXISTS open_keys (
    grp TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL,
    PRIMARY KEY (grp, key));
"""
TABLES = ("meta", "commits", "names", "rows", "open_keys")
COLUMNS = "seq, id, kind, key, at, who, clone, body"
Commit = tuple[str, str, int]  # (hex, parent hex or "", rows it holds)
# what bodies share: one body of every kind, the most common kinds' last (nearest)
PRESET = "".join(canonical(kinds.example(name)) for name in sorted(kinds.KINDS)).encode()


# Made once and copied per body: a deflater made afresh loads PRESET each time, and
# one with a 4 KiB window and a small hash table (PRESET is under 4 KiB, bodies
# are small) copies in half the time; `_unpacked`'s inflater reads it as any.
_SQUEEZE = zlib.compressobj(6, zlib.DEFLATED, -12, 4, zlib.Z_DEFAULT_STRATEGY, PRESET)


class IndexFailed(RecordError):
    """The index could not be used (at open the record goes on from git alone)."""


def _packed(body: dict[str, Any]) -> str | bytes:
    """A body as the index keeps it: deflated with PRESET, or its text when no smaller."""
    text = canonical(body)
    raw = text.encode("utf-8", "surrogatepass")
    squeeze = _SQUEEZE.copy()
    packed = squeeze.compress(raw) + squeeze.flush()
    return packed if len(packed) < len(raw) else text


def _unpacked(body: str | bytes) -> dict[str, Any]:
    if type(body) is str:
        return _loads(body)
    return _loads(zlib.decompressobj(-15, PRESET).decompress(body).decode("utf-8", "surrogatepass"))


def id8(row_id: str | bytes) -> int:
    """An id's first 8 bytes as a signed number: what the id index holds."""
    raw = bytes.fromhex(row_id) if isinstance(row_id, str) else row_id
    return int.from_bytes(raw[:8], "big", signed=True)


class Index:
    """One clone's index file, opened by one process."""

    def __init__(self, gitdir: str | Path):
        self.path = Path(gitdir) / "hale" / NAME
        self.db = self._open()
        self._unchecked = 0  # rows written since the writer last truncated the WAL
        self._names: dict[int, str] = {}  # code -> name, as read (codes never change)
        self._codes: dict[str, int] = {}

    def _row(self, t: tuple) -> Row:
        seq, rid, kind, key, at, who, clone, body = t
        names = self._names
        if kind not in names or who not in names or clone not in names:
            self._read_names()
        body = _unpacked(body)
        row = (names[kind], key, body, names[who], at, names[clone], rid.hex(), seq)
        return _new(Row, row)

    def _read_names(self) -> None:
        """Every code another process (or this one) gave a name."""
        for code, name in self._q("SELECT code, name FROM names"):
            self._names[code], self._codes[name] = name, code

    def _code(self, name: str) -> int:
        """The code standing for `name`, given one when it has none (in a write)."""
        code = self._codes.get(name)
        if code is None:
            self.db.execute("INSERT OR IGNORE INTO names (name) VALUES (?)", (name,))
            (code,) = self.db.execute("SELECT code FROM names WHERE name = ?", (name,)).fetchone()
            self._codes[name], self._names[code] = code, name
        return code

    def _kind_codes(self, kinds: Sequence[str]) -> list[int]:
        """The codes of those of `kinds` the index holds any row of."""
        if any(k not in self._codes for k in kinds):
            self._read_names()
        return [self._codes[k] for k in kinds if k in self._codes]

    # ---- opening ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """The file as it is when it holds this version's index, else made anew."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                return self._prepare(self._connect())
            except sqlite3.DatabaseError as exc:
                # only a file that is no database goes: one busy or out of reach
                # may be another process's live index, and unlinking it corrupts it
                if exc.sqlite_errorcode not in _NOT_AN_INDEX:
                    raise
                self._discard()
            return self._prepare(self._connect())
        except (sqlite3.Error, OSError) as exc:
            raise IndexFailed(f"{self.path}: {exc}") from exc

    def _connect(self) -> sqlite3.Connection:
        db = connect_wal(self.path, BUSY_MS / 1000, check_same_thread=False)
        db.execute("PRAGMA synchronous=NORMAL")  # derived: a lost tail is rebuilt from git
        db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")  # a reset WAL is cut to this
        return db

    @staticmethod
    def _prepare(db: sqlite3.Connection) -> sqlite3.Connection:
        """Make the schema, in one transaction, unless this version's is there;
        another version's tables are dropped first (the index is derived), and
        the file given back their space."""
        db.execute("BEGIN IMMEDIATE")
        try:
            tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            found = None
            if "meta" in tables:
                found = db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
            tables = {t for t in tables if not t.startswith("sqlite_")}  # SQLite's own
            dropped = found is None or found[0] != VERSION
            if dropped:
                for table in sorted(tables | set(TABLES)):
                    db.execute(f'DROP TABLE IF EXISTS "{table}"')
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('version', ?)", (VERSION,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if dropped and tables:
            # another process still reading the old tables keeps the space; rows reuse it
            with contextlib.suppress(sqlite3.OperationalError):
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the WAL holds what VACUUM wrote
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
        wanted = set(ids)
        prefixes = sorted({id8(i) for i in wanted})
        found: dict[str, int] = {}
        for at in range(0, len(prefixes), 500):
            part = prefixes[at : at + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT id, seq FROM rows WHERE id8 IN ({marks}) AND seq <= ?"
            for rid, seq in self._q(sql, (*part, upto)):
                if rid.hex() in wanted:
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
        if kinds is None and not signatures:  # a batch's signature: read when asked
            fits += [f"kind != {code}" for code in self._kind_codes([SIGNED])]
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
            codes = self._kind_codes(kinds)
            if not codes:
                return
            where = [*where, f"kind IN ({','.join('?' * len(codes))})"]
            args = [*args, *codes]
        sql = f"SELECT {COLUMNS} FROM {table} WHERE {' AND '.join(where)} ORDER BY seq"
        cursor = self._q(sql, args)
        while True:
            chunk = cursor.fetchmany(CHUNK)
            if not chunk:
                return
            yield from map(self._row, chunk)

    def open_keys(self, group: str) -> list[tuple[str, int, int]]:
        """(key, seq, at) of the group's open keys (kinds.OPEN_UNTIL), in the order
        they opened: read from the table kept as rows go in, never from the rows."""
        sql = "SELECT key, seq, at FROM open_keys WHERE grp = ? ORDER BY seq"
        return [tuple(t) for t in self._q(sql, (group,))]

    def closed(self, group: str, key: str, upto: int) -> bool:
        """Whether a row up to seq `upto` closes `key` in `group`."""
        codes = self._kind_codes(sorted(kinds.OPEN_UNTIL[group][1]))
        sql = (
            "SELECT 1 FROM rows INDEXED BY rows_by_key WHERE key = ? AND +seq <= ? "
            f"AND poison IS NULL AND {_among(codes)} LIMIT 1"
        )
        return self._q(sql, (key, upto, *codes)).fetchone() is not None

    def kinds(self) -> list[str]:
        """Every kind the index holds, found by skipping along the kind index
        (one lookup a kind, whatever the number of rows)."""
        sql = (
            "WITH RECURSIVE k(kind) AS (SELECT min(kind) FROM rows UNION ALL "
            "SELECT (SELECT min(kind) FROM rows WHERE kind > k.kind) FROM k "
            "WHERE k.kind IS NOT NULL) SELECT kind FROM k WHERE kind IS NOT NULL"
        )
        codes = [code for (code,) in self._q(sql)]
        if any(code not in self._names for code in codes):
            self._read_names()
        return sorted(self._names[code] for code in codes)

    def admission(self, ask: str, upto: int) -> Row | None:
        """The first `workflow.admitted` row whose body's ask is `ask`."""
        sql = (
            f"SELECT {COLUMNS} FROM rows WHERE ask = ? AND seq <= ? AND poison IS NULL "
            "ORDER BY seq LIMIT 1"
        )
        found = self._q(sql, (ask, upto)).fetchone()
        return self._row(found) if found else None

    def row_at(self, seq: int) -> Row | None:
        found = self._q(f"SELECT {COLUMNS} FROM rows WHERE seq = ?", (seq,)).fetchone()
        return self._row(found) if found else None

    def poison_of(self, row_id: str, upto: int) -> str:
        """Why the row does not fit its kind ("" when it does, or is not here)."""
        sql = "SELECT poison FROM rows WHERE id8 = ? AND id = ? AND seq <= ?"
        found = self._q(sql, (id8(row_id), bytes.fromhex(row_id), upto)).fetchone()
        return found[0] or "" if found else ""

    def poison(self, since: int, upto: int) -> Iterator[tuple[Row, str]]:
        """(row, why) of every row with since < seq <= upto that does not fit its kind."""
        sql = (
            f"SELECT {COLUMNS}, poison FROM rows WHERE seq > ? AND seq <= ? "
            "AND poison IS NOT NULL ORDER BY seq"
        )
        for found in self._q(sql, (since, upto)).fetchall():
            yield self._row(found[:-1]), found[-1]

    def get(self, row_id: str, upto: int) -> Row | None:
        try:
            raw = bytes.fromhex(row_id)
        except ValueError:
            return None  # not an id at all: no row has it
        sql = f"SELECT {COLUMNS} FROM rows WHERE id8 = ? AND id = ? AND seq <= ?"
        found = self._q(sql, (id8(raw), raw, upto)).fetchone()
        return self._row(found) if found else None

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
        self._unchecked += len(rows) - skip_rows
        if self._unchecked >= CHECKPOINT_ROWS:
            self._truncate_wal()

    def _truncate_wal(self) -> None:
        """Checkpoint the WAL into the index and truncate it (see CHECKPOINT_ROWS);
        readers that outlast the wait only leave it for the next time."""
        self._unchecked = 0
        with contextlib.suppress(sqlite3.Error):
            self.db.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            try:
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                self.db.execute(f"PRAGMA busy_timeout={BUSY_MS}")

    def _insert(
        self, n: int, end: int, commits: list[Commit], rows: list[Row], poison: dict[str, str]
    ) -> None:
        entries = []
        for hexid, parent, count in commits:
            end += count
            entries.append((n, hexid, parent, end))
            n += 1
        self.db.executemany("INSERT INTO commits VALUES (?, ?, ?, ?)", entries)
        code = self._code
        self.db.executemany(
            "INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (r.seq, id8(raw), raw, code(r.kind), r.key, r.at, code(r.who), code(r.clone),
                 _packed(r.body), _ask(r), poison.get(r.id))
                for r in rows for raw in (bytes.fromhex(r.id),)
            ],
        )  # fmt: skip
        self._open_and_close(rows, poison)

    def _open_and_close(self, rows: list[Row], poison: dict[str, str]) -> None:
        """Keep the open keys (kinds.OPEN_UNTIL) as `rows` go in, after them: a
        key closed anywhere up to the batch's end is not opened."""
        for group, (opens, closes) in kinds.OPEN_UNTIL.items():
            marks = self._kind_codes(sorted(closes))
            for r in rows:
                if r.id in poison:
                    continue
                if r.kind in opens:
                    self.db.execute(
                        "INSERT OR IGNORE INTO open_keys SELECT ?, ?, ?, ? WHERE NOT EXISTS "
                        "(SELECT 1 FROM rows INDEXED BY rows_by_key WHERE key = ? AND "
                        f"poison IS NULL AND {_among(marks)})",
                        (group, r.key, r.seq, r.at, r.key, *marks),
                    )
                elif r.kind in closes:
                    self.db.execute(
                        "DELETE FROM open_keys WHERE grp = ? AND key = ?", (group, r.key)
                    )

    def _reopen(self) -> None:
        """The open keys made again from the rows (after a cut took some away)."""
        self.db.execute("DELETE FROM open_keys")
        for group, (opens, closes) in kinds.OPEN_UNTIL.items():
            o, c = self._kind_codes(sorted(opens)), self._kind_codes(sorted(closes))
            self.db.execute(
                "INSERT INTO open_keys SELECT ?, key, min(seq), at FROM rows "
                f"WHERE {_among(o)} AND poison IS NULL AND key NOT IN "
                f"(SELECT key FROM rows WHERE {_among(c)} AND poison IS NULL) GROUP BY key",
                (group, *o, *c),
            )

    def cut(self, keep: int) -> None:
        """Forget every commit past the first `keep` (a rewritten chain)."""
        with self._write():
            self._cut(keep)

    def _cut(self, keep: int) -> None:
        kept = self.end_of(keep - 1) if keep else 0
        self.db.execute("DELETE FROM commits WHERE n >= ?", (keep,))
        if self.db.execute("DELETE FROM rows WHERE seq > ?", (kept,)).rowcount:
            self._reopen()

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise IndexFailed(f"{self.path}: {exc}") from exc
        try:
            yield
        except BaseException as exc:
            self.db.execute("ROLLBACK")
            self._names, self._codes = {}, {}  # codes given in it are gone
            if isinstance(exc, sqlite3.Error):
                raise IndexFailed(f"{self.path}: {exc}") from exc
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._names, self._codes = {}, {}
            raise IndexFailed(f"{self.path}: {exc}") from exc

    def _q(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, args)
        except sqlite3.Error as exc:
            raise IndexFailed(
                f"{self.path}: {exc} (it is derived: `hale dna repair` makes it again)"
            ) from exc


def _ask(row: Row) -> str | None:
    """The ask of a `workflow.admitted` row (what `admission` looks up)."""
    ask = row.body.get("ask") if row.kind == kinds.WORKFLOW_ADMITTED else None
    return ask if isinstance(ask, str) else None


def _among(codes: Sequence[int]) -> str:
    """SQL: the row's kind is one of these codes (none: no row)."""
    return f"kind IN ({','.join('?' * len(codes))})" if codes else "0"


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
