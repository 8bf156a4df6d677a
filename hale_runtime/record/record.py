"""The Record: this clone's chain of rows, read incrementally and appended by CAS.

The chain lives in two parts, an indexed prefix shared by the clone's
processes and a tail held in memory; chain.py reads it from git and keeps
it, across the rebases a sync makes, at a cost that does not grow with the
record's age.

An append is one commit and one journal frame, so a batch costs one
fdatasync however many rows it holds (journal.py): the engine's round, the
head's batch and the host's tick each call `append_many` once. `append`
returns only once its rows are on disk, and before the ref shows them to
anyone, unless HALE_DNA_DURABILITY=relaxed (tests and benches only). The
first read of a Record recovers journalled rows a power loss took from the
chain.

Inside `held()` (an engine's pump) each append is still journalled, so
durable, before it returns, but its rows reach git as one commit when the
hold ends (or `publish()`, or HOLD_S into it): a round costs its fdatasync
and no file made in git, where a commit makes four (three objects and the
ref's lock). The hold keeps the journal's lock, so no other hale writer of
this clone appends in between; readers in other processes see the held rows
when they are published, and a process killed while holding leaves them in
the journal, where the next open recovers them.

Each row is checked against its kind (kinds.py) as it joins the chain, and
one that does not fit is *poison*: it keeps its place (its seq), but reads
leave it out unless asked (`poison=True`), so no reader applies it;
`poison_of` says why, `poison_rows` lists them. A line that is no row at
all is read as a `row.unreadable` row, poison too. The verdicts move into
the index with their rows.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from hale_lang.gc_pause import collector_paused
from hale_runtime import durability
from hale_runtime.record import kinds as row_kinds
from hale_runtime.record import loose, receipts, signing, snapshot, store
from hale_runtime.record.authority import Authority, written
from hale_runtime.record.chain import Chain
from hale_runtime.record.epochs import Epochs, stamp
from hale_runtime.record.errors import RecordError, RowRefused
from hale_runtime.record.identity import Clock, clone_id, default_who, wall_clock
from hale_runtime.record.index import key_ranges, prefix_range
from hale_runtime.record.journal import Journal
from hale_runtime.record.keys import SigningKey
from hale_runtime.record.row import Row, decode_line, new_row
from hale_runtime.record.signing import SIGNED
from hale_runtime.record.trust import STATE_KINDS as TRUST_STATE
from hale_runtime.record.trust import Trust

if TYPE_CHECKING:
    from hale_runtime.record.sync import SyncReport

MAX_APPEND_TRIES = 500
HOLD_S = 0.05  # a hold publishes, and lets other writers in, this long after it began
Ranges = Sequence[tuple[str, str | None]]
_new = tuple.__new__  # a Row from a full tuple, without NamedTuple's argument parsing


class Record(Chain):
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
        self._chain_init()
        self._config = loose.common_dir(repo) / "config"
        self._holding: float | None = None  # when the hold (or its last publish) began
        self._remote_seen: tuple[tuple[int, int] | None, str | None] | None = None
        self.epoch: tuple[str, int] | None = None  # (lease ref, token) appends carry (epochs.py)
        self.guard: Callable[[], None] | None = None  # called before each append (the lease)
        self._epochs: Epochs | None = None

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

    def stale(self, row: Row) -> str:
        """Why `row` is void under the epoch rule ("" when it counts: epochs.py)."""
        if self._epochs is None:
            self._epochs = Epochs(self)
        return self._epochs.stale(row)

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
        return self._authority.made(stored, self._rows, self._poison, self._held, self._signer_of)

    def _signer_of(self, row: Row, trust: Trust) -> str:
        """The fingerprint whose signature covers `row` ("" when none verifies): the
        nearest signature row before it, when it lists the row (signing.py)."""
        genesis = self._held(trust.record) if trust.record else None
        for seq in range(row.seq - 1, max(row.seq - signing.MOST - 2, 0), -1):
            found = self._row(seq)
            if found.kind == signing.SIGNED:
                ids = found.body.get("ids")
                if not isinstance(ids, list) or row.id not in ids:
                    return ""
                bound = trust.record if genesis is not None and seq > genesis.seq else ""
                return signing.check(found.body, bound).fingerprint
        return ""

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
        if self.guard is not None:
            self.guard()
        at = self.clock()
        why = row_kinds.check_writer(self.who, at, self.clone) if checked else ""
        if why:
            raise RowRefused(f"this record's writer is refused: {why}")
        epoch = self.epoch
        made = [
            new_row(kind, key, stamp(body, epoch), self.who, at, self.clone, checked)
            for kind, key, body in items
        ]
        return self._write(made, at)

    def sealed(self, items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, str]]:
        """Rows made, judged and signed as `append_many` would write them, but not
        written: (id, stored line) each, every signature row before the rows it
        covers. What a writer hands to a store the record adopted (the ledger),
        so the rows keep their writer's proof when they are carried here."""
        at = self.clock()
        made = [
            new_row(kind, key, stamp(body, self.epoch), self.who, at, self.clone)
            for kind, key, body in items
        ]
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

    # ---- holding rows back from git ------------------------------------------

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Appends inside are durable as ever, but reach git as one commit at the end
        (see the module's comment). Re-entrant; with relaxed durability a no-op."""
        if not self.durable or self._holding is not None:
            yield
            return
        with self._journal.locked():
            self._holding = time.monotonic()
            try:
                yield
            finally:
                self._holding = None
                self.publish()

    @contextlib.contextmanager
    def unheld(self) -> Iterator[None]:
        """Inside a hold, a stretch where it is let go: the held rows published, the
        journal's lock given up (other writers come in), each append its own
        commit; the hold goes on after it."""
        if self._holding is None:
            yield
            return
        self.publish()
        self._holding = None
        try:
            with self._journal.released():
                yield
        finally:
            self._holding = time.monotonic()

    def publish(self) -> None:
        """Write the held rows to git as one commit and move the ref to it (they are
        durable already, in the journal); when the ref moved, on its new tip."""
        if not self._pending:
            return
        with self._journal.locked(), collector_paused():
            for _ in range(MAX_APPEND_TRIES):
                tip = self._refresh()  # the held rows go back on top of a moved ref
                text = "".join([line + "\n" for line in self._pending])
                oid = store.write_commit(self.repo, tip, text, self.who, self.clock(), False)
                if store.move_ref(self.repo, store.RECORD_REF, tip, oid, durable=False):
                    self._written(oid)
                    self._persist()
                    if self._journal.full():
                        self._journal.settle(str(oid))
                    return
        raise RecordError(f"{store.RECORD_REF} kept moving; the held rows wait in the journal")

    def _held_write(self, new: list[Row], text: str) -> None:
        """A held append: journalled, joined to the pending commit; past HOLD_S the
        hold publishes and lets the clone's other writers take the lock."""
        self._journal.write(text)  # durable from here
        self._hold(new, text.split("\n")[:-1])
        assert self._holding is not None
        if time.monotonic() - self._holding >= HOLD_S:
            self.publish()
            self._journal.let_others_in()
            self._holding = time.monotonic()

    def _write(self, made: list[tuple[Row, str]], at: int, carried: bool = False) -> list[Row]:
        """One commit of these rows (ids already known ones dropped), durable; signed
        by this writer, or, `carried`, as they came (judged as rows read from git).
        Held (`held`), they join the pending commit instead; a carry publishes first."""
        fresh = [row for row, _ in made]
        lines = {row.id: line for row, line in made}
        store.refuse_past_max(lines.values())
        with self._journal.locked() if self.durable else contextlib.nullcontext():
            hold = self._holding is not None and not carried
            if not hold:
                self.publish()
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
                if hold:
                    self._held_write(new, text)
                    return out
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

        self.publish()
        report = sync(self)
        if report.remote is not None:
            self.share_index(report.remote)
        return report

    def share_index(self, remote: str, force: bool = False) -> str:
        """Publish the index's stamped prefix to `remote` as a snapshot a new clone
        starts from (snapshot.py), once EVERY_ROWS stamped rows are past the last one
        (or when `force`). Only the genesis key's snapshots are used, so only its
        holder publishes. "" when one was pushed or none was due, else why not."""
        from hale_runtime.record.sync import GIT_TIMEOUT_S

        signer = self.signer
        if signer is None or self.trust.genesis != signer.fingerprint:
            return "only the genesis key's holder publishes the index"
        self._persist(force=True)
        if self._index is None or self._base[1] == 0:
            return "no index to publish"
        if (
            not force
            and self._base[1] - snapshot.last_rows(self.repo, remote) < snapshot.EVERY_ROWS
        ):
            return ""
        hexid = snapshot.write(self.repo, self._index.db, signer)
        return snapshot.push(self.repo, remote, hexid, GIT_TIMEOUT_S)

    def rows_past(self, position: int | None) -> list[Row]:
        """The rows of the commits after the one at `position` (None: every row),
        poison included."""
        since = self.rows_through(position) if position is not None else 0
        return list(self.scan(since, poison=True, signatures=True))

    def close(self) -> None:
        """Move what is stamped into the index, settle the journal; the Record stays usable."""
        self.publish()
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
