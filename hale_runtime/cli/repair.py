"""`hale dna repair`: mend a clone whose record is damaged, from its remote.

What it mends, in order: loose objects that are corrupt (each is
decompressed and hashed; one that is not what its name says is moved aside to
`.git/hale/damaged/`, since git would read it before a good copy); the record's
objects, fetched again whole from the remote (`git fetch --refetch`, which
negotiates nothing, so an object missing under a tip this clone has is
fetched too); a record ref that cannot be read, or that points at a commit
neither this clone nor the remote holds, which is set to the remote's tip (the
journal puts back this clone's own rows it still holds); and the index, which
is derived, removed when SQLite finds it damaged. Then it reads the whole
chain, and says in one line what it did, or what is still damaged.

`damage_line` is how every other verb says the same: git's and SQLite's own
errors on a damaged clone become one line naming the repair.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import click

from hale_runtime.cli.common import fail


def damage_line(error: BaseException) -> str | None:
    """One line for an error of git's or SQLite's that a damaged clone raises
    (None when `error` is neither: it is not damage, and not ours to word)."""
    from hale_runtime.record.errors import REPAIR

    git = sys.modules.get("pygit2")
    damaged = isinstance(error, sqlite3.DatabaseError) or (
        git is not None and isinstance(error, git.GitError)
    )
    if not damaged:
        return None
    what = " ".join(str(error).split()) or type(error).__name__
    return f"the record is damaged: {what}; {REPAIR}"


@click.command("repair")
def repair() -> None:
    """Mend a damaged record from its remote: corrupt or missing objects, a broken ref, the index."""
    import pygit2

    from hale_runtime.project import find_root
    from hale_runtime.record import Record, RecordError, store
    from hale_runtime.record.chain import tracking_ref

    root = find_root()
    repo = pygit2.Repository(str(root))
    gitdir = Path(repo.path)
    done = []
    aside = _move_corrupt(gitdir)
    if aside:
        done.append(f"moved {aside} corrupt object(s) aside to .git/hale/damaged")
    if _drop_index(gitdir / "hale" / "record.index"):
        done.append("removed the damaged index (it is made again)")
    broken = _drop_broken_ref(repo, store.RECORD_REF)  # git's fetch would trip on it too
    remote = _remote_of(repo)
    if remote is not None:
        why = _git(gitdir, "fetch", "--refetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                   remote, f"+{store.RECORD_REF}*:{tracking_ref(remote)}*")  # fmt: skip
        if why:
            fail(f"repair: fetching the record from {remote} failed: {why}")
        done.append(f"fetched the record again from {remote}")
    repo = pygit2.Repository(str(root))  # a new one sees the objects just written
    reset = _mend_ref(repo, store.RECORD_REF, tracking_ref(remote) if remote else None, broken)
    if reset:
        done.append(reset)
    try:
        record = Record.open(root)
        count = len(record.rows(poison=True))
    except RecordError as error:
        hint = "" if remote else " (this clone has no remote to fetch it from)"
        fail(f"repair: still damaged{hint}: {error}")
    except (pygit2.GitError, sqlite3.DatabaseError) as error:
        fail(f"repair: still damaged: {' '.join(str(error).split())}")
    click.echo(
        f"repair: the record reads whole ({count} rows); " + ("; ".join(done) or "nothing to mend")
    )


def _remote_of(repo) -> str | None:
    from hale_runtime.record import Record

    with contextlib.suppress(Exception):
        return Record.open(repo.workdir or repo.path, sign=False).remote()
    names = list(repo.remotes.names())
    return "origin" if "origin" in names else (names[0] if names else None)


def _move_corrupt(gitdir: Path) -> int:
    """Move aside every loose object whose content is not what its name says."""
    objects = gitdir / "objects"
    aside = gitdir / "hale" / "damaged"
    moved = 0
    for folder in sorted(objects.glob("[0-9a-f][0-9a-f]")):
        for path in folder.iterdir():
            name = folder.name + path.name
            if len(name) != 40 or _sound(path, name):
                continue
            aside.mkdir(parents=True, exist_ok=True)
            os.replace(path, aside / name)
            moved += 1
    return moved


def _sound(path: Path, name: str) -> bool:
    try:
        data = zlib.decompress(path.read_bytes())
    except (OSError, zlib.error):
        return False
    return hashlib.sha1(data).hexdigest() == name


def _drop_index(path: Path) -> bool:
    """Remove the index when SQLite finds it damaged (it is derived from git)."""
    if not path.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(path)) as db:
            sound = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        sound = False
    if sound:
        return False
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()
    return True


def _drop_broken_ref(repo, name: str) -> bool:
    """Remove the loose ref `name` when it cannot be read at all; whether it was."""
    import pygit2

    try:
        repo.references.get(name)
        return False
    except (pygit2.GitError, ValueError):
        with contextlib.suppress(FileNotFoundError):
            (Path(repo.path) / name).unlink()
        return True


def _mend_ref(repo, name: str, tracking: str | None, broken: bool) -> str:
    """Point a record ref that could not be read (`broken`, removed), or names a
    missing commit, at the remote's tip; what was done ("" when the ref was sound)."""
    import pygit2

    try:
        ref = repo.references.get(name)
        if (ref is None and not broken) or (ref is not None and repo.get(ref.target) is not None):
            return ""
    except (pygit2.GitError, ValueError):
        pass
    theirs = repo.references.get(tracking) if tracking else None
    with contextlib.suppress(FileNotFoundError):
        (Path(repo.path) / name).unlink()
    if theirs is None:
        return f"removed {name}, which could not be read (no remote tip to set it to)"
    repo.references.create(name, theirs.target, force=True)
    return f"set {name}, which could not be read, to the remote's tip {str(theirs.target)[:12]}"


def _git(gitdir: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"git exited {done.returncode}"])[-1]
