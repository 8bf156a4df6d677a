"""Who writes a row, from which clone, and when.

A clone's id is generated once and kept in the repository's own git config
(`hale.clone`), so every process in a clone signs the same way. `who` is
`user@host:<clone>`, or HALE_DNA_NODE when the host has set it. Time is a
callable returning UTC milliseconds, injected wherever determinism matters.
"""

from __future__ import annotations

import fcntl
import getpass
import os
import secrets
import socket
import time
from collections.abc import Callable

import pygit2

from hale_runtime.record.loose import common_dir

Clock = Callable[[], int]
CLONE_KEY = "hale.clone"
NODE_ENV = "HALE_DNA_NODE"
CONFIG_TRIES = 300  # 10 ms apart


def wall_clock() -> int:
    """UTC milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def clone_id(repo: pygit2.Repository) -> str:
    """This clone's id, made and stored in its git config on first use. Processes
    starting together in a fresh clone would each make one and overwrite each
    other's, so the first use looks again and writes under a lock file of its
    own, beside the config, and every process reads the one that stuck."""
    config = repo.config
    if CLONE_KEY in config:
        return str(config[CLONE_KEY])
    with open(common_dir(repo) / "hale-clone.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for _ in range(CONFIG_TRIES):
            config = repo.config
            if CLONE_KEY in config:
                break
            try:
                config[CLONE_KEY] = secrets.token_hex(4)
            except pygit2.GitError:  # git itself holds config.lock a moment: again
                time.sleep(0.01)
        return str(repo.config[CLONE_KEY])


def default_who(clone: str) -> str:
    """`user@host:<clone>`, unless HALE_DNA_NODE names the writer."""
    node = os.environ.get(NODE_ENV)
    if node:
        return node
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}:{clone}"
