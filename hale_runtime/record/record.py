"""The Record: this clone's chain of rows, read incrementally and appended by CAS.

The chain lives in two parts, an indexed prefix shared by the clone's
processes and a tail held in memory; chain.py reads it from git and keeps
it, across the rebases a sync makes, at a cost that does not grow with the
record's age.

Reads (reading.py) answer from the index and the tail; writes (writing.py)
append rows as one commit and one journal frame each, durable before the ref
shows them. The first read of a Record recovers journalled rows a power loss
took from the chain. Here: the Record made, its authority, holds, receipts,
sync and the index it shares (snapshot.py).

Inside `held()` (an engine's pump) each append is still journalled, so
durable, before it returns, but its rows reach git as one commit when the
hold ends (or `publish()`, or HOLD_S into it): a round costs its fdatasync
and no file made in git, where a commit makes four (three objects and the
ref's lock). The hold keeps the journal's lock, so no other hale writer of
this clone appends in between; readers in other processes see the held rows
when they are published, and a process killed while holding leaves them in
the journal, where the next open recovers them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from hale_lang.gc_pause import collector_paused
from hale_runtime import durability
from hale_runtime.record import loose, receipts, signing, snapshot, store
from hale_runtime.record.authority import Authority
from hale_runtime.record.epochs import Epochs
from hale_runtime.record.errors import RecordError
from hale_runtime.record.identity import Clock, clone_id, default_who, wall_clock
from hale_runtime.record.journal import Journal
from hale_runtime.record.keys import SigningKey
from hale_runtime.record.row import Row, new_row
from hale_runtime.record.trust import STATE_KINDS as TRUST_STATE
from hale_runtime.record.trust import Trust
from hale_runtime.record.writing import MAX_APPEND_TRIES, Writing

if TYPE_CHECKING:
    from hale_runtime.record.sync import SyncReport

HOLD_S = 0.05  # a hold publishes, and lets other writers in, this long after it began


class Record(Writing):
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
        starts from (snapshot.py), when one is due (`snapshot.due`) or `force`. Only the genesis key's snapshots are used, so only its
        holder publishes. "" when one was pushed or none was due, else why not."""
        from hale_runtime.record.sync import GIT_TIMEOUT_S

        signer = self.signer
        if signer is None or self.trust.genesis != signer.fingerprint:
            return "only the genesis key's holder publishes the index"
        now = self.clock()
        if not force and not snapshot.due(self.repo, remote, self.stamped_count(), now):
            return ""  # asked at every sync: it reads one small blob, and moves nothing
        self._persist(force=True)
        if self._index is None or self._base[1] == 0:
            return "no index to publish"
        hexid = snapshot.write(self.repo, self._index.db, signer, now)
        return snapshot.push(self.repo, remote, hexid, GIT_TIMEOUT_S)

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
