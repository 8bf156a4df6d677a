"""The Record's chain as this process holds it: an indexed prefix and a tail.

The settled prefix (stamped commits) lives in the index (index.py), shared
by every process of the clone; the tail past it is held here, in memory.
`refresh` brings the chain to the ref's tip: nothing is decoded when the
tip is the one known; when the chain grew, only the new commits are (walked
back from the tip to a commit the chain holds, then read forward); when a
sync rebased it, the chain is cut back to the commit both share and goes
on from there. A row whose id the chain already holds is skipped, so a
row present twice is read once. Each row read from git is checked against
its kind and judged by the authority fold; a row written here was checked
at the door. Once enough stamped commits wait in the tail, they move into
the index and leave memory (`_persist`), so memory does not grow with the
record's age. The first refresh recovers journalled rows a power loss took
from the chain (journal.py).

Rows an append holds back from git (`Record.held`: journalled, so durable,
but not yet a commit) sit at the chain's end as one *pending* commit that
grows with each append; every read here sees them. When the ref moves
under them (a sync in another process), the pending commit is taken off,
the chain goes on to the new tip, and the held rows go back on top, read
as any rebase is; publishing writes them as one commit on the tip.

`Chain` is the Record's base: the Record supplies its repository, journal,
authority, writer and `remote()`, and reads and writes through this.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from hale_lang.gc_pause import collector_paused
from hale_runtime.long_work import Told, steps
from hale_runtime.record import kinds as row_kinds
from hale_runtime.record import snapshot, store
from hale_runtime.record.errors import RecordError
from hale_runtime.record.index import NAME, Commit, Index, IndexFailed
from hale_runtime.record.row import Row, decode_line, rows_in

if TYPE_CHECKING:
    from hale_runtime.record.authority import Authority
    from hale_runtime.record.identity import Clock
    from hale_runtime.record.journal import Journal
    from hale_runtime.record.trust import Trust

PERSIST_BACKLOG = 64  # stamped commits the tail may hold before they move into the index
PERSIST_ROWS = 20_000  # ... or stamped rows
PERSIST_READ = 1_000  # ... or this many were just decoded from git (others' rows)
READ_CHUNK = 256  # commits read from git at a time when the chain grew a lot
SHOW_FROM = 100  # commits to read from which the work is told to long_work (a bar)
PENDING = "pending"  # the name of the held rows' commit until it is written (no hex is)
_new = tuple.__new__  # a Row from a full tuple, without NamedTuple's argument parsing


def tracking_ref(remote: str) -> str:
    """Where this clone keeps the remote's record tip as last seen."""
    return f"refs/dna/remotes/{remote}/record"


class Chain:
    """The chain of one Record (see the module's comment)."""

    repo: pygit2.Repository
    who: str
    clock: Clock
    _journal: Journal
    _authority: Authority

    if TYPE_CHECKING:  # the Record's

        def remote(self) -> str | None: ...

        def trust_now(self) -> Trust: ...

    def _chain_init(self) -> None:
        """An empty chain, nothing read yet."""
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
        self._pending: list[str] = []  # the held rows' stored lines (the PENDING commit's)
        self.snapshot_refused = ""  # why the remote's index snapshot was not used ("" if not)

    def position(self, hexid: str) -> int | None:
        """The place of commit `hexid` in this chain (0 for the root), if it is in it."""
        at = self._pos.get(hexid)
        if at is None and self._index is not None:
            at = self._index.position(hexid, self._base[0])
        return at

    def rows_through(self, position: int) -> int:
        """How many rows the chain holds up to and including the commit at `position`."""
        return self._end(position)

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
        held = self._unhold()  # the ref moved under held rows: they go back on top
        if self._index is not None and not self._index.holds(self._base[0], self._base[2]):
            self._reset()  # another process cut the index (a rewritten remote)
        before = self._count_rows()
        if tip is None:
            self._cut(0)
        else:
            if self._count_commits() == 0:
                self._join_from_snapshot(tip)
            self._grow(tip)
        self._tip = tip
        if held:
            self._hold(self._unknown(decode_line(line, 0, PENDING) for line in held), held)
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
        # many commits (a fresh clone, an index rebuilt): a bar on a terminal (long_work.py)
        with steps("reading the record", len(found) if len(found) >= SHOW_FROM else 0) as told:
            self._read(found, told)

    def _read(self, found: list[tuple[str, str | None]], told: Told) -> None:
        for at in range(0, len(found), READ_CHUNK):
            for i, (hexid, _) in enumerate(found[at : at + READ_CHUNK], at + 1):
                oid = pygit2.Oid(hex=hexid)
                parent_hex, content = store.commit_content(self.repo, oid, store.RECORD_REF)
                self._add_read(hexid, parent_hex, rows_in(hexid, content, store.RECORD_REF))
                told(i)
            self._persist(upto_tip=pygit2.Oid(hex=found[min(at + READ_CHUNK, len(found)) - 1][0]))

    def _join_from_snapshot(self, tip: pygit2.Oid) -> None:
        """An empty index starts from a snapshot the remote holds (snapshot.py), when
        one verifies; else (`snapshot_refused` says why) it is built from git."""
        if self._index is None or not self._writable or self._index.end()[0]:
            return
        remote = self.remote()
        for ref in [snapshot.tracked(remote)] if remote else []:
            try:
                found = snapshot.read_manifest(self.repo, ref)
                if found is None:
                    continue
                chain = snapshot.verify(self.repo, *found, tip)
                self._index.close()  # its file is replaced: no connection may keep it
                self._index = None
                snapshot.install(Path(self.repo.path) / "hale" / NAME, *found, chain)
            except snapshot.Refused as why:
                self.snapshot_refused = f"{ref}: {why}"
            finally:
                if self._index is None:
                    self._load()
            if self.snapshot_refused == "":
                return

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
        self._add(hexid, parent, self._unknown(decoded))

    def _unknown(self, decoded: Iterable[Row]) -> list[Row]:
        """The rows the chain does not hold yet, each once, numbered on from its end."""
        decoded = list(decoded)
        base = self._count_rows()
        known = self._known(r.id for r in decoded)
        new: list[Row] = []
        seen: set[str] = set()
        for row in decoded:
            if row.id not in known and row.id not in seen:
                seen.add(row.id)
                new.append(_new(Row, (*row[:7], base + len(new) + 1)))
        return new

    def _add(self, hexid: str, parent: str | None, new: list[Row], checked: bool = False) -> None:
        """Join a commit's rows to the chain; unless `checked` (written here, so
        checked at the door), each is checked against its kind."""
        self._pos[hexid] = self._count_commits()
        self._commits.append((hexid, parent or "", len(new)))
        self._join(new, checked)

    def _join(self, new: list[Row], checked: bool) -> None:
        """The rows of the chain's last commit, joined to it."""
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
        if len(self._ends) < len(self._commits):
            self._ends.append(self._count_rows())
        else:
            self._ends[-1] = self._count_rows()

    # ---- held rows (Record.held) -----------------------------------------------

    def _hold(self, new: list[Row], lines: list[str]) -> None:
        """Rows written to the journal, not to git: they join the pending commit."""
        if not self._pending:
            self._add(PENDING, str(self._tip) if self._tip else None, new, checked=True)
        else:
            hexid, parent, count = self._commits[-1]
            self._commits[-1] = (hexid, parent, count + len(new))
            self._join(new, checked=True)
        self._pending.extend(lines)

    def _unhold(self) -> list[str]:
        """Take the pending commit off the chain; its lines."""
        held, self._pending = self._pending, []
        if held:
            self._cut(self._count_commits() - 1)
        return held

    def _written(self, oid: pygit2.Oid) -> None:
        """The pending commit is in git now, as `oid`, and the ref names it."""
        hexid, parent, count = self._commits[-1]
        self._pos[str(oid)] = self._pos.pop(hexid)
        self._commits[-1] = (str(oid), parent, count)
        self._tip, self._pending = oid, []

    def _stamped_commits(self, tip: pygit2.Oid | None = None) -> int:
        """How many commits of the chain, from its root, the remote holds."""
        remote = self.remote()
        if remote is None:
            return self._count_commits() - bool(self._pending)  # held rows are no one's yet
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
