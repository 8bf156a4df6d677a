"""Which database memory and the nerves use, named by a DSN or a path.

`postgresql://…` (or `postgres://…`) names a PostgreSQL database; anything
else is a SQLite file: `sqlite:///abs/path`, `sqlite://rel/path` or a bare
path. Without `HALE_DNA_MEMORY` a project's memory is the embedded SQLite
file `.git/hale/memory.sqlite3` (inside git's folder, so it is never part of
the work tree); the nerves ride on the memory database unless
`HALE_DNA_NERVES` names another.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

ENV_MEMORY = "HALE_DNA_MEMORY"
ENV_NERVES = "HALE_DNA_NERVES"
PG_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(dsn_or_path: str | os.PathLike) -> bool:
    return isinstance(dsn_or_path, str) and dsn_or_path.startswith(PG_SCHEMES)


def sqlite_path(dsn_or_path: str | os.PathLike) -> Path:
    """The file a SQLite DSN or bare path names."""
    text = os.fspath(dsn_or_path)
    return Path(text.removeprefix("sqlite://")).absolute()


def default_memory_path(root: Path) -> Path:
    """The embedded memory file of the project at `root`."""
    git = root / ".git"
    return (git if git.is_dir() else root / ".hale") / "hale" / "memory.sqlite3"


def memory_dsn(root: Path, env: Mapping[str, str] = os.environ) -> str:
    """The memory DSN in use for the project at `root`."""
    named = env.get(ENV_MEMORY, "").strip()
    if named:
        return named if is_postgres(named) else f"sqlite://{sqlite_path(named)}"
    return f"sqlite://{default_memory_path(root)}"


def nerves_dsn(root: Path, env: Mapping[str, str] = os.environ) -> str:
    """The nerves DSN in use: `HALE_DNA_NERVES`, else the memory database."""
    named = env.get(ENV_NERVES, "").strip()
    if named:
        return named if is_postgres(named) else f"sqlite://{sqlite_path(named)}"
    return memory_dsn(root, env)


def redact(dsn: str) -> str:
    """`dsn` with any password replaced by `***`, fit to print."""
    dsn = re.sub(r"(password=)[^&]*", r"\1***", dsn)
    scheme, sep, rest = dsn.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return dsn
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}"
