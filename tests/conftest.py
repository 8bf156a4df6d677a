"""Fixtures shared by every test folder: the session's throwaway PostgreSQL
and memory databases on each backend in turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg import fresh_database, shared_postgres

from hale_runtime.memory import open_memory


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
