"""Moving a loose ref by compare-and-swap, as git does, without libgit2.

libgit2's `set_target` costs about twenty system calls a move: it reads the
config for a reflog signature, opens the target object to check it exists,
looks for packed refs, reads the ref twice and tries a hard link before it
renames. An append moves `refs/dna/record` once, and has just written the
commit itself, so here the move is git's lock protocol alone: create
`<ref>.lock` exclusively (the lock every git and libgit2 writer takes),
compare the loose file with the expected old value, write the new one into
the lock and rename it over the ref. A writer holding the lock makes the
create fail, and the caller waits as it waits for libgit2.

Only the plain case is taken: a ref that is a loose file, with no reflog
to append to (git keeps none for `refs/dna/*` unless
`core.logAllRefUpdates=always`, read once per repository). Anything else
(a packed ref, a reflog, a repository of another ref storage) answers None,
and the caller moves it through libgit2.
"""

from __future__ import annotations

import os

import pygit2

from hale_runtime.record import loose
from hale_runtime.record.errors import RecordError

_LOCK = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_plain: dict[str, str | None] = {}  # gitdir -> the folder refs live in, None: not plain


class Locked(Exception):
    """Another writer holds the ref's lock file."""


def _refs_home(repo: pygit2.Repository) -> str | None:
    """The folder loose refs live in, or None when they are logged for every ref."""
    if repo.path not in _plain:
        config = repo.config
        always = "core.logallrefupdates" in config and (
            str(config["core.logallrefupdates"]).lower() == "always"
        )
        _plain[repo.path] = None if always else str(loose.common_dir(repo))
    return _plain[repo.path]


def move(repo: pygit2.Repository, name: str, old: pygit2.Oid, new: pygit2.Oid) -> bool | None:
    """Move the loose ref `name` from `old` to `new`: True when moved, False
    when it held something else, None when it is not a plain loose ref
    (nothing done). Locked when another writer holds its lock."""
    home = _refs_home(repo)
    if home is None:
        return None
    path = os.path.join(home, name)
    lock = path + ".lock"
    if os.path.exists(os.path.join(home, "logs", name)):
        return None
    try:
        fd = os.open(lock, _LOCK, 0o644)
    except FileExistsError:
        raise Locked(lock) from None
    except OSError:
        return None  # no such folder, or not writable: libgit2 says why
    try:
        moved = _swap(fd, path, old, new)
        os.close(fd)
        fd = -1
        if moved:
            os.rename(lock, path)
    except BaseException as exc:
        if fd >= 0:
            os.close(fd)
        os.unlink(lock)
        if isinstance(exc, OSError):
            raise RecordError(f"{name} could not be moved: {exc}") from exc
        raise
    if not moved:
        os.unlink(lock)
    return moved


def _swap(fd: int, path: str, old: pygit2.Oid, new: pygit2.Oid) -> bool | None:
    """Write `new` into the lock `fd` when the ref at `path` holds `old`."""
    try:
        with open(path, "rb") as held:
            current = held.read()
    except FileNotFoundError:
        return None  # packed, or another ref storage: libgit2's to move
    if current.strip() != str(old).encode():
        return False
    os.write(fd, b"%s\n" % str(new).encode())
    return True
