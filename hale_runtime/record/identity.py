"""Who writes a row, from which clone, and when.

A clone's id is generated once and kept in the repository's own git config
(`hale.clone`), so every process in a clone signs the same way. `who` is
`user@host:<clone>`, or HALE_DNA_NODE when the host has set it. Time is a
callable returning UTC milliseconds, injected wherever determinism matters.
"""

from __future__ import annotations

import getpass
import os
import secrets
import socket
import time
from collections.abc import Callable

import pygit2

Clock = Callable[[], int]
CLONE_KEY = "hale.clone"
NODE_ENV = "HALE_DNA_NODE"


def wall_clock() -> int:
    """UTC milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def clone_id(repo: pygit2.Repository) -> str:
    """This clone's id, made and stored in its git config on first use."""
    config = repo.config
    if CLONE_KEY not in config:
        repo.config[CLONE_KEY] = secrets.token_hex(4)
        config = repo.config  # another process may have written first: keep what stuck
    return str(config[CLONE_KEY])


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
