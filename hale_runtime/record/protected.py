"""Protected bodies: what a row says that someone may later need erased, kept
apart from the row and addressed by digest, so erasing it leaves every row,
its id and the chain as they were.

A protected body is a JSON object stored as a git blob holding its
canonical JSON with a random salt (`{"body": …, "salt": <32 hex>}`), under
`refs/dna/protected/<digest>`, where the digest is the blob's own object
id: the one name every clone, every pack and `git cat-file` know it by, so
erasing by digest needs nothing else. The row names it in its body
(`"protected": <digest>`), so a row's id covers the digest, never the
body: the salt keeps a guessed body from being confirmed against the
digest a row shows. The blob and its ref are fsync'd before the row that
names it is written. Bodies travel with the record's sync (sync.py).

Redaction. A `row.redacted <row id> {"protected": <digest>}` row asks that
one be erased. It stands when its row names that digest and its writer may
redact it (`may_redact`: the row's own writer, the Board's holder, or
anyone while the Board is unheld, judged at its place in the chain). Once
the record has a genesis it is an authority row, judged as it joins by its
signature (trust.py: the row's writer's key, or the Board's, which is
genesis's while the Board is unheld), so one whose
signature does not prove its writer is poison and never reaches this. Then
every clone erases the body by digest: its ref, here and at the remote,
and the object itself, wherever the clone keeps it. A loose object is
unlinked. A packed one is dropped by `git repack -a -d`, which rewrites
the clone's packs from what is still reachable: the ref is gone first
(deleting a ref deletes its reflog), and a ref to a blob is nowhere else,
so nothing reaches it, and the old packs holding it are deleted. Unlike
`git gc --prune=now`, this never prunes the *other* unreachable objects
(a writer's objects written a moment before its ref moves are loose and
unreachable, and must stay). Then `git cat-file -e` must fail for it; one
that is still there (another ref reaches an identical blob) is said and
tried again at the next erasure.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2

from hale_runtime.record import kinds, loose, scrub, store
from hale_runtime.record.errors import RecordError
from hale_runtime.record.row import canonical

PREFIX = "refs/dna/protected/"
FIELD = "protected"  # the body field of a row that names its protected body
REDACTED = "[redacted]"
DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a blob's id, SHA-1 or SHA-256
BOARD = "board"


def identity(who: str) -> str:
    """The identity a writer names: `ann` of `ann@box:1a2b3c4d`."""
    return who.partition("@")[0]


# ---- writing and reading -------------------------------------------------------------


def put(repo: pygit2.Repository, body: dict[str, Any], durable: bool = True) -> str:
    """Store `body` as a protected body; its digest, for the row to name."""
    if not isinstance(body, dict):
        raise ValueError("a protected body is a JSON object")
    data = canonical({"body": body, "salt": secrets.token_hex(16)}).encode()
    blob = store.write_blob(repo, data, durable)
    digest = str(blob)
    repo.references.create(PREFIX + digest, blob, force=True)
    if durable:
        loose.sync_ref(repo, PREFIX + digest)
    return digest


def get(repo: pygit2.Repository, digest: str) -> dict[str, Any] | None:
    """The protected body `digest` names, None when this clone does not hold it
    (or holds something under its name that is not it)."""
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        return None
    try:
        ref = repo.references.get(PREFIX + digest)
        obj = repo.get(ref.target) if ref is not None else None
    except (pygit2.GitError, ValueError):
        return None
    if obj is None or obj.type != pygit2.enums.ObjectType.BLOB:
        return None
    if str(obj.id) != digest:
        return None
    try:
        found = json.loads(obj.data)
    except ValueError:
        return None
    body = found.get("body") if isinstance(found, dict) else None
    return body if isinstance(body, dict) else None


def held(repo: pygit2.Repository) -> dict[str, str]:
    """ref name -> blob id (hex) of every protected body this clone holds."""
    out = {}
    for name in repo.references:
        if name.startswith(PREFIX):
            with_ref = repo.references.get(name)
            if with_ref is not None:
                out[name] = str(with_ref.target)
    return out


# ---- redaction ---------------------------------------------------------------------


@dataclass(frozen=True)
class Redaction:
    row: str  # the redacted row's id
    digest: str
    by: str


def may_redact(who: str, target: Any, board: str | None) -> str:
    """Why `who` may not redact row `target` ("" when it may), the Board held by `board`."""
    mine = identity(who)
    if target is None:
        return "the record holds no such row"
    if not DIGEST.fullmatch(str(target.body.get(FIELD, ""))):
        return f"row {target.id[:12]} carries no protected body"
    if mine == identity(target.who) or board is None or mine == identity(board):
        return ""
    return (
        f"row {target.id[:12]} was written by {identity(target.who)}; only its writer or "
        f"the Board's holder ({identity(board)}) may redact it"
    )


def redactions(record: Any) -> list[Redaction]:
    """The redactions that stand, in chain order (judged where each stands)."""
    return _fold(record)[0]


def board_holder(record: Any) -> str | None:
    """Who holds the Board at the record's tip (None: unheld)."""
    return _fold(record)[1]


def _fold(record: Any) -> tuple[list[Redaction], str | None]:
    board: str | None = None
    out: list[Redaction] = []
    watched = [kinds.POSITION_FILLED, kinds.POSITION_VACATED, kinds.ROW_REDACTED]
    for row in record.scan(kind=watched):
        if row.kind == kinds.ROW_REDACTED:
            target = record.get(row.key)
            why = may_redact(row.who, target, board)
            if not why and target.body.get(FIELD) == row.body.get(FIELD):
                out.append(Redaction(row.key, str(row.body[FIELD]), row.who))
        elif _position(row) == BOARD:
            filled = row.kind == kinds.POSITION_FILLED
            board = str(row.body.get("holder") or "") or None if filled else None
    return out, board


def redacted_digests(record: Any) -> set[str]:
    return {r.digest for r in redactions(record)}


def _position(row: Any) -> str:
    return str(row.body.get("position") or row.key).removeprefix("position:")


def erase(gitdir: str | os.PathLike, digests: Iterable[str]) -> list[str]:
    """Erase these bodies from one repository (a clone, or a remote on this
    machine): refs, then the objects. The digests still readable after (said
    by the caller, tried again next time). What this process saw erased is
    not looked for again, unless its ref comes back."""
    digests = [d for d in digests if DIGEST.fullmatch(d)]
    if not digests:
        return []
    repo = pygit2.Repository(str(gitdir))
    where = str(Path(repo.path).resolve())
    # what the bodies say, read before they go, to scrub from the files beside the record
    said = [text for digest in digests for text in scrub.texts_of(get(repo, digest))]
    todo = []
    for digest in digests:
        if not DIGEST.fullmatch(digest):
            continue
        ref = repo.references.get(PREFIX + digest)
        if ref is not None:
            ref.delete()  # its reflog goes with it
            todo.append(digest)
        elif (where, digest) not in _ERASED and digest in repo:
            todo.append(digest)
        else:
            _ERASED.add((where, digest))
    for digest in todo:
        _unlink_loose(repo, digest)
    present = [d for d in todo if _has(gitdir, d)]  # packed, or reached another way
    if present:
        _git(gitdir, ["repack", "-a", "-d", "-q"])
    left = [d for d in present if _has(gitdir, d)]
    scrub.scrub(Path(repo.path) / "hale", said)
    _ERASED.update((where, d) for d in todo if d not in left)
    return left


_ERASED: set[tuple[str, str]] = set()  # (repository, digest) seen erased by this process


def look_again(gitdir: str | os.PathLike) -> None:
    """Forget what was seen erased in one repository (a repack that ran beside an
    erasure may have packed a body the erasure had just removed)."""
    where = str(Path(gitdir).resolve())
    _ERASED.difference_update({e for e in _ERASED if e[0] == where})


def _unlink_loose(repo: pygit2.Repository, oid: str) -> bool:
    """Unlink the loose object `oid`; whether one was there."""
    if not oid:
        return False
    folder = loose.objects_dir(repo) or Path(repo.path) / "objects"
    path = Path(folder) / oid[:2] / oid[2:]
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def _has(gitdir: str | os.PathLike, oid: str) -> bool:
    if not oid:
        return False
    done = subprocess.run(
        ["git", f"--git-dir={gitdir}", "cat-file", "-e", oid], capture_output=True, timeout=60
    )
    return done.returncode == 0


def _git(gitdir: str | os.PathLike, args: list[str]) -> None:
    done = subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"git {args[0]} failed"])[-1]
        raise RecordError(f"erasing protected bodies: git {args[0]} failed: {why}")
