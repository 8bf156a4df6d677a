"""The record in git: one linear chain of commits under `refs/dna/record`.

Each append is one commit whose tree holds one blob, `rows.jsonl`: the batch's
rows, one canonical JSON line each. Objects are written first (loose.py: each
atomically, by rename), then the ref moves by compare-and-swap, so a writer
killed at any point leaves the chain either without its commit or with all of
it. Nothing here touches the work tree, the index or HEAD.

Durable (the default, see hale_runtime/durability.py): the objects are
fsync'd, files and folders, before the ref moves, and the moved ref, file and
folder, before `move_ref` returns. So one append is one group of fsyncs
however many rows it holds, and a row is on disk before anyone reads it.
libgit2's own fsync option is set to match for what libgit2 writes itself
(pushes to a remote on this machine, a repository of another object format).

A ref lock git's protocol leaves behind when its writer is killed between
taking it and renaming it would stop every later writer of that clone. A
live writer holds one for milliseconds; one older than STALE_LOCK_S, still
there once the wait is over, is moved aside (into .git/hale/, where no ref
is read) and the move tried once more. A writer paused past that age finds
its lock gone and fails its rename: it moves nothing.

Reading walks parents back from the tip until it meets a commit the caller
already knows, so a reader that keeps its place decodes only what is new.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pygit2

from hale_runtime.record import loose, loose_ref
from hale_runtime.record.errors import RecordDamaged, RecordError, RowRefused

RECORD_REF = "refs/dna/record"
ROWS_ENTRY = "rows.jsonl"
MAX_BLOB = 64 << 20  # bytes of rows one commit may hold: a bigger one is read as foreign
# test hooks: when set to a file path, an append creates that file and sleeps (so a
# test can kill it) once its objects are written, before anything is durable ...
PAUSE_ENV = "HALE_RECORD_TEST_PAUSE_BEFORE_REF"
# ... or once its rows are in the journal (durable), before the ref moves
JOURNALLED_PAUSE_ENV = "HALE_RECORD_TEST_PAUSE_AFTER_JOURNAL"
LOCK_WAIT_S = 10.0  # how long a ref lock held by someone else is waited out
STALE_LOCK_S = 60.0  # a ref lock this old, still there after the wait, was left by a killed writer


def read_ref(
    repo: pygit2.Repository, name: str, known: pygit2.Oid | None = None
) -> pygit2.Oid | None:
    """The commit a record ref points at, or None when the ref does not exist.
    A target equal to `known` (a commit the caller already read) is not looked
    up again: a reader polling an unmoved ref reads the ref alone."""
    try:
        ref = repo.references.get(name)
    except (pygit2.GitError, ValueError) as exc:
        raise RecordDamaged(f"{name} cannot be read ({exc})") from exc
    if ref is None:
        return None
    if ref.type != pygit2.enums.ReferenceType.DIRECT:
        raise RecordError(f"{name} is a symbolic ref; the record's refs point at commits")
    if known is not None and ref.target == known:
        return known
    obj = repo.get(ref.target)
    if obj is None:
        raise RecordDamaged(f"{name} points at {ref.target}, which is missing")
    if obj.type != pygit2.enums.ObjectType.COMMIT:
        raise RecordError(f"{name} holds a foreign object: a {obj.type_str}, not a record commit")
    return ref.target


def commit_content(
    repo: pygit2.Repository, oid: pygit2.Oid, where: str
) -> tuple[str | None, bytes | str]:
    """(its first parent's hex or None, its `rows.jsonl` bytes) of one commit of the
    chain, or, for a commit of any other shape, (its first parent, why it is foreign).

    Anyone who can push to the record can push any commit, so a shape this hale
    never writes is input, not damage: a merge, a tree of other entries, rows
    that are not a blob, a blob past MAX_BLOB, a parent that is no commit. The
    chain is read along first parents through it, and its content is one
    placeholder row (row.py's `rows_in`), poison like a line that is no row.
    Only an object missing from the store raises."""
    commit = _commit(repo, oid, where)
    parent, why = _first_parent(repo, commit, where)
    if not why and len(commit.parent_ids) > 1:
        why = f"a merge of {len(commit.parent_ids)} parents; the record is read along the first"
    try:
        return _content(repo, commit, parent, why)
    except (pygit2.GitError, KeyError) as exc:  # a tree or blob missing or corrupt here
        raise RecordDamaged(f"{where}: commit {oid}'s rows cannot be read ({exc})") from exc


def _content(
    repo: pygit2.Repository, commit: pygit2.Commit, parent: str | None, why: str
) -> tuple[str | None, bytes | str]:
    tree = commit.tree
    if not why and (len(tree) != 1 or tree[0].name != ROWS_ENTRY or tree[0].type_str != "blob"):
        names = ", ".join(sorted(repr(entry.name) for entry in tree)[:4]) or "nothing"
        why = f"its tree holds {names}, not one {ROWS_ENTRY} blob"
    if why:
        return parent, why
    size = repo.odb.read_header(tree[0].id)[1]
    if size > MAX_BLOB:
        return parent, f"its {ROWS_ENTRY} is {size:,} bytes, past the {MAX_BLOB:,} a commit holds"
    return parent, repo[tree[0].id].data


def refuse_past_max(lines: Iterable[str]) -> None:
    """RowRefused when a batch's stored bytes pass what one commit holds (a
    reader reads a bigger one as foreign), with room kept for
    its signature row; counted in characters first, which is cheap and at
    most a quarter of the bytes."""
    most = MAX_BLOB - (64 << 10)
    if sum(len(line) + 1 for line in lines) <= most // 4:
        return
    size = sum(len(line.encode()) + 1 for line in lines)
    if size > most:
        raise RowRefused(
            f"a batch is at most {most:,} bytes as stored, and this one is "
            f"{size:,}: write it in parts"
        )


def _commit(repo: pygit2.Repository, oid: pygit2.Oid, where: str) -> pygit2.Commit:
    try:
        commit = repo.get(oid)
    except (pygit2.GitError, ValueError) as exc:
        raise RecordDamaged(f"{where}: commit {oid} in the chain cannot be read ({exc})") from exc
    if commit is None or commit.type != pygit2.enums.ObjectType.COMMIT:
        raise RecordDamaged(f"{where}: commit {oid} in the chain is missing or not a commit")
    return commit


def _first_parent(
    repo: pygit2.Repository, commit: pygit2.Commit, where: str
) -> tuple[str | None, str]:
    """(the first parent's hex or None, why the commit is foreign when its parent is
    no commit: the chain then ends at it)."""
    parents = commit.parent_ids
    if not parents:
        return None, ""
    try:
        kind = repo.odb.read_header(parents[0])[0]
    except (KeyError, pygit2.GitError) as exc:
        raise RecordDamaged(f"{where}: commit {parents[0]} in the chain is missing") from exc
    if kind != pygit2.enums.ObjectType.COMMIT:
        return None, f"its parent {parents[0]} is not a commit"
    return str(parents[0]), ""


def chain_back(
    repo: pygit2.Repository, tip: pygit2.Oid, known: Callable[[str], bool], where: str
) -> tuple[list[tuple[str, str | None]], str | None]:
    """Commits from `tip` back to the first known one, along first parents, without
    reading their rows: ([(hex, parent)] oldest first, the known one or None).
    A chain that comes back on itself (git's grafts can make one) ends where it
    would repeat: the commit before that is read as the root."""
    found: list[tuple[str, str | None]] = []
    walked: set[str] = set()
    here: str | None = str(tip)
    while here is not None and not known(here):
        walked.add(here)
        parent, _ = _first_parent(repo, _commit(repo, pygit2.Oid(hex=here), where), where)
        if parent in walked:
            parent = None
        found.append((here, parent))
        here = parent
    found.reverse()
    return found, here


def use_fsync(durable: bool) -> None:
    """Set libgit2's process-wide fsync option (it covers refs and what libgit2 writes)."""
    pygit2.option(pygit2.enums.Option.ENABLE_FSYNC_GITDIR, durable)


def write_blob(repo: pygit2.Repository, data: bytes, durable: bool = True) -> pygit2.Oid:
    """One blob, durable when asked."""
    folder = loose.objects_dir(repo)
    if folder is None:
        use_fsync(durable)
        return repo.create_blob(data)
    batch = loose.Batch(folder, durable)
    blob = batch.put(b"blob", data)
    batch.settle()
    return pygit2.Oid(raw=blob)


def commit_signature(who: str, at_ms: int) -> pygit2.Signature:
    """The commit's author: the writer's name as git takes it. git strips some
    characters from a name's ends (`:` `.` `,` `;` `<` `>` quotes) and refuses what
    is left empty, so a writer named only by those (any writer may name itself
    anything) signs as `hale`: the row's own `who` is what counts."""
    try:
        return pygit2.Signature(who or "hale", "record@hale", at_ms // 1000, 0)
    except (pygit2.GitError, ValueError):
        return pygit2.Signature("hale", "record@hale", at_ms // 1000, 0)


def write_commit(
    repo: pygit2.Repository,
    parent: pygit2.Oid | None,
    text: str,
    who: str,
    at_ms: int,
    durable: bool = True,
) -> pygit2.Oid:
    """Blob, tree and commit for one batch of rows, durable when asked; no ref moves."""
    sig = commit_signature(who, at_ms)
    rows = text.count("\n")
    message = f"{rows} row(s)\n"
    folder = loose.objects_dir(repo)
    if folder is None:
        use_fsync(durable)
        return _write_commit_libgit2(repo, parent, text, sig, message)
    batch = loose.Batch(folder, durable)
    blob = batch.put(b"blob", text.encode())
    tree = batch.put(b"tree", b"100644 " + ROWS_ENTRY.encode() + b"\0" + blob)
    stamp = f"{sig.name} <{sig.email}> {sig.time} +0000".encode()
    head = b"tree %s\n" % tree.hex().encode()
    if parent is not None:
        head += b"parent %s\n" % str(parent).encode()
    body = b"%sauthor %s\ncommitter %s\n\n%s" % (head, stamp, stamp, message.encode())
    commit = batch.put(b"commit", body)
    batch.settle()
    return pygit2.Oid(raw=commit)


def _write_commit_libgit2(
    repo: pygit2.Repository,
    parent: pygit2.Oid | None,
    text: str,
    sig: pygit2.Signature,
    message: str,
) -> pygit2.Oid:
    blob = repo.create_blob(text.encode())
    builder = repo.TreeBuilder()
    builder.insert(ROWS_ENTRY, blob, pygit2.enums.FileMode.BLOB)
    tree = builder.write()
    parents = [parent] if parent is not None else []
    return repo.create_commit(None, sig, sig, message, tree, parents)


def pause_for_tests(oid: pygit2.Oid, env: str) -> None:
    """The test hooks above: a no-op unless `env` is set."""
    marker = os.environ.get(env)
    if marker:  # written whole, then named: a test polling for it never reads it empty
        Path(f"{marker}.part").write_text(str(oid))
        os.replace(f"{marker}.part", marker)
        time.sleep(60)


def move_ref(
    repo: pygit2.Repository,
    name: str,
    old: pygit2.Oid | None,
    new: pygit2.Oid,
    durable: bool = True,
) -> bool:
    """Compare-and-swap `name` from `old` to `new`; False when someone moved it first."""
    for _ in _lock_waits(repo, name):
        try:
            moved = None if old is None else loose_ref.move(repo, name, old, new)
            if moved is not None:
                if moved and durable:
                    loose.sync_ref(repo, name)
                return moved
            if old is None:
                repo.references.create(name, new, force=False)
            else:
                ref = repo.references.get(name)
                if ref is None or ref.target != old:
                    return False
                ref.set_target(new, "hale record")
            if durable:
                loose.sync_ref(repo, name)
            return True
        except pygit2.AlreadyExistsError:
            return False
        except pygit2.GitError as exc:
            if "does not match" in str(exc):
                return False
            raise RecordError(f"{name} could not be moved: {exc}") from exc
        except loose_ref.Locked:
            continue
        except OSError as exc:
            if "lock" not in str(exc):
                raise RecordError(f"{name} could not be moved: {exc}") from exc
    raise RecordError(_stale_lock_message(repo, name))


def set_ref(repo: pygit2.Repository, name: str, new: pygit2.Oid, durable: bool = True) -> None:
    """Point `name` at `new` whatever it held (for refs that only mirror a remote)."""
    for _ in _lock_waits(repo, name):
        try:
            repo.references.create(name, new, force=True)
            if durable:
                loose.sync_ref(repo, name)
            return
        except OSError as exc:
            if "lock" not in str(exc):
                raise RecordError(f"{name} could not be moved: {exc}") from exc
    raise RecordError(_stale_lock_message(repo, name))


def _lock_waits(repo: pygit2.Repository, name: str) -> Iterator[int]:
    """Attempts, with short growing sleeps between them, for up to LOCK_WAIT_S."""
    deadline = time.monotonic() + LOCK_WAIT_S
    attempt = 0
    while attempt == 0 or time.monotonic() < deadline:
        if attempt:
            time.sleep(min(0.002 * attempt, 0.05))
        yield attempt
        attempt += 1
    if _move_stale_lock(repo, name):
        yield attempt  # once more, the lock a killed writer left moved aside


def _move_stale_lock(repo: pygit2.Repository, name: str) -> bool:
    """Move `name`'s lock aside when it is older than STALE_LOCK_S; whether it was."""
    lock = Path(repo.path) / f"{name}.lock"
    try:
        if time.time() - lock.stat().st_mtime < STALE_LOCK_S:
            return False
        aside = Path(repo.path) / "hale" / "stale-locks"
        aside.mkdir(parents=True, exist_ok=True)
        lock.rename(aside / f"{name.replace('/', '_')}-{time.time_ns()}.lock")
    except OSError:  # gone meanwhile, or not ours to move: the caller says it is locked
        return False
    return True


def _stale_lock_message(repo: pygit2.Repository, name: str) -> str:
    lock = Path(repo.path) / f"{name}.lock"
    return (
        f"{name} stays locked by {lock}; if no hale or git process is running, "
        "a killed writer left it: remove that file"
    )
