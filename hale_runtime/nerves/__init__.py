"""The nerves: subject-addressed messages between host, organization and nodes.

`open_nerves(dsn_or_path)` picks the backend as memory does: LISTEN/NOTIFY
on a `postgresql://` database, otherwise a table in the embedded SQLite
memory file (no server). Both need memory's schema (`hale dna memory
migrate`). Every failure to carry a message raises NervesFailed.
"""

from __future__ import annotations

import os

from hale_runtime.memory.dsn import is_postgres, sqlite_path
from hale_runtime.nerves.message import (
    Dispatcher,
    Message,
    Nerves,
    NervesFailed,
    Subscription,
    check_subject,
    subject_of,
    topic_of,
)

__all__ = [
    "Dispatcher",
    "Message",
    "Nerves",
    "NervesFailed",
    "Subscription",
    "check_subject",
    "open_nerves",
    "subject_of",
    "topic_of",
]


def open_nerves(dsn_or_path: str | os.PathLike) -> Nerves:
    """Connect to the nerves `dsn_or_path` names."""
    if is_postgres(dsn_or_path):
        from hale_runtime.extras import need

        need("postgres")
        from hale_runtime.nerves.postgres import PostgresNerves

        return PostgresNerves(os.fspath(dsn_or_path))
    from hale_runtime.nerves.sqlite import SqliteNerves

    return SqliteNerves(sqlite_path(dsn_or_path))
