"""The executions listing: one SQLite row per root execution, kept beside the record.

The record's index answers by kind and by key, but not "the failed
executions of close-month last week, newest first, 50 at a time". So the
face keeps a table of its own, `<git dir>/hale/face.sqlite3`: one row per
root execution (its number, definition@revision, state, ask, who asked,
objective, schedule, started and settled times), with an index for each
filter, and the objectives in a trigram full-text index (FTS5), so a
search for words inside them reads the index, not every row. It is fed by reading, from the cursor it last reached, only the
rows of the kinds that change it (admissions, settlements, cancellations,
the asks that name an objective), through the record index's kind index;
so catching up costs the rows landed since, and a page is one indexed
query with LIMIT, whatever the record's age. Like the index it is derived
and disposable: a file of another version, or one whose cursor lies past
the record's end (a rewritten remote), is emptied and refilled.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hale_runtime.record import kinds
from hale_runtime.sqlite_wal import connect_wal

VERSION = "hale-face-executions 2"
NAME = "face.sqlite3"
STATES = ("open", "succeeded", "failed", "cancelled")
WINDOWS = {"hour": 3_600_000, "day": 86_400_000, "week": 7 * 86_400_000}
PAGE = 50
FED_BY = (
    kinds.WORKFLOW_ADMITTED,
    kinds.WORKFLOW_SETTLED,
    kinds.WORKFLOW_CANCELLED,
    kinds.INTENT_REQUESTED,
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS executions (
  root TEXT PRIMARY KEY, n INTEGER NOT NULL, definition TEXT NOT NULL, state TEXT NOT NULL,
  ask TEXT NOT NULL, who TEXT NOT NULL, objective TEXT NOT NULL, schedule TEXT NOT NULL,
  started INTEGER NOT NULL, settled INTEGER, reason TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS by_n ON executions (n);
CREATE INDEX IF NOT EXISTS by_state ON executions (state, n);
CREATE INDEX IF NOT EXISTS by_definition ON executions (definition, n);
CREATE INDEX IF NOT EXISTS by_schedule ON executions (schedule, n);
CREATE INDEX IF NOT EXISTS by_ask ON executions (ask);
CREATE INDEX IF NOT EXISTS by_started ON executions (started, n);
CREATE VIRTUAL TABLE IF NOT EXISTS objectives USING fts5(objective, content='', tokenize='trigram');
CREATE TABLE IF NOT EXISTS asks (ask TEXT PRIMARY KEY, who TEXT NOT NULL, objective TEXT NOT NULL);
"""
COLUMNS = "root, n, definition, state, ask, who, objective, schedule, started, settled, reason"


@dataclass(frozen=True)
class Execution:
    root: str
    n: int
    definition: str
    state: str
    ask: str
    who: str
    objective: str
    schedule: str
    started: int
    settled: int | None
    reason: str

    @property
    def took_ms(self) -> int | None:
        return None if self.settled is None else max(self.settled - self.started, 0)


@dataclass(frozen=True)
class Filter:
    state: str = ""
    definition: str = ""
    schedule: str = ""
    window: str = ""  # hour, day, week ("" for all time)
    search: str = ""  # an id, or words of the objective
    before: int | None = None  # paging: executions numbered below this

    @classmethod
    def of(cls, query: dict[str, str]) -> Filter:
        before = query.get("before", "")
        return cls(
            state=query.get("state", "") if query.get("state", "") in STATES else "",
            definition=query.get("definition", "")[:200],
            schedule=query.get("schedule", "")[:200],
            window=query.get("window", "") if query.get("window", "") in WINDOWS else "",
            search=query.get("q", "")[:200].strip(),
            before=int(before) if before.isdigit() else None,
        )


class Executions:
    """The listing's table, fed from a record."""

    def __init__(self, gitdir: str | Path):
        self.path = Path(gitdir) / "hale" / NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError:  # not a table of ours: derived, so made again
            for stale in self.path.parent.glob(NAME + "*"):
                stale.unlink()
            self.db = self._connect()
        if self._meta("version") != VERSION:
            self._empty()

    def _connect(self) -> sqlite3.Connection:
        db = connect_wal(self.path, 30, check_same_thread=False)
        db.execute("PRAGMA synchronous=OFF")  # derived: a loss costs a refill
        db.executescript(SCHEMA)
        return db

    def _meta(self, name: str) -> str | None:
        got = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return None if got is None else got[0]

    def _empty(self) -> None:
        with self.db:
            self.db.execute("BEGIN")
            for table in ("executions", "asks", "meta"):
                self.db.execute(f"DELETE FROM {table}")
            self.db.execute("INSERT INTO objectives (objectives) VALUES ('delete-all')")
            self.db.execute("INSERT INTO meta VALUES ('version', ?), ('cursor', '0')", (VERSION,))

    @property
    def cursor(self) -> int:
        return int(self._meta("cursor") or 0)

    def catch_up(self, record: Any) -> int:
        """Read the rows landed since the cursor; the record's end."""
        end = record.cursor()
        if self.cursor > end:
            self._empty()
        if self.cursor < end:
            self.feed(record.scan(self.cursor, FED_BY, until=end), end)
        return end

    def feed(self, rows: Iterable[Any], end: int, batch: int = 5_000) -> None:
        """Fold `rows` in, in transactions of `batch` rows; the cursor moves to `end`."""
        chunk: list[Any] = []
        for row in rows:
            chunk.append(row)
            if len(chunk) >= batch:
                self._fold(chunk, None)
                chunk = []
        self._fold(chunk, end)

    def _fold(self, rows: list[Any], end: int | None) -> None:
        db = self.db
        db.execute("BEGIN")
        try:
            for r in rows:
                handler = _FOLD.get(r.kind)
                if handler is not None:
                    handler(db, r)
            if end is not None:
                db.execute("UPDATE meta SET value = ? WHERE name = 'cursor'", (str(end),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # ---- reading --------------------------------------------------------------------

    def page(self, f: Filter, now_ms: int, size: int = PAGE) -> list[Execution]:
        """The executions `f` selects, newest first, `size` at most."""
        where, args = self._where(f, now_ms)
        if where is None:
            return []
        sql = f"SELECT {COLUMNS} FROM executions {where} ORDER BY n DESC LIMIT ?"
        return [Execution(*t) for t in self.db.execute(sql, (*args, size))]

    def _where(self, f: Filter, now_ms: int) -> tuple[str | None, list[Any]]:
        """The WHERE clause and its arguments for `f` (None: nothing can match). Each
        term has its index: an id or ask is looked up exactly; words of the objective
        go through the trigram index (under 3 characters, a LIKE); a window becomes a
        bound on the execution's number, since roots are numbered in the order admitted."""
        terms: list[str] = []
        args: list[Any] = []
        for column, value in (("state", f.state), ("definition", f.definition),
                              ("schedule", f.schedule)):  # fmt: skip
            if value:
                terms.append(f"{column} = ?")
                args.append(value)
        if f.window:
            since = now_ms - WINDOWS[f.window]
            first = self.db.execute(
                "SELECT min(n) FROM executions INDEXED BY by_started WHERE started >= ?", (since,)
            ).fetchone()[0]
            if first is None:
                return None, []
            terms.append("n >= ? AND started >= ?")
            args += [first, since]
        if f.search:
            exact = self.db.execute(
                "SELECT 1 FROM executions WHERE root = ? OR ask = ? LIMIT 1", (f.search, f.search)
            ).fetchone()
            if exact:
                terms.append("(root = ? OR ask = ?)")
                args += [f.search, f.search]
            elif len(f.search) >= 3:
                terms.append("rowid IN (SELECT rowid FROM objectives WHERE objectives MATCH ?)")
                args.append('"' + f.search.replace('"', '""') + '"')
            else:
                terms.append("objective LIKE ? ESCAPE '\\'")
                pattern = f.search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                args.append(f"%{pattern}%")
        if f.before is not None:
            terms.append("n < ?")
            args.append(f.before)
        return ("WHERE " + " AND ".join(terms)) if terms else "", args

    def one(self, root: str) -> Execution | None:
        got = self.db.execute(f"SELECT {COLUMNS} FROM executions WHERE root = ?", (root,))
        t = got.fetchone()
        return None if t is None else Execution(*t)

    def definitions(self) -> list[str]:
        """The definitions executed, for the filter's choices (read from the index on them)."""
        found: list[str] = []
        last = ""
        while len(found) < 200:  # skip-scan: one index probe a definition
            got = self.db.execute(
                "SELECT definition FROM executions WHERE definition > ? ORDER BY definition "
                "LIMIT 1",
                (last,),
            ).fetchone()
            if got is None:
                break
            last = got[0]
            found.append(last)
        return found

    def close(self) -> None:
        self.db.close()


def _number(root: str, seq: int) -> int:
    digits = root[1:]
    return int(digits) if root.startswith("t") and digits.isdigit() else 10**12 + seq


def _admitted(db: sqlite3.Connection, r: Any) -> None:
    body = r.body
    if body.get("parent"):  # a child execution: shown inside its root's page
        return
    ask = str(body.get("ask", ""))
    asked = db.execute("SELECT who, objective FROM asks WHERE ask = ?", (ask,)).fetchone()
    who, objective = asked if asked else (str(body.get("convener", "")), "")
    plan = body.get("plan") or {}
    objective = objective or str(plan.get("summary", ""))
    schedule = ""
    if ask.startswith("sched:") and "@" in ask:
        schedule = ask.removeprefix("sched:").rsplit("@", 1)[0]
        who = who or f"schedule {schedule}"
    added = db.execute(
        f"INSERT OR IGNORE INTO executions ({COLUMNS}) VALUES (?,?,?,'open',?,?,?,?,?,NULL,'')",
        (r.key, _number(r.key, r.seq), str(body.get("definition", "")), ask, who, objective,
         schedule, r.at),
    )  # fmt: skip
    if added.rowcount == 1 and objective:
        db.execute(
            "INSERT INTO objectives (rowid, objective) VALUES (?, ?)", (added.lastrowid, objective)
        )


def _settled(db: sqlite3.Connection, r: Any) -> None:
    outcome = str(r.body.get("outcome", ""))
    state = outcome if outcome in STATES else "failed"
    db.execute(
        "UPDATE executions SET state = ?, settled = ?, reason = ? WHERE root = ? "
        "AND settled IS NULL",
        (state, r.at, str(r.body.get("reason", "")), r.key),
    )


def _cancelled(db: sqlite3.Connection, r: Any) -> None:
    db.execute(
        "UPDATE executions SET state = 'cancelled' WHERE root = ? AND settled IS NULL", (r.key,)
    )


def _asked(db: sqlite3.Connection, r: Any) -> None:
    who = str(r.body.get("by") or r.who)
    db.execute(
        "INSERT OR IGNORE INTO asks VALUES (?, ?, ?)",
        (r.key, who, str(r.body.get("objective", ""))),
    )


_FOLD = {
    kinds.WORKFLOW_ADMITTED: _admitted,
    kinds.WORKFLOW_SETTLED: _settled,
    kinds.WORKFLOW_CANCELLED: _cancelled,
    kinds.INTENT_REQUESTED: _asked,
}
