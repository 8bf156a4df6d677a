"""Sync: fetch, rebase this clone's unstamped rows onto the remote's tip, push.

One round: list the remote's refs (in-process, cheap); when it holds a tip or
a receipt this clone lacks, fetch `refs/dna/record` into a tracking ref (and
the receipts) with git, then bring the local chain onto it. When the local chain already
contains the remote tip there is nothing to rebase; when the remote's chain
contains ours, we fast-forward; otherwise the rows after the commit both share
are written again as one commit on the remote tip, minus those whose id the
remote already holds, and the local ref moves to it by compare-and-swap. The
push is git's own and without force: receive-pack moves the remote's ref only
from the value the push saw, a compare-and-swap at any remote, bare or not
(libgit2's local transport refuses a non-bare repository, and checks
fast-forward apart from its write). A rejection starts the round again
after a jittered backoff that doubles each round (full jitter, 10 ms up to
half a second), so bodies that lost a race spread out instead of meeting
again at once; the rounds are bounded by time (HALE_DNA_SYNC_BUDGET, 20 s:
well inside a lease), not by a count, so a body under contention keeps
trying while it still may and gives up in time. Any other failure is a
RecordError, and the rows stay here for the next sync. `sync(record,
push=False)` stops after the rebase: the remote's rows in, nothing sent.
The tracking ref moves only to what the remote was seen to hold, and it is
what "stamped" means. Every clone ends on the remote's chain, so all share
one order.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pygit2

from hale_runtime import durability, figures
from hale_runtime.record import protected, receipts, store
from hale_runtime.record.chain import tracking_ref
from hale_runtime.record.errors import RecordError
from hale_runtime.record.identity import Clock
from hale_runtime.record.kinds import ROW_UNREADABLE
from hale_runtime.record.row import Row, encode_line, rows_in


class Record(Protocol):
    """What a sync reads and moves of the Record (record.py): declared here, so the
    Record imports sync and never the reverse."""

    repo: pygit2.Repository
    who: str
    durable: bool
    clock: Clock

    def remote(self) -> str | None: ...

    def cursor(self, stamped_only: bool = False) -> int: ...

    def position(self, hexid: str) -> int | None: ...

    def rows_through(self, position: int) -> int: ...

    def refresh(self) -> pygit2.Oid | None: ...

    def rows_past(self, position: int | None) -> list[Row]: ...


MAX_ROUNDS = 10_000  # a guard: the time budget ends the rounds first
SYNC_BUDGET_S = float(os.environ.get("HALE_DNA_SYNC_BUDGET", "20"))  # inside a 30 s lease
BACKOFF_MIN_S, BACKOFF_MAX_S = 0.01, 0.5
GIT_TIMEOUT_S = float(os.environ.get("HALE_DNA_GIT_TIMEOUT", "30"))
REJECTIONS = ("rejected", "fetch first", "non-fast-forward", "stale info", "lock")


@dataclass(frozen=True)
class SyncReport:
    """What one sync did: rows sent to and received from `remote` (None: no remote)."""

    remote: str | None
    sent: int = 0
    received: int = 0
    rounds: int = 0


class _Callbacks(pygit2.RemoteCallbacks):
    """Offers the ssh agent when a remote asks for a key (listing its refs)."""

    def credentials(self, url: str, username_from_url: str | None, allowed_types: int):
        if allowed_types & pygit2.enums.CredentialType.SSH_KEY:
            return pygit2.KeypairFromAgent(username_from_url or "git")
        raise pygit2.GitError(f"no credentials hale can offer for {url}")


def backoff_s(round_no: int, rng: random.Random | None = None) -> float:
    """How long to wait after the `round_no`th rejection: full jitter over a doubling cap."""
    cap = min(BACKOFF_MAX_S, BACKOFF_MIN_S * 2 ** min(round_no, 16))
    return (rng or random).uniform(0.0, cap)


def sync(record: Record, push: bool = True) -> SyncReport:
    """Bring this clone and the record's remote to one chain (see the module's comment);
    without `push`, only take the remote's rows in."""
    name = record.remote()
    if name is None:
        return SyncReport(None)
    repo = record.repo
    before = record.cursor()
    refusal = "the local chain kept moving"
    started, rejected = time.monotonic(), 0
    deadline = started + SYNC_BUDGET_S
    round_no = 0
    while round_no < MAX_ROUNDS and (round_no == 0 or time.monotonic() < deadline):
        round_no += 1
        heads = _heads(repo, name)
        bodies = _wanted_protected(record, heads)
        seen = store.read_ref(repo, tracking_ref(name))
        if bodies or _behind(repo, heads, tracking_ref(name)):
            _fetch(repo, name, tracking_ref(name), bodies)
        theirs = store.read_ref(repo, tracking_ref(name))
        _refuse_rewritten(record, name, seen, theirs)
        moved, tip = _rebase(record, theirs)
        if not moved:
            continue  # the local chain moved under us: go again
        if not push:
            return SyncReport(name, 0, record.cursor() - before, round_no)
        sent = _unheld(record, theirs)
        refusal = _push(repo, name, tip) if sent and tip is not None else None
        if refusal:
            rejected += 1
            time.sleep(min(backoff_s(rejected), max(0.0, deadline - time.monotonic())))
            continue
        if tip is not None and tip != theirs:
            store.set_ref(repo, tracking_ref(name), tip, record.durable)
        _push_receipts(record, name, heads)
        _exchange_protected(record, name, heads)
        # a rebase keeps every row it moves (same ids), so what grew was received
        received = record.cursor() - before
        ms = round((time.monotonic() - started) * 1000)
        figures.note("sync", sent=sent, rounds=round_no, rejected=rejected, ms=ms)
        return SyncReport(name, sent, received, round_no)
    figures.note("sync", sent=0, rounds=round_no, rejected=rejected, failed=True)
    spent = time.monotonic() - started
    raise RecordError(
        f"sync: {store.RECORD_REF} at {name} did not land in {spent:.1f}s ({rejected} of "
        f"{round_no} pushes refused, others landing first); last: {refusal}; it goes "
        "with the next sync"
    )


def _refuse_rewritten(
    record: Record, name: str, seen: pygit2.Oid | None, theirs: pygit2.Oid | None
) -> None:
    """Refuse a remote whose chain no longer holds what this clone saw it hold
    (it was force-pushed below it): the clone keeps its chain and the tracking
    ref its last sight, and one line names the commits lost and how to put them back.
    A remote moved back onto this clone's own chain loses nothing: the push restores it."""
    if seen is None or theirs is None or theirs == seen:
        return
    record.refresh()
    if record.position(str(theirs)) is not None:
        return  # behind us on our own chain: the push that follows restores it
    where = tracking_ref(name)
    _, met = store.chain_back(record.repo, theirs, lambda h: h == str(seen), where)
    if met is not None:
        return  # it grew from what we saw
    _, base = store.chain_back(record.repo, theirs, lambda h: record.position(h) is not None, where)
    seen_at = record.position(str(seen))
    base_at = record.position(base) if base is not None else -1
    lost = (seen_at - base_at) if seen_at is not None else 0
    store.set_ref(record.repo, where, seen, record.durable)  # stamped stays what was seen
    ours = store.read_ref(record.repo, store.RECORD_REF)
    raise RecordError(
        f"sync: {name}'s record was rewritten below what this clone has seen: {lost} commit(s) "
        f"it held up to {str(seen)[:12]} are gone there; this clone keeps them. Restore them with "
        f"`git push --force {name} {ours}:{store.RECORD_REF}`, then `hale dna sync`"
    )


def _heads(repo: pygit2.Repository, name: str) -> dict[str, str]:
    """What the remote holds under refs/dna/: ref name -> object id (hex).
    Listing is cheap and in-process, so an idle sync spawns nothing. A Remote
    object keeps the first listing it made, so each listing takes a new one."""
    try:
        listed = repo.remotes[name].list_heads(callbacks=_Callbacks())
    except (pygit2.GitError, OSError) as exc:
        raise RecordError(f"sync: reaching {name} failed: {_unreachable(repo, name, exc)}") from exc
    return {h.name: str(h.oid) for h in listed if h.name.startswith("refs/dna/")}


def _unreachable(repo: pygit2.Repository, name: str, exc: Exception) -> str:
    """Why the remote could not be reached, said plainly: libgit2 calls a local
    path that is not there an "unsupported URL protocol"."""
    url = repo.remotes[name].url or ""
    local = url.startswith("file://") or ("://" not in url and ":" not in url.split("/")[0])
    path = Path(url.removeprefix("file://")) if local else None
    if path is not None and not path.is_absolute():
        path = Path(repo.workdir or repo.path) / path
    if path is not None and not path.exists():
        return f"no repository at {url}"
    return str(exc)


def _behind(repo: pygit2.Repository, heads: dict[str, str], tracking: str) -> bool:
    """Does the remote hold a record tip or a receipt this clone has not fetched?"""
    ours = store.read_ref(repo, tracking)
    if heads.get(store.RECORD_REF) != (str(ours) if ours is not None else None):
        return True
    have = set(receipts.receipt_refs(repo))
    return any(ref.startswith(receipts.PREFIX) and ref not in have for ref in heads)


def _wanted_protected(record: Record, heads: dict[str, str]) -> list[str]:
    """The protected bodies the remote lists that this clone lacks and that no
    redaction it holds has erased (a redacted body is never fetched)."""
    have = protected.held(record.repo)
    lacking = [ref for ref in heads if ref.startswith(protected.PREFIX) and ref not in have]
    if not lacking:
        return []
    gone = protected.redacted_digests(record)
    return [ref for ref in lacking if ref[len(protected.PREFIX) :] not in gone]


def _fetch(repo: pygit2.Repository, name: str, tracking: str, bodies: list[str]) -> None:
    """Fetch the record, the receipts and the protected bodies wanted with git
    itself: libgit2 refuses to negotiate a fetch while the clone holds refs to
    blobs (the receipts), and a glob refspec (`record*`) lets a remote without
    a record answer empty. Protected bodies are named one by one, so a
    redacted one the remote still lists is not brought back."""
    specs = [f"+{store.RECORD_REF}*:{tracking}*", f"+{receipts.PREFIX}*:{receipts.PREFIX}*"]
    specs += [f"+{ref}:{ref}" for ref in bodies]
    args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", name, *specs]
    _git(repo, args, f"fetching {store.RECORD_REF} from {name}")


def _rebase(record: Record, theirs: pygit2.Oid | None) -> tuple[bool, pygit2.Oid | None]:
    """(done, the local tip standing on `theirs`); not done when the local ref moved meanwhile.

    Chains are followed along first parents, as the record reads them (a merge
    someone pushed is one foreign commit, store.py): walking back from their
    tip to the first commit this chain holds finds both what is new there and
    where the two part."""
    ours = record.refresh()
    if theirs is None or ours == theirs or record.position(str(theirs)) is not None:
        return True, ours  # nothing to take: push what we have (if anything)
    where = tracking_ref(record.remote() or "remote")
    found, base = store.chain_back(
        record.repo, theirs, lambda h: record.position(h) is not None, where
    )
    if ours is None or base == str(ours):
        target = theirs
    else:
        target = _replay(record, theirs, base, found)
    if not store.move_ref(record.repo, store.RECORD_REF, ours, target, record.durable):
        return False, None
    record.refresh()
    return True, target


def _replay(
    record: Record,
    theirs: pygit2.Oid,
    base: str | None,
    found: list[tuple[str, str | None]],
) -> pygit2.Oid:
    """One commit on `theirs` holding our rows past `base` (the last commit both
    chains hold) that their commits past it (`found`, read one at a time) lack."""
    held = {r.id for hexid, _ in found for r in _rows_of(record.repo, hexid)}
    base_at = record.position(base) if base is not None else None
    # a line that was no row cannot be written again as it was: it stays where it is
    pending = [
        r for r in record.rows_past(base_at) if r.id not in held and r.kind != ROW_UNREADABLE
    ]
    if not pending:
        return theirs
    text = "".join([encode_line(r) + "\n" for r in pending])
    return store.write_commit(record.repo, theirs, text, record.who, record.clock(), record.durable)


def _rows_of(repo: pygit2.Repository, hexid: str) -> list:
    return rows_in(hexid, store.commit_content(repo, pygit2.Oid(hex=hexid), "theirs")[1], "theirs")


def _unheld(record: Record, theirs: pygit2.Oid | None) -> int:
    """How many local rows lie past the remote's tip (what a push would deliver)."""
    total = record.cursor()
    if theirs is None:
        return total
    where = record.position(str(theirs))
    return total - record.rows_through(where) if where is not None else 0


def _push(repo: pygit2.Repository, name: str, tip: pygit2.Oid) -> str | None:
    """Push `tip` to the remote's record ref without force; the refusal, or None if taken.
    git itself pushes: receive-pack moves the ref only from the value the push
    saw (a compare-and-swap at any remote), and it writes to a non-bare
    repository too, which libgit2's local transport refuses."""
    spec = f"{tip}:{store.RECORD_REF}"
    done = _run_git(repo, ["push", "--porcelain", name, spec], f"pushing {store.RECORD_REF}")
    if done.returncode == 0:
        return None
    flags = [line.split("\t")[-1] for line in done.stdout.splitlines() if line.startswith("!")]
    errors = [
        line.removeprefix("remote:").strip().removeprefix("error:").strip()
        for line in done.stderr.splitlines()
        if "error:" in line and "failed to push some refs" not in line
    ]
    why = "; ".join(flags[:1] + errors[:1]) or f"git push exited {done.returncode}"
    if any(word in why for word in REJECTIONS):
        return f"{store.RECORD_REF}: {why}"
    raise RecordError(f"sync: pushing {store.RECORD_REF} to {name} failed: {why}")


def _push_receipts(record: Record, name: str, heads: dict[str, str]) -> None:
    """Push the receipts the remote did not list. A receipt is named by its
    content, so one another clone pushed meanwhile is simply up to date."""
    refs = [ref for ref in receipts.receipt_refs(record.repo) if ref not in heads]
    if not refs:
        return
    args = ["push", "--quiet", "--porcelain", name, *[f"{ref}:{ref}" for ref in refs]]
    _git(record.repo, args, f"pushing receipts to {name}")


def _exchange_protected(record: Record, name: str, heads: dict[str, str]) -> None:
    """Erase the redacted bodies here and at the remote (its refs; its objects too
    when it is a repository on this machine), then push the bodies it lacks."""
    gone = protected.redacted_digests(record)
    left = protected.erase(record.repo.path, gone)
    if left:
        raise RecordError(f"sync: redacted bodies still readable here: {', '.join(left)}")
    listed = [ref for ref in heads if ref.startswith(protected.PREFIX)]
    drop = [ref for ref in listed if ref[len(protected.PREFIX) :] in gone]
    ours = [ref for ref in protected.held(record.repo) if ref not in heads]
    specs = [f":{ref}" for ref in drop] + [f"{ref}:{ref}" for ref in ours]
    if specs:
        _git(
            record.repo,
            ["push", "--quiet", "--porcelain", name, *specs],
            f"protected bodies to {name}",
        )
    path = _local_path(record.repo, name)
    if path is not None and gone:
        protected.erase(path, gone)


def _local_path(repo: pygit2.Repository, name: str) -> str | None:
    """The remote's git directory when it is a repository on this machine."""
    url = repo.remotes[name].url or ""
    path = url.removeprefix("file://")
    if "://" in path or (":" in path and not path.startswith("/")):
        return None
    path = os.path.join(repo.workdir or repo.path, path)  # a relative one is the clone's
    return pygit2.discover_repository(path) if os.path.exists(path) else None


def _git(repo: pygit2.Repository, args: list[str], doing: str) -> None:
    """Run git on the repository, bounded in time; a failure is one RecordError line."""
    done = _run_git(repo, args, doing)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"git {args[0]} failed"])[-1]
        raise RecordError(f"sync: {doing} failed: {why}")


def _run_git(repo: pygit2.Repository, args: list[str], doing: str) -> subprocess.CompletedProcess:
    """git on the repository, bounded in time (RecordError when it cannot run or overruns).
    Durable, git fsyncs what it writes (objects and refs, here and, through its
    config, in a receive-pack on this machine) as the record does its own."""
    fsync = ["-c", "core.fsync=committed"] if durability.durable() else []
    command = ["git", *fsync, f"--git-dir={repo.path}", *args]
    try:
        return subprocess.run(
            command, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RecordError(f"sync: {doing} failed: {exc}") from exc
