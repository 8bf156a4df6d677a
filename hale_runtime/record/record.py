"""The Record: this clone's chain of rows, read incrementally and appended by CAS.

A Record keeps the decoded chain in memory (rows, their ids, and for each
commit how many rows it added). Every read first looks at the ref: when the
tip is the one it knows, nothing is decoded; when the chain grew, only the new
commits are; when a sync rebased it, the chain is cut back to the commit both
share and continues from there. A row whose id already appeared earlier in
the chain is skipped, so a row present twice is read once. A cold start loads
the cache file (cache.py) and then walks git only past what it held.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from hale_runtime.gc_pause import collector_paused
from hale_runtime.record import receipts, store
from hale_runtime.record.cache import Cache, Commit
from hale_runtime.record.errors import RecordError
from hale_runtime.record.identity import Clock, clone_id, default_who, wall_clock
from hale_runtime.record.row import Row, decode_line, new_row

if TYPE_CHECKING:
    from hale_runtime.record.sync import SyncReport

MAX_APPEND_TRIES = 500
PERSIST_BACKLOG = 64  # settled commits the cache may lag by before a write (see close())
_new = tuple.__new__  # a Row from a full tuple, without NamedTuple's argument parsing


def tracking_ref(remote: str) -> str:
    """Where this clone keeps the remote's record tip as last seen."""
    return f"refs/dna/remotes/{remote}/record"


class Record:
    """Append-only rows under `refs/dna/record` of one git repository."""

    def __init__(
        self, repo: pygit2.Repository, *, clock: Clock | None = None, who: str | None = None
    ):
        self.repo = repo
        self.clock: Clock = clock or wall_clock
        self.clone = clone_id(repo)
        self.who = who or default_who(self.clone)
        self._cache = Cache(repo.path)
        self._loaded = False
        self._tip: pygit2.Oid | None = None
        self._commits: list[Commit] = []
        self._pos: dict[str, int] = {}  # commit hex -> its index in _commits
        self._ends: list[int] = []  # rows in the chain up to and including each commit
        self._rows: list[Row] = []
        self._ids: dict[str, int] = {}  # row id -> seq

    @classmethod
    def open(
        cls, path: str | Path, *, clock: Clock | None = None, who: str | None = None
    ) -> Record:
        """The record of the git repository at or above `path`."""
        gitdir = pygit2.discover_repository(str(path))
        if gitdir is None:
            raise RecordError(f"{path} is not in a git repository, where the record lives")
        return cls(pygit2.Repository(gitdir), clock=clock, who=who)

    # ---- reading -------------------------------------------------------------

    def rows(
        self,
        since: int = 0,
        kind: str | Iterable[str] | None = None,
        key_prefix: str | None = None,
        stamped_only: bool = False,
    ) -> list[Row]:
        """Rows after cursor `since` (a seq), in chain order, optionally filtered."""
        self.refresh()
        end = self.stamped_count() if stamped_only else len(self._rows)
        selected = self._rows[max(since, 0) : end]
        if kind is not None:
            kinds = {kind} if isinstance(kind, str) else set(kind)
            selected = [r for r in selected if r.kind in kinds]
        if key_prefix:
            selected = [r for r in selected if r.key.startswith(key_prefix)]
        return selected

    def cursor(self, stamped_only: bool = False) -> int:
        """The seq of the last row (0 when empty): pass it as `since` to read what follows."""
        self.refresh()
        return self.stamped_count() if stamped_only else len(self._rows)

    def stamped_count(self) -> int:
        """How many rows, from the start of the chain, the remote holds (all with no remote)."""
        held = self._stamped_commits()
        return self._ends[held - 1] if held else 0

    def get(self, row_id: str) -> Row | None:
        """The row with this id, if the chain holds it."""
        self.refresh()
        seq = self._ids.get(row_id)
        return self._rows[seq - 1] if seq else None

    def remote(self) -> str | None:
        """The remote the record syncs with: `hale.remote`, else origin, else the only one."""
        names = [r.name for r in self.repo.remotes]
        chosen = self.repo.config["hale.remote"] if "hale.remote" in self.repo.config else None
        if chosen:
            return str(chosen)
        if "origin" in names:
            return "origin"
        return names[0] if names else None

    # ---- writing -------------------------------------------------------------

    def append(self, kind: str, key: str, body: dict[str, Any]) -> Row:
        """Write one row in one commit; the same row written before is returned as it stands."""
        return self.append_many([(kind, key, body)])[0]

    def append_many(self, items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[Row]:
        """Write rows as one commit (all or none), stamped with one time; one Row per item."""
        with collector_paused():
            return self._append_many(items)

    def _append_many(self, items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[Row]:
        at = self.clock()
        made = [new_row(kind, key, body, self.who, at, self.clone) for kind, key, body in items]
        fresh = [row for row, _ in made]
        lines = {row.id: line for row, line in made}
        for _ in range(MAX_APPEND_TRIES):
            tip = self.refresh()
            out, new = self._place(fresh)
            if not new:
                return out
            text = "".join([lines[r.id] + "\n" for r in new])
            oid = store.write_commit(self.repo, tip, text, self.who, at)
            if store.move_ref(self.repo, store.RECORD_REF, tip, oid):
                self._add(str(oid), str(tip) if tip else None, new)
                self._tip = oid
                self._persist()
                return out
        raise RecordError(f"{store.RECORD_REF} kept moving; {len(fresh)} row(s) not written")

    def _place(self, fresh: list[Row]) -> tuple[list[Row], list[Row]]:
        """(each item as it will read, the rows that are new) after dropping known ids."""
        ids, base = self._ids, len(self._rows)
        if len({r.id for r in fresh}) == len(fresh) and not any(r.id in ids for r in fresh):
            new = [_new(Row, (*r[:7], base + n)) for n, r in enumerate(fresh, 1)]
            return new, new
        out: list[Row] = []
        placed: dict[str, Row] = {}
        for row in fresh:
            seq = ids.get(row.id)
            if seq is None and row.id not in placed:
                placed[row.id] = row._replace(seq=base + len(placed) + 1)
            out.append(self._rows[seq - 1] if seq is not None else placed[row.id])
        return out, list(placed.values())

    # ---- receipts ------------------------------------------------------------

    def put_receipt(self, document: dict[str, Any]) -> str:
        """Store a receipt; its sha256 (of the canonical JSON) names it."""
        return receipts.put_receipt(self.repo, document)

    def get_receipt(self, digest: str) -> dict[str, Any]:
        """The receipt named by `digest` (RecordError when absent or damaged)."""
        return receipts.get_receipt(self.repo, digest)

    def receipts(self) -> list[str]:
        """Every receipt digest this clone holds."""
        return receipts.list_receipts(self.repo)

    # ---- sync ----------------------------------------------------------------

    def sync(self) -> SyncReport:
        """Exchange rows and receipts with the remote (see sync.py); no-op without one."""
        from hale_runtime.record.sync import sync

        return sync(self)

    # ---- the chain in memory -------------------------------------------------

    def refresh(self) -> pygit2.Oid | None:
        """Bring the in-memory chain to the ref's tip; returns the tip."""
        with collector_paused():
            return self._refresh()

    def _refresh(self) -> pygit2.Oid | None:
        if not self._loaded:
            self._load_cache()
        tip = store.read_ref(self.repo, store.RECORD_REF)
        if tip == self._tip:
            return tip
        if tip is None:
            self._cut(0)
        else:
            found, hit = store.walk_back(self.repo, tip, self._pos.__contains__, store.RECORD_REF)
            self._cut(self._pos[hit] + 1 if hit is not None else 0)
            for hexid, parent, text in found:
                self._add_text(hexid, parent, text)
        self._tip = tip
        self._persist()
        return tip

    def _load_cache(self) -> None:
        commits, rows = self._cache.load()
        self._loaded = True
        self._commits, self._rows = commits, rows
        self._pos = {c[0]: i for i, c in enumerate(commits)}
        self._ids = {r.id: r.seq for r in rows}
        total, self._ends = 0, []
        for c in commits:
            total += c[2]
            self._ends.append(total)

    def _cut(self, keep: int) -> None:
        """Forget the chain past its first `keep` commits."""
        if keep >= len(self._commits):
            return
        kept_rows = self._ends[keep - 1] if keep else 0
        for row in self._rows[kept_rows:]:
            del self._ids[row.id]
        for commit in self._commits[keep:]:
            del self._pos[commit[0]]
        del self._rows[kept_rows:], self._commits[keep:], self._ends[keep:]
        self._tip = pygit2.Oid(hex=self._commits[-1][0]) if self._commits else None

    def _add_text(self, hexid: str, parent: str | None, text: str) -> None:
        base = len(self._rows)
        new: list[Row] = []
        seen: set[str] = set()
        for line in text.split("\n")[:-1]:  # not splitlines: JSON leaves U+2028 raw
            row = decode_line(line, base + len(new) + 1, store.RECORD_REF)
            if row.id not in self._ids and row.id not in seen:
                seen.add(row.id)
                new.append(row)
        self._add(hexid, parent, new)

    def _add(self, hexid: str, parent: str | None, new: list[Row]) -> None:
        self._pos[hexid] = len(self._commits)
        self._commits.append((hexid, parent or "", len(new)))
        for row in new:
            self._ids[row.id] = row.seq
        self._rows.extend(new)
        self._ends.append(len(self._rows))

    def _stamped_commits(self) -> int:
        """How many commits of the chain, from its root, the remote holds."""
        remote = self.remote()
        if remote is None:
            return len(self._commits)
        seen = store.read_ref(self.repo, tracking_ref(remote))
        if seen is None or self._tip is None:
            return 0
        where = self._pos.get(str(seen))
        if where is None:
            base = self.repo.merge_base(self._tip, seen)
            where = self._pos.get(str(base)) if base is not None else None
        return where + 1 if where is not None else 0

    def _persist(self, force: bool = False) -> None:
        """Write settled commits to the cache once enough are waiting (or when forced)."""
        held = self._stamped_commits()
        if force or abs(held - self._cache.written) >= PERSIST_BACKLOG:
            self._cache.extend(self._commits, self._rows, held)

    def close(self) -> None:
        """Write what the cache still lacks; the Record stays usable."""
        self._persist(force=True)

    def __enter__(self) -> Record:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
