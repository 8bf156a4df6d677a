"""The body lease: which holder runs this record's body, until when.

The lease is one small JSON document, {"holder", "token", "until"}, kept
as `lease.json` in a parentless commit that the ref `refs/dna/body` points
at (`until` in ms of the writer's wall clock, 0 once released; a commit, not
a bare blob, because libgit2's fetch negotiation fails on a local ref to a
blob). With a remote, the remote's ref is the lease: it is read by
fetching it into `refs/dna/remotes/<remote>/body`, and written by pushing a
new commit with `--force-with-lease=refs/dna/body:<the commit read>`, which the
remote's receive-pack checks under its ref lock, so of two writers racing
from the same reading one lands and the other is refused (a compare-and-
swap at the remote). Without a remote the local ref is the lease and moves
by `git update-ref <new> <old>`, the same swap. After every write this
clone's own `refs/dna/body` mirrors what it wrote: that is what the host
asserts on each tick, with no network call.

Taking succeeds when the lease is absent, released, expired, or already the
same holder's (a clone restarting takes its lease straight back); the token
rises by one on every take. Renewing and releasing swap on the exact commit
this holder last wrote (or the fence adopted), so a lease that moved meanwhile is reported lost.
Objects are made and read locally with pygit2; every call that moves a ref
or reaches a remote is a bounded `git` subprocess (git.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pygit2

from hale_runtime import errors
from hale_runtime.node.git import GitFailed, git

LEASE_REF = "refs/dna/body"
OWNER_ENV = "HALE_DNA_OWNER"


def lease_ref(owner: str | None = None) -> str:
    """The ref of the lease: the record's one body, or one owner's over a shared record."""
    return f"refs/dna/owners/{owner}/body" if owner else LEASE_REF


LEASE_FILE = "lease.json"
SIGNATURE = ("hale", "body@hale")
REFUSED_WORDS = ("stale info", "rejected", "cannot lock ref", "fetch first")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Lease:
    holder: str
    token: int
    until: int  # ms since the epoch, the writer's wall clock; 0 when released

    @property
    def released(self) -> bool:
        return self.until == 0

    def live(self, at_ms: int | None = None) -> bool:
        return self.until > (now_ms() if at_ms is None else at_ms)

    def describe(self, at_ms: int | None = None) -> str:
        """`<holder> token <n>, live for 12s` / `expired 3s ago` / `released`."""
        at = now_ms() if at_ms is None else at_ms
        if self.released:
            state = "released"
        elif self.until > at:
            state = f"live for {(self.until - at) / 1000:.0f}s"
        else:
            state = f"expired {(at - self.until) / 1000:.0f}s ago"
        return f"{self.holder} token {self.token}, {state}"

    def encode(self) -> bytes:
        body = {"holder": self.holder, "token": self.token, "until": self.until}
        return (json.dumps(body, sort_keys=True) + "\n").encode()

    @classmethod
    def decode(cls, data: bytes) -> Lease:
        try:
            doc = json.loads(data)
            return cls(str(doc["holder"]), int(doc["token"]), int(doc["until"]))
        except (ValueError, KeyError, TypeError) as error:
            raise LeaseUnprovable(f"{LEASE_REF} holds no lease: {error}") from None


class LeaseHeld(errors.HaleRuntimeError):
    """The lease is someone else's (or no longer the one this holder wrote)."""

    code = errors.EXIT_LEASE_HELD

    def __init__(self, lease: Lease | None, message: str = ""):
        self.lease = lease
        held = lease.describe() if lease else "nobody's"
        super().__init__(message or f"the body lease is held by {held}")


class LeaseUnprovable(errors.Failed):
    """The lease could not be read or written (remote unreachable, timed out)."""


class BodyLease:
    """One holder's view of the body lease of the repository at `root`."""

    def __init__(
        self,
        root: Path,
        holder: str,
        remote: str | None,
        length_s: float,
        timeout_s: float,
        owner: str | None = None,
        clock: Callable[[], int] | None = None,
    ):
        self.root, self.holder, self.remote = Path(root), holder, remote
        self.clock = clock or now_ms  # this machine's wall clock, ms; tests skew it
        self.ref = lease_ref(owner)
        self.repo = pygit2.Repository(str(self.root))
        self.length_s, self.timeout_s = length_s, timeout_s
        self.oid: str | None = None  # the commit this holder last wrote (or read, when adopting)
        self.lease: Lease | None = None

    @property
    def tracking(self) -> str:
        return f"refs/dna/remotes/{self.remote}/" + self.ref.removeprefix("refs/dna/")

    # ---- reading ---------------------------------------------------------------

    def read(self) -> tuple[str | None, Lease | None]:
        """(commit id, lease) where the lease lives: the remote when there is one."""
        if self.remote is None:
            return self._read_ref(self.ref)
        done = self._git(
            ["fetch", "-q", "--no-tags", self.remote, f"+{self.ref}:{self.tracking}"],
            check=False,
        )
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace")
            if "couldn't find remote ref" not in err:
                said = next((x for x in err.splitlines() if x.strip()), "git fetch failed")
                raise LeaseUnprovable(f"reading the lease at {self.remote}: {said.strip()}")
            self._git(["update-ref", "-d", self.tracking], check=False)
            return None, None
        return self._read_ref(self.tracking)

    def local(self) -> Lease | None:
        """The lease as this clone last wrote or saw it (no network)."""
        return self._read_ref(self.ref)[1]

    def _read_ref(self, ref: str) -> tuple[str | None, Lease | None]:
        return lease_at(self.repo, ref)

    # ---- writing ---------------------------------------------------------------

    def take(self, force: bool = False) -> Lease:
        """Take the lease (LeaseHeld when it is someone else's and live, unless `force`)."""
        for _ in range(5):
            oid, current = self.read()
            live = current is not None and current.live(self.clock())
            if current and current.holder != self.holder and live and not force:
                raise LeaseHeld(current)
            token = current.token + 1 if current else 1
            if self._swap(oid, Lease(self.holder, token, self._until())):
                return self.lease  # type: ignore[return-value]
        raise LeaseHeld(self.read()[1], "the body lease kept moving while it was being taken")

    def adopt(self, token: int) -> Lease:
        """Start renewing the lease this holder took elsewhere (the fence's start)."""
        oid, lease = self._read_ref(self.ref)
        if lease is None or lease.holder != self.holder or lease.token != token:
            raise LeaseHeld(lease)
        self.oid, self.lease = oid, lease
        return lease

    def renew(self) -> Lease:
        """Extend the held lease by its length from now; LeaseHeld if it moved."""
        if self.lease is None:
            raise LeaseHeld(None, "no lease to renew")
        token = self.lease.token
        if self._swap(self.oid, Lease(self.holder, token, self._until())):
            return self.lease
        # Refused. Still ours (holder and token) means it is a write of ours this
        # object did not record (a push that landed but a local ref that was
        # locked, say): swap on what is there. Anything else moved it.
        oid, now_there = self.read()
        if now_there is None or now_there.holder != self.holder or now_there.token != token:
            raise LeaseHeld(now_there)
        if not self._swap(oid, Lease(self.holder, token, self._until())):
            raise LeaseHeld(self.read()[1])
        return self.lease

    def release(self) -> bool:
        """Give the held lease back; False when it was no longer this holder's.

        Reads the lease first (this clone's mirror, then the remote), since the
        fence may have renewed it since this object last wrote it.
        """
        if self.lease is None:
            return False
        token = self.lease.token
        for read in (lambda: self._read_ref(self.ref), self.read):
            oid, lease = read()
            if lease is None or lease.holder != self.holder or lease.token != token:
                return False
            if self._swap(oid, Lease(self.holder, token, 0)):
                return True
        return False

    def _until(self) -> int:
        return self.clock() + int(self.length_s * 1000)

    def _swap(self, old: str | None, new: Lease) -> bool:
        """Write `new` in place of commit `old`; False when the lease was not at `old`."""
        oid = self._write(new)
        if self.remote is not None and not self._push(old, oid):
            return False
        if not self._update_local(oid, old if self.remote is None else None):
            return False
        self.oid, self.lease = oid, new
        return True

    def _write(self, lease: Lease) -> str:
        """A parentless commit holding `lease`; its id."""
        blob = self.repo.create_blob(lease.encode())
        builder = self.repo.TreeBuilder()
        builder.insert(LEASE_FILE, blob, pygit2.enums.FileMode.BLOB)
        sig = pygit2.Signature(*SIGNATURE, max(lease.until, self.clock()) // 1000, 0)
        message = f"body lease: {lease.holder} token {lease.token}\n"
        return str(self.repo.create_commit(None, sig, sig, message, builder.write(), []))

    def _push(self, old: str | None, oid: str) -> bool:
        expect = f"--force-with-lease={self.ref}:{old or ''}"
        done = self._git(["push", "-q", expect, self.remote, f"{oid}:{self.ref}"], check=False)
        if done.returncode == 0:
            # only a cache of the remote (read() fetches it afresh): a reader in this
            # clone holding its lock must not turn a push that landed into a failure
            self._git(["update-ref", self.tracking, oid], check=False)
            return True
        err = done.stderr.decode(errors="replace")
        if any(word in err for word in REFUSED_WORDS):
            return False
        raise LeaseUnprovable(f"writing the lease at {self.remote}: {err.strip()}")

    def _update_local(self, oid: str, old: str | None) -> bool:
        """Move this clone's ref to `oid` (as a swap on `old` when the lease is local)."""
        args = ["update-ref", "--no-deref", self.ref, oid]
        if self.remote is None:
            args.append(old or "0" * 40)
        return self._git(args, check=False).returncode == 0

    def _git(self, args: list[str], data: bytes | None = None, check: bool = True):
        try:
            return git(self.root, args, self.timeout_s, data=data, check=check)
        except GitFailed as error:
            raise LeaseUnprovable(str(error)) from error


def lease_at(repo: pygit2.Repository, ref: str) -> tuple[str | None, Lease | None]:
    """(commit id, lease) that `ref` holds in `repo`; (None, None) when absent."""
    try:
        found = repo.references.get(ref)
        if found is None:
            return None, None
        commit = repo.get(found.target)
        return str(found.target), Lease.decode(repo.get(commit.tree[LEASE_FILE].id).data)
    except (pygit2.GitError, KeyError, AttributeError, ValueError) as error:
        raise LeaseUnprovable(f"{ref} holds no lease: {error}") from None
