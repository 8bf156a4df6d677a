"""Memory: claims by id, the projected graph and the projection cursor.

`open_memory(dsn_or_path)` picks the backend from the name: PostgreSQL for a
`postgresql://` DSN, the embedded SQLite file otherwise. Both answer the
same interface (`hale_runtime.memory.store.SqlMemory`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from hale_runtime.memory.dsn import (
    ENV_MEMORY,
    ENV_NERVES,
    default_memory_path,
    is_postgres,
    memory_dsn,
    nerves_dsn,
    sqlite_path,
)
from hale_runtime.memory.store import SqlMemory
from hale_runtime.memory.types import (
    DropEdge,
    DropVia,
    Edge,
    EraseProtected,
    Fenced,
    Grant,
    GraphOp,
    KeepProtected,
    MemoryFailed,
    Node,
    SetHolder,
)

Memory = SqlMemory

__all__ = [
    "ENV_MEMORY",
    "ENV_NERVES",
    "DropEdge",
    "DropVia",
    "Edge",
    "EraseProtected",
    "KeepProtected",
    "Fenced",
    "Grant",
    "GraphOp",
    "Memory",
    "MemoryFailed",
    "Node",
    "SetHolder",
    "default_memory_path",
    "memory_dsn",
    "nerves_dsn",
    "open_memory",
]


def open_memory(
    dsn_or_path: str | os.PathLike, clock: Callable[[], float] = time.monotonic
) -> Memory:
    """Connect to the memory `dsn_or_path` names; `clock` is the node's (for deadlines)."""
    if is_postgres(dsn_or_path):
        from hale_runtime.extras import need

        need("postgres")
        from hale_runtime.memory.postgres import PostgresMemory

        return PostgresMemory(os.fspath(dsn_or_path), clock)
    from hale_runtime.memory.sqlite import SqliteMemory

    return SqliteMemory(sqlite_path(dsn_or_path), clock)
