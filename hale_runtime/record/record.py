"""The Record: this clone's chain of rows, read incrementally and appended by CAS.

The chain lives in two parts. Its settled prefix (stamped commits) is in the
index (index.py), shared by every process of the clone and read by place,
kind or key; only the tail past it (rows not yet stamped, or too few yet to
be worth a write) is held in memory, so a process's memory does not grow
with the record's age. Every read first looks at the ref: when the tip is
the one it knows, nothing is decoded; when the chain grew, only the new
commits are (walked back from the tip to a commit it knows, then read
forward); when a sync rebased it, the chain is cut back to the commit both
share and continues from there. A row whose id already appeared earlier in
the chain is skipped, so a row present twice is read once. Once enough
stamped commits wait in the tail they move into the index and leave memory.
When the index cannot be used (a read-only .git) the whole chain stays in
memory, as it did before there was one.

An append is one commit and one journal frame, so a batch costs one
fdatasync however many rows it holds (journal.py): the engine's round, the
head's batch and the host's tick each call `append_many` once. `append`
returns only once its rows are on disk, and before the ref shows them to
anyone, unless HALE_DNA_DURABILITY=relaxed (tests and benches only). The
first read of a Record recovers journalled rows a power loss took from the
chain.

Each row is checked against its kind (kinds.py) as it joins the chain, and
one that does not fit is *poison*: it keeps its place (its seq), but reads
leave it out unless asked (`poison=True`), so no reader applies it;
`poison_of` says why, `poison_rows` lists them. A line that is no row at
all is read as a `row.unreadable` row, poison too. The verdicts move into
the index with their rows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from hale_runtime import durability
from hale_runtime.gc_pause import collector_paused
from hale_runtime.record import kinds as row_kinds
from hale_runtime.record import loose, receipts, store
from hale_runtime.record.authority import Authority, written
from hale_runtime.record.errors import RecordError, RowRefused
from hale_runtime.record.identity import Clock, clone_id, default_who, wall_clock
from hale_runtime.record.index import Commit, Index, IndexFailed, key_ranges, prefix_range
from hale_runtime.record.journal import Journal
from hale_runtime.record.keys import SigningKey
from hale_runtime.record.row import Row, decode_line, new_row, rows_in
from hale_runtime.record.signing import SIGNED
from hale_runtime.record.trust import STATE_KINDS as TRUST_STATE
from hale_runtime.record.trust import Trust

if TYPE_CHECKING:
    from hale_runtime.record.sync import SyncReport

MAX_APPEND_TRIES = 500
PERSIST_BACKLOG = 64  # stamped commits the tail may hold before they move into the index
PERSIST_ROWS = 20_000  # ... or stamped rows
PERSIST_READ = 1_000  # ... or this many were just decoded from git (others' rows)
READ_CHUNK = 256  # commits read from git at a time when the chain grew a lot
Ranges = Sequence[tuple[str, str | None]]
_new = tuple.__new__  # a Row from a full tuple, without NamedTuple's argument parsing


def tracking_ref(remote: str) -> str:
    """Where this clone keeps the remote's record tip as last seen."""
    return f"refs/dna/remotes/{remote}/record"


class Record:
    """Append-only rows under `refs/dna/record` of one git repository."""

    def __init__(
        self,
        repo: pygit2.Repository,
        *,
        clock: Clock | None = None,
        who: str | None = None,
        sign: SigningKey | None | bool = True,
    ):
        self.repo = repo
        self._authority = Authority(sign)  # signs appends, judges what joins (authority.py)
        self.clock: Clock = clock or wall_clock
        self.clone = clone_id(repo)
        self.who = who or default_who(self.clone)
        try:
            self.durable = durability.durable()
        except durability.UnknownDurability as exc:
            raise RecordError(str(exc)) from exc
        self._journal = Journal(loose.common_dir(repo) / "hale")
        self._index: Index | None = None
        self._writable = True  # whether the tail may still move into the index
        self._loaded = False
        self._tip: pygit2.Oid | None = None
        self._base: tuple[int, int, str] = (0, 0, "")  # commits, rows, last hex in the index
        self._commits: list[Commit] = []  # the tail: commits past the base
        self._pos: dict[str, int] = {}  # tail commit hex -> its place in the whole chain
        self._ends: list[int] = []  # rows in the chain up to and including each tail commit
        self._rows: list[Row] = []
        self._ids: dict[str, int] = {}  # tail row id -> seq
        self._poison: dict[str, str] = {}  # tail row id -> why it does not fit its kind
        self._config = loose.common_dir(repo) / "config"
        self._remote_seen: tuple[tuple[int, int] | None, str | None] | None = None

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        clock: Clock | None = None,
        who: str | None = None,
        sign: SigningKey | None | bool = True,
    ) -> Record:
        """The record of the git repository at or above `path`."""
        gitdir = pygit2.discover_repository(str(path))
        if gitdir is None:
            raise RecordError(f"{path} is not in a git repository, where the record lives")
        return cls(pygit2.Repository(gitdir), clock=clock, who=who, sign=sign)

    # ---- reading -------------------------------------------------------------

    def rows(
        self,
        since: int = 0,
        kind: str | Iterable[str] | None = None,
        key_prefix: str | None = None,
        stamped_only: bool = False,
        key: str | None = None,
        poison: bool = False,
        signatures: bool = False,
    ) -> list[Row]:
        """Rows after cursor `since` (a seq), in chain order, optionally filtered:
        by kind, by the text a key starts with, or by one exact key; rows that
        do not fit their kind only when `poison`."""
        ranges: list[tuple[str, str | None]] = []
        if key is not None:
            ranges.append((key, key + "\x00"))
        elif key_prefix:
            ranges.append(prefix_range(key_prefix))
        return list(
            self.scan(since, kind, ranges, stamped_only, poison=poison, signatures=signatures)
        )

    def under(
        self,
        key: str,
        separators: str,
        kind: str | Iterable[str] | None = None,
        until: int | None = None,
    ) -> list[Row]:
        """The rows of `key` and of every key below it (`key` then one of
        `separators`: `t1` and `t1/wf1/s0`, not `t10`), through the index;
        only those up to seq `until` when given."""
        return list(self.scan(0, kind, key_ranges(key, separators), until=until))

    def scan(
        self,
        since: int = 0,
        kind: str | Iterable[str] | None = None,
        ranges: Ranges = (),
        stamped_only: bool = False,
        until: int | None = None,
        poison: bool = False,
        signatures: bool = False,
    ) -> Iterator[Row]:
        """Rows after `since` (and up to `until`) in chain order, yielded as read
        (a fold over a long record holds one chunk at a time); `ranges` are
        [low, high) of keys. The rows that do not fit their kind or were refused
        only with `poison`; a batch's signature rows only with `signatures` (or
        when `kind` names them)."""
        self.refresh()
        kinds = None if kind is None else ([kind] if isinstance(kind, str) else list(kind))
        end = self.stamped_count() if stamped_only else self._count_rows()
        if until is not None:
            end = min(end, until)
        base_rows = self._base[1]
        if since < base_rows and self._index is not None:
            yield from self._index.scan(
                since, min(end, base_rows), kinds, ranges, poison, signatures
            )
        first = max(since, base_rows) - base_rows
        tail = self._rows[first : max(end - base_rows, 0)]
        if self._poison and not poison:
            bad = self._poison
            tail = [r for r in tail if r.id not in bad]
        if kinds is None and not signatures:
            tail = [r for r in tail if r.kind != SIGNED]
        if kinds is not None:
            wanted = set(kinds)
            tail = [r for r in tail if r.kind in wanted]
        if ranges:
            tail = [r for r in tail if _within(r.key, ranges)]
        yield from tail

    def cursor(self, stamped_only: bool = False) -> int:
        """The seq of the last row (0 when empty): pass it as `since` to read what follows."""
        self.refresh()
        return self.stamped_count() if stamped_only else self._count_rows()

    def stamped_count(self) -> int:
        """How many rows, from the start of the chain, the remote holds (all with no remote)."""
        held = self._stamped_commits()
        return self._end(held - 1) if held else 0

    def poison_of(self, row: Row) -> str:
        """Why `row` does not fit its kind ("" when it does, or is not in the chain)."""
        self.refresh()
        if row.id in self._ids:
            return self._poison.get(row.id, "")
        if self._index is not None and self._base[1]:
            return self._index.poison_of(row.id, self._base[1])
        return ""

    def poison_rows(self, since: int = 0, until: int | None = None) -> Iterator[tuple[Row, str]]:
        """(row, why) of every row after `since` (up to `until`) that does not fit its kind."""
        self.refresh()
        base_rows = self._base[1]
        end = self._count_rows() if until is None else min(until, self._count_rows())
        if since < base_rows and self._index is not None:
            yield from self._index.poison(since, min(end, base_rows))
        for row in self._rows[max(since, base_rows) - base_rows : max(end - base_rows, 0)]:
            why = self._poison.get(row.id)
            if why:
                yield row, why

    def get(self, row_id: str) -> Row | None:
        """The row with this id, if the chain holds it."""
        self.refresh()
        return self._held(row_id)

    def _held(self, row_id: str) -> Row | None:
        """`get` as the chain is held, not refreshed (for the fold, mid-read)."""
        seq = self._ids.get(row_id)
        if seq is not None:  # a row of the commit being joined is not held yet
            at = seq - self._base[1] - 1
            return self._rows[at] if at < len(self._rows) else None
        return self._index.get(row_id, self._base[1]) if self._index is not None else None

    def kinds(self) -> set[str]:
        """Every kind of row the chain holds."""
        self.refresh()
        found = set(self._index.kinds()) if self._index is not None and self._base[1] else set()
        return found | {r.kind for r in self._rows}

    def admission(self, ask: str) -> Row | None:
        """The first `workflow.admitted` row under `ask` (the index keeps them by ask)."""
        self.refresh()
        if self._index is not None and self._base[1]:
            found = self._index.admission(ask, self._base[1])
            if found is not None:
                return found
        for row in self._rows:
            if row.kind == row_kinds.WORKFLOW_ADMITTED and row.body.get("ask") == ask:
                if row.id not in self._poison:
                    return row
        return None

    def open_keys(self, group: str) -> list[tuple[str, int, int]]:
        """(key, seq, at) of each key a row of the group's opening kinds opened
        and none of its closing kinds closed (kinds.OPEN_UNTIL), in the order
        they opened: the index's table, then the tail. What it reads grows with
        the open keys and the tail, not with the record's age."""
        self.refresh()
        opens, closes = row_kinds.OPEN_UNTIL[group]
        base_rows, index = self._base[1], self._index
        found = {k: (seq, at) for k, seq, at in (index.open_keys(group) if index else [])}
        closed: set[str] = set()
        for row in self.scan(base_rows, [*opens, *closes]):
            if row.kind in closes:
                found.pop(row.key, None)
                closed.add(row.key)
            elif row.key not in found and row.key not in closed:
                if not (index and base_rows and index.closed(group, row.key, base_rows)):
                    found[row.key] = (row.seq, row.at)
        return sorted(((k, seq, at) for k, (seq, at) in found.items()), key=lambda t: t[1])

    def row_at(self, seq: int) -> Row | None:
        """The row at place `seq` of the chain (None past its end)."""
        self.refresh()
        base_rows = self._base[1]
        if seq > base_rows:
            at = seq - base_rows - 1
            return self._rows[at] if at < len(self._rows) else None
        return self._index.row_at(seq) if self._index is not None and seq > 0 else None

    def remote(self) -> str | None:
        """The remote the record syncs with: `hale.remote`, else origin, else the only one.

        Asked at every read of the stamped prefix, so the answer is kept until the
        repository's config file changes (a stat, where listing remotes parses it)."""
        try:
            stat = self._config.stat()
            version: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            version = None
        cached = self._remote_seen
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        chosen = self._choose_remote()
        self._remote_seen = (version, chosen)
        return chosen

    def _choose_remote(self) -> str | None:
        names = [r.name for r in self.repo.remotes]
        chosen = self.repo.config["hale.remote"] if "hale.remote" in self.repo.config else None
        if chosen:
            return str(chosen)
        if "origin" in names:
            return "origin"
        return names[0] if names else None

    # ---- authority -----------------------------------------------------------

    @property
    def trust(self) -> Trust:
        """Who may write what, as the chain stands at its tip (trust.py)."""
        self.refresh()
        return self.trust_now()

    def trust_now(self) -> Trust:
        """The fold at the chain as held (made from the index and tail when needed)."""
        stored: Iterable[Row] = ()
        if self._index is not None and self._base[1]:
            stored = self._index.scan(0, self._base[1], list(TRUST_STATE))
        return self._authority.made(stored, self._rows, self._poison, self._held)

    @property
    def signer(self) -> SigningKey | None:
        """The key this record signs its appends with (None: they go unsigned)."""
        return self._authority.signer

    @property
    def unsigned_why(self) -> str:
        """Why this record's appends go unsigned ("" while they are signed)."""
        return "" if self.signer is not None else self._authority.unsigned_why

    def judge(self, kind: str, key: str, body: dict[str, Any]) -> str:
        """Why a row this writer would append now is refused ("" when it would stand)."""
        row, _ = new_row(kind, key, body, self.who, self.clock(), self.clone)
        why = self.trust.judge(row, self._authority.proof())
        return f"refused: {why}" if why else ""

    # ---- writing -------------------------------------------------------------

    def append(self, kind: str, key: str, body: dict[str, Any]) -> Row:
        """Write one row in one commit; the same row written before is returned as it stands."""
        return self.append_many([(kind, key, body)])[0]

    def append_many(
        self, items: Iterable[tuple[str, str, dict[str, Any]]], checked: bool = False
    ) -> list[Row]:
        """Write rows as one commit (all or none), stamped with one time; one Row per item.
        Each is checked against its kind (RowRefused, nothing written) unless the
        caller `checked` kind, key and body already."""
        with collector_paused():
            return self._append_many(items, checked)

    def _append_many(
        self, items: Iterable[tuple[str, str, dict[str, Any]]], checked: bool
    ) -> list[Row]:
        at = self.clock()
        why = row_kinds.check_writer(self.who, at, self.clone) if checked else ""
        if why:
            raise RowRefused(f"this record's writer is refused: {why}")
        made = [
            new_row(kind, key, body, self.who, at, self.clone, checked) for kind, key, body in items
        ]
        return self._write(made, at)

    def sealed(self, items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, str]]:
        """Rows made, judged and signed as `append_many` would write them, but not
        written: (id, stored line) each, every signature row before the rows it
        covers. What a writer hands to a store the record adopted (the ledger),
        so the rows keep their writer's proof when they are carried here."""
        at = self.clock()
        made = [new_row(kind, key, body, self.who, at, self.clone) for kind, key, body in items]
        lines = {row.id: line for row, line in made}
        store.refuse_past_max(lines.values())
        self.refresh()
        batch, signatures = self._authority.seal(
            self.trust_now(), [row for row, _ in made], self.who, at, self.clone
        )
        lines.update(signatures)
        return [(row.id, lines[row.id]) for row in batch]

    def carry(
        self, lines: Iterable[str], refused: list[tuple[int, str]] | None = None
    ) -> list[Row]:
        """Write rows made elsewhere (an adopted ledger's: ledger/), each exactly as it
        was made, so its id, writer and time stay; one commit, as an append is.
        Nothing is signed here: a row keeps the signature row its writer made
        with it (`sealed`), carried in the same commit, and each joins the chain
        as a row read from git does, judged by what that signature proves (an
        authority row it does not prove is poison, for the organization to
        quarantine). A line that is no row, or does not fit its kind, is
        RowRefused with nothing written; or, given `refused`, left out and
        listed there as (its place among `lines`, why)."""
        made = []
        for n, line in enumerate(lines):
            try:
                row = decode_line(line, 0, "a carried row")
                why = row_kinds.check_row(*row[:6])
                if why:
                    raise RowRefused(f"a {row_kinds.shown(row.kind)} row is refused: {why}")
            except (RecordError, RowRefused) as error:
                if refused is None:
                    raise RowRefused(str(error)) from None
                refused.append((n, str(error)))
                continue
            made.append((row, line))
        with collector_paused():
            return self._write(made, self.clock(), carried=True)

    def _write(self, made: list[tuple[Row, str]], at: int, carried: bool = False) -> list[Row]:
        """One commit of these rows (ids already known ones dropped), durable; signed
        by this writer, or, `carried`, as they came (judged as rows read from git)."""
        fresh = [row for row, _ in made]
        lines = {row.id: line for row, line in made}
        store.refuse_past_max(lines.values())
        with self._journal.locked() if self.durable else contextlib.nullcontext():
            for _ in range(MAX_APPEND_TRIES):
                tip = self.refresh()
                out, new = self._place(fresh)
                if not new:
                    return out
                if carried:
                    batch, signatures = new, {}
                else:
                    batch, signatures = self._authority.seal(
                        self.trust_now(), new, self.who, at, self.clone
                    )
                lines.update(signatures)
                if len(batch) != len(new):
                    new, placed = written(batch, self._count_rows())
                    out = [placed.get(r.id, r) for r in out]
                text = "".join([lines[r.id] + "\n" for r in new])
                oid = store.write_commit(self.repo, tip, text, self.who, at, durable=False)
                store.pause_for_tests(oid, store.PAUSE_ENV)
                if self.durable:
                    self._journal.write(text)  # durable from here, before the ref shows it
                    store.pause_for_tests(oid, store.JOURNALLED_PAUSE_ENV)
                if store.move_ref(self.repo, store.RECORD_REF, tip, oid, durable=False):
                    self._add(str(oid), str(tip) if tip else None, new, checked=not carried)
                    self._tip = oid
                    self._persist()
                    if self.durable and self._journal.full():
                        self._journal.settle(str(oid))
                    return out
        raise RecordError(f"{store.RECORD_REF} kept moving; {len(fresh)} row(s) not written")

    def _place(self, fresh: list[Row]) -> tuple[list[Row], list[Row]]:
        """(each item as it will read, the rows that are new) after dropping known ids."""
        base = self._count_rows()
        known = self._known(r.id for r in fresh)
        if len({r.id for r in fresh}) == len(fresh) and not known:
            new = [_new(Row, (*r[:7], base + n)) for n, r in enumerate(fresh, 1)]
            return new, new
        out: list[Row] = []
        placed: dict[str, Row] = {}
        for row in fresh:
            seq = known.get(row.id)
            if seq is None and row.id not in placed:
                placed[row.id] = row._replace(seq=base + len(placed) + 1)
            out.append(self._row(seq) if seq is not None else placed[row.id])
        return out, list(placed.values())

    def _row(self, seq: int) -> Row:
        base_rows = self._base[1]
        if seq > base_rows:
            return self._rows[seq - base_rows - 1]
        assert self._index is not None
        found = self._index.row_at(seq)
        assert found is not None
        return found

    # ---- receipts ------------------------------------------------------------

    def put_receipt(self, document: dict[str, Any]) -> str:
        """Store a receipt; its sha256 (of the canonical JSON) names it."""
        return receipts.put_receipt(self.repo, document, self.durable)

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

    def position(self, hexid: str) -> int | None:
        """The place of commit `hexid` in this chain (0 for the root), if it is in it."""
        at = self._pos.get(hexid)
        if at is None and self._index is not None:
            at = self._index.position(hexid, self._base[0])
        return at

    def rows_past(self, position: int | None) -> list[Row]:
        """The rows of the commits after the one at `position` (None: every row),
        poison included."""
        since = self.rows_through(position) if position is not None else 0
        return list(self.scan(since, poison=True, signatures=True))

    def rows_through(self, position: int) -> int:
        """How many rows the chain holds up to and including the commit at `position`."""
        return self._end(position)

    # ---- the chain in memory -------------------------------------------------

    def _count_rows(self) -> int:
        return self._base[1] + len(self._rows)

    def _count_commits(self) -> int:
        return self._base[0] + len(self._commits)

    def _end(self, position: int) -> int:
        """The rows in the chain up to and including the commit at `position`."""
        if position < 0:
            return 0
        if position >= self._base[0]:
            return self._ends[position - self._base[0]]
        assert self._index is not None
        return self._index.end_of(position)

    def _known(self, ids: Iterable[str]) -> dict[str, int]:
        """id -> seq of those `ids` the chain already holds."""
        wanted = list(ids)
        found = {i: self._ids[i] for i in wanted if i in self._ids}
        if self._index is not None and self._base[1]:
            found.update(self._index.known([i for i in wanted if i not in found], self._base[1]))
        return found

    def refresh(self) -> pygit2.Oid | None:
        """Bring the in-memory chain to the ref's tip; returns the tip."""
        with collector_paused():
            return self._refresh()

    def _refresh(self) -> pygit2.Oid | None:
        if not self._loaded:
            self._load()
            self._recover()
        tip = store.read_ref(self.repo, store.RECORD_REF, self._tip)
        if tip == self._tip:
            return tip
        if self._index is not None and not self._index.holds(self._base[0], self._base[2]):
            self._reset()  # another process cut the index (a rewritten remote)
        before = self._count_rows()
        if tip is None:
            self._cut(0)
        else:
            self._grow(tip)
        self._tip = tip
        # rows others wrote, decoded here from git: once many, every later reader
        # would decode them again (`show` in a fresh process), so they move in now
        self._persist(force=self._count_rows() - before >= PERSIST_READ)
        return tip

    def _grow(self, tip: pygit2.Oid) -> None:
        """Decode the commits from the first one this chain knows up to `tip`."""
        known = self.position
        found, hit = store.chain_back(
            self.repo, tip, lambda h: known(h) is not None, store.RECORD_REF
        )
        self._cut(known(hit) + 1 if hit is not None else 0)  # type: ignore[operator]
        for at in range(0, len(found), READ_CHUNK):
            for hexid, _ in found[at : at + READ_CHUNK]:
                oid = pygit2.Oid(hex=hexid)
                parent_hex, content = store.commit_content(self.repo, oid, store.RECORD_REF)
                self._add_read(hexid, parent_hex, rows_in(hexid, content, store.RECORD_REF))
            self._persist(upto_tip=pygit2.Oid(hex=found[min(at + READ_CHUNK, len(found)) - 1][0]))

    def _load(self) -> None:
        self._loaded = True
        try:
            self._index = Index(self.repo.path)
            self._base = self._index.end()
        except IndexFailed:
            self._index, self._base = None, (0, 0, "")
        self._tip = pygit2.Oid(hex=self._base[2]) if self._base[2] else None

    def _recover(self) -> None:
        """Append the journalled rows the chain lacks (a power loss took them); see journal.py."""
        _, texts = self._journal.read()
        if not texts:
            return
        try:
            if not self._lacking(texts):
                return
        except RecordError:
            pass  # a chain naming objects the disk lost: set back below
        with self._journal.locked():  # no append is half done while we look
            settled, texts = self._journal.read()
            try:
                tip = self._refresh()
            except RecordError:
                if settled is None:
                    raise
                store.set_ref(self.repo, store.RECORD_REF, pygit2.Oid(hex=settled))
                tip = self._refresh()
            lacking = self._lacking(texts)
            if lacking:
                text = "".join(line + "\n" for line in lacking)
                oid = store.write_commit(self.repo, tip, text, self.who, self.clock())
                if not store.move_ref(self.repo, store.RECORD_REF, tip, oid):
                    raise RecordError(f"{store.RECORD_REF} moved while its journal was recovered")
                self._refresh()
            self._journal.settle(str(self._tip) if self._tip else None)

    def _lacking(self, texts: list[str]) -> list[str]:
        """Journalled lines whose rows the chain does not hold (each checked, once)."""
        self._refresh()
        lines: dict[str, str] = {}
        for text in texts:
            for line in text.split("\n")[:-1]:
                lines.setdefault(decode_line(line, 0, self._journal.path.name).id, line)
        known = self._known(lines)
        return [line for row_id, line in lines.items() if row_id not in known]

    def _reset(self) -> None:
        """Forget the chain and read the index afresh."""
        self._commits, self._pos, self._ends, self._rows, self._ids = [], {}, [], [], {}
        self._poison = {}
        self._authority.forget()
        if self._index is not None:
            self._index.close()
        self._load()

    def _cut(self, keep: int) -> None:
        """Forget the chain past its first `keep` commits."""
        if keep >= self._count_commits():
            return
        base_commits, base_rows, _ = self._base
        if keep < base_commits:
            assert self._index is not None
            last = self._index.hex_at(keep - 1) if keep else ""
            self._index.cut(keep)
            self._base = (keep, self._index.end_of(keep - 1) if keep else 0, last)
            self._commits, self._pos, self._ends, self._rows, self._ids = [], {}, [], [], {}
            self._poison = {}
        else:
            t = keep - base_commits
            kept_rows = self._ends[t - 1] - base_rows if t else 0
            for row in self._rows[kept_rows:]:
                del self._ids[row.id]
                self._poison.pop(row.id, None)
            for commit in self._commits[t:]:
                del self._pos[commit[0]]
            del self._rows[kept_rows:], self._commits[t:], self._ends[t:]
        self._authority.forget()
        last_hex = self._commits[-1][0] if self._commits else self._base[2]
        self._tip = pygit2.Oid(hex=last_hex) if last_hex else None

    def _add_read(self, hexid: str, parent: str | None, decoded: list[Row]) -> None:
        """Join a commit read from git, leaving out rows the chain already holds."""
        base = self._count_rows()
        known = self._known(r.id for r in decoded)
        new: list[Row] = []
        seen: set[str] = set()
        for row in decoded:
            if row.id not in known and row.id not in seen:
                seen.add(row.id)
                new.append(_new(Row, (*row[:7], base + len(new) + 1)))
        self._add(hexid, parent, new)

    def _add(self, hexid: str, parent: str | None, new: list[Row], checked: bool = False) -> None:
        """Join a commit's rows to the chain; unless `checked` (written here, so
        checked at the door), each is checked against its kind."""
        self._pos[hexid] = self._count_commits()
        self._commits.append((hexid, parent or "", len(new)))
        for row in new:
            self._ids[row.id] = row.seq
            if not checked:
                why = row_kinds.check_row(*row[:6])
                if why:
                    self._poison[row.id] = why
        if checked:
            self._authority.took(self._authority.trust, new)
        else:
            self._authority.join(self.trust_now, new, self._poison)
        self._rows.extend(new)
        self._ends.append(self._count_rows())

    def _stamped_commits(self, tip: pygit2.Oid | None = None) -> int:
        """How many commits of the chain, from its root, the remote holds."""
        remote = self.remote()
        if remote is None:
            return self._count_commits()
        seen = store.read_ref(self.repo, tracking_ref(remote))
        tip = tip or self._tip
        if seen is None or tip is None:
            return 0
        where = self.position(str(seen))
        if where is None:
            base = self.repo.merge_base(tip, seen)
            where = self.position(str(base)) if base is not None else None
        return where + 1 if where is not None else 0

    def _persist(self, force: bool = False, upto_tip: pygit2.Oid | None = None) -> None:
        """Move stamped tail commits into the index once enough wait (or when forced)."""
        if self._index is None or not self._writable or not self._commits:
            return
        base_commits, base_rows, base_hex = self._base
        upto = min(self._stamped_commits(upto_tip), self._count_commits()) - base_commits
        if upto <= 0:
            return
        rows = self._ends[upto - 1] - base_rows
        if not force and upto < PERSIST_BACKLOG and rows < PERSIST_ROWS:
            return
        try:
            moving = self._rows[:rows]
            self._index.extend((base_commits, base_hex), self._commits[:upto], moving, self._poison)
        except IndexFailed:
            self._writable = self._index.holds(base_commits, base_hex)
            return  # cut under us: the next refresh reads afresh; else stop writing it
        for row in self._rows[:rows]:
            del self._ids[row.id]
            self._poison.pop(row.id, None)
        for commit in self._commits[:upto]:
            del self._pos[commit[0]]
        self._base = (base_commits + upto, self._ends[upto - 1], self._commits[upto - 1][0])
        del self._rows[:rows], self._commits[:upto], self._ends[:upto]

    def close(self) -> None:
        """Move what is stamped into the index, settle the journal; the Record stays usable."""
        self._persist(force=True)
        if self._journal.wrote:
            with self._journal.locked():
                tip = store.read_ref(self.repo, store.RECORD_REF)
                self._journal.settle(str(tip) if tip else None)
        self._journal.close()

    def __enter__(self) -> Record:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _within(key: str, ranges: Ranges) -> bool:
    for low, high in ranges:
        if key >= low and (high is None or key < high):
            return True
    return False
