"""A throwaway PostgreSQL cluster started from the installed server binaries.

initdb into a fresh temporary folder, start the server on a free port with
fsync off (`-F`), hand out its DSN, and stop it with `pg_ctl stop -m
immediate` and delete the folder. PostgreSQL refuses to run as root, so as
root every server command runs as the `postgres` user (`runuser`) in a
folder chowned to it. Failing to start raises: tests never skip for it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PG_BIN = Path(os.environ.get("HALE_PG_BIN", "/usr/lib/postgresql/15/bin"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _run(argv: list[str]) -> None:
    done = subprocess.run(_as_server_user(argv), capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")


@dataclass
class PgServer:
    folder: Path
    port: int

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        if not self.folder.exists():
            return
        try:
            _run(
                [str(PG_BIN / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop"]
            )
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def start_postgres(fsync: bool = False) -> PgServer:
    """Start a fresh cluster, fsync off unless asked (benches measure both);
    the caller stops it (`PgServer.stop`)."""
    folder = Path(tempfile.mkdtemp(prefix="hale-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", _free_port()
    _run([str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-N"])
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    options += "" if fsync else " -F"
    log = folder / "log"
    try:
        _run(
            [str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-o", options, "start"]
        )
    except RuntimeError as error:
        tail = log.read_text() if log.exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"{error}\n{tail}") from error
    return PgServer(folder, port)


_shared: PgServer | None = None


def shared_postgres() -> PgServer:
    """One server per test process, stopped when the process exits."""
    global _shared
    if _shared is None:
        _shared = start_postgres()
        atexit.register(_shared.stop)
    return _shared


_databases = 0


def fresh_database(server: PgServer) -> str:
    """A new empty database on `server`; its DSN."""
    import psycopg

    global _databases
    _databases += 1
    name = f"t{os.getpid()}_{_databases}"
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.dsn.rsplit("/", 1)[0] + f"/{name}"
