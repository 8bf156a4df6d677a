"""One organization per clone at a time, whatever became of the host that started it.

Claims name their holder by the clone (`user@host:<clone>`), so a restarted
organization takes its own claims back: right after a crash, and wrong while
the organization before it still runs. That happens when a host is killed
and its fence, busy in a bounded git call, has not yet killed the host's
organization: the next host's organization would take the same claims as
the same holder and act a second time (two offers of one ask, the Leader
asked twice). So an organization holds an flock on
`<gitdir>/hale/organization.lock`, its pid inside, for its whole life (the
kernel drops it with the process), and the host clears the way before it
starts one: a lock still held then belongs to an organization whose host is
gone, since this host holds the clone's host lock. After a grace for that
host's fence to kill it, the host SIGKILLs its process group itself (once
the pid is seen to be an organization of this clone) and waits until the
lock is free.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from pathlib import Path
from typing import IO

import pygit2

POLL_S = 0.05


def lock_path(root: Path) -> Path:
    gitdir = pygit2.discover_repository(str(root)) or str(Path(root) / ".git")
    return Path(gitdir) / "hale" / "organization.lock"


def take(root: Path, wait_s: float) -> IO | None:
    """The organization's side: the lock, held by the open file returned (None when
    another organization kept it for `wait_s`)."""
    path = lock_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    held = open(path, "a+")  # noqa: SIM115 - held open for the process's life
    if not _wait_free(held, wait_s, keep=True):
        held.close()
        return None
    held.truncate(0)
    held.write(f"{os.getpid()}\n")
    held.flush()
    return held


def clear(root: Path, grace_s: float, wait_s: float) -> str:
    """The host's side, before it starts an organization: "" once no organization of
    this clone runs, else why one still does."""
    path = lock_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as probe:
        if _wait_free(probe, grace_s):
            return ""
        probe.seek(0)
        text = probe.read().strip()
        pid = int(text) if text.isdigit() else 0
        if pid and _organization_of(pid, root):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # its own session: the group is its pid
        if _wait_free(probe, wait_s):
            return ""
    return f"an organization of this clone (pid {pid or '?'}) still runs and was not stopped"


def _wait_free(handle: IO, wait_s: float, keep: bool = False) -> bool:
    """Whether the lock came free within `wait_s` (kept when `keep`, else let go)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)
            continue
        if not keep:
            fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def _organization_of(pid: int, root: Path) -> bool:
    """Whether `pid` runs hale's organization for the clone at `root` (not a pid reused)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    words = [a.decode(errors="replace") for a in argv]
    if "hale_runtime.node.organization" not in words or "--root" not in words:
        return False
    at = words.index("--root") + 1
    return at < len(words) and Path(words[at]).resolve() == Path(root).resolve()
