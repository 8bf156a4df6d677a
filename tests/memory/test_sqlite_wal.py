"""Opening one fresh SQLite file from many connections at once: each gets WAL, none fails.

Entering WAL takes an exclusive lock; two connections upgrading at once get
"database is locked" at once from SQLite (it refuses to deadlock rather than
wait), which is what several nodes starting on a fresh memory met.
"""

import sqlite3
import threading

import pytest

from hale_runtime.sqlite_wal import connect_wal


def open_together(path, n: int) -> list[Exception]:
    errors: list[Exception] = []

    def one() -> None:
        try:
            db = connect_wal(path, timeout_s=10, check_same_thread=False)
            db.execute("CREATE TABLE IF NOT EXISTS t (x)")
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            db.close()
        except Exception as error:  # noqa: BLE001 - collected and asserted on below
            errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_many_connections_entering_wal_at_once_all_succeed(tmp_path):
    for round_ in range(80):
        assert open_together(tmp_path / f"fresh{round_}.sqlite3", 6) == []


def test_a_lock_held_past_the_timeout_fails_with_sqlites_error(tmp_path):
    path = tmp_path / "held.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM t").fetchall()  # a shared lock: WAL cannot be entered
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        connect_wal(path, timeout_s=0.1)
    holder.execute("COMMIT")
