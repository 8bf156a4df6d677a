"""Memory fixtures: a throwaway PostgreSQL for the session, a fresh database or
SQLite file per test, and `store_dsn` running a test once on each backend."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pg import fresh_database, shared_postgres  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """The session's PostgreSQL server (fails loudly if it cannot start)."""
    return shared_postgres().dsn


@pytest.fixture(params=["sqlite", "postgresql"])
def store_dsn(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty memory database on each backend in turn."""
    if request.param == "sqlite":
        dsn = f"sqlite://{tmp_path / 'memory.sqlite3'}"
    else:
        dsn = fresh_database(shared_postgres())
    with open_memory(dsn) as store:
        store.migrate()
    return dsn


@pytest.fixture
def store(store_dsn: str):
    with open_memory(store_dsn) as opened:
        yield opened
