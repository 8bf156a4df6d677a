"""Fixtures shared by every test folder: an environment of hale's own for
each test, the session's throwaway PostgreSQL, and memory databases on each
backend in turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pg import fresh_database, shared_postgres

from hale_runtime.memory import open_memory


@pytest.fixture(scope="session", autouse=True)
def session_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One signing key for the session's writers (made once, as hale makes its own),
    and one person running the tests: the identity `hale dna new` makes genesis and
    the one the tests' writers name (`org@box:…`), so the session key proves it.
    Set for the whole session, so session fixtures never touch the user's own keys."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = tmp_path_factory.mktemp("keys") / "id_ed25519"
    private = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    path.write_bytes(private)
    path.chmod(0o600)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HALE_DNA_KEY", str(path))
        patch.setenv("LOGNAME", "org")
        patch.setenv("USER", "org")
        patch.delenv("XDG_CONFIG_HOME", raising=False)
        yield path


@pytest.fixture(autouse=True)
def _hale_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the machine's build cache or a node's settings from the
    environment it was started in. The suite runs relaxed (no fsync: it only
    costs time here); the durability tests set `full` themselves."""
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hale-cache"))
    monkeypatch.setenv("HALE_DNA_DURABILITY", "relaxed")
    for name in ("HALE_DNA_MEMORY", "HALE_DNA_NERVES", "HALE_DNA_NODE", "HALE_DNA_OWNER"):
        monkeypatch.delenv(name, raising=False)


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
