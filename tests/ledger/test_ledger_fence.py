"""The ledger's fence on real PostgreSQL: appenders race a takeover (or a
release) of the body claim, and no append under the old epoch commits after it.

Each cycle ends the epoch as the ledger's keeper does (`take_epoch` or
`release_epoch`), inside a transaction of the test's own, and, once the claim
row is updated and before that commits, takes a snapshot: every row of the
old epoch must be committed in that snapshot (an append that passed its check
before the end committed first; one after it refuses). Without the ledger's
lock an append that read the old token commits whenever it finishes, and
some land after.
"""

from __future__ import annotations

import itertools
import threading

import psycopg
import pytest
from pg import fresh_database, shared_postgres

from hale_runtime.memory import Fenced, open_memory
from hale_runtime.record import kinds
from hale_runtime.record.row import new_row

KEY, ANN = "body", "ann@box:c0ffee00"
APPENDERS, CYCLES = 4, 12


def _append_until_fenced(dsn: str, epoch: int, tag: str, go: threading.Event, out: list) -> None:
    with open_memory(dsn) as memory:
        go.wait()
        for n in itertools.count():
            row, line = new_row(kinds.NODE_PING_REQUESTED, f"{tag}/{n}", {}, ANN, n, "c0ffee00")
            batch = [(row.id, line)]
            if n % 3 == 0:  # some appends carry two rows: one statement either way
                extra, more = new_row(kinds.NODE_PING_REQUESTED, f"{tag}/{n}b", {}, ANN, n, "c0")
                batch.append((extra.id, more))
            try:
                memory.ledger_append(batch, (KEY, epoch))
            except Fenced as fenced:
                out.append(fenced)
                return
            out.extend(i for i, _ in batch)


@pytest.mark.parametrize("ending", ["takeover", "release"])
def test_no_append_under_an_old_epoch_commits_after_its_end(ending: str):
    dsn = fresh_database(shared_postgres())
    ender = open_memory(dsn)
    ender.migrate()
    conn = psycopg.connect(dsn, autocommit=True)
    late_total = 0
    for cycle in range(CYCLES):
        epoch = ender.take_epoch(KEY, ANN, 60).token
        go, outs = threading.Event(), [[] for _ in range(APPENDERS)]
        threads = [
            threading.Thread(target=_append_until_fenced, args=(dsn, epoch, f"{cycle}/{t}", go, o))
            for t, o in enumerate(outs)
        ]
        for thread in threads:
            thread.start()
        go.set()
        while sum(len(o) for o in outs) < 20 * APPENDERS:
            threading.Event().wait(0.005)
        with ender._transaction() as run:  # the end of the epoch, as the keeper runs it
            if ending == "takeover":
                ended = ender.take_epoch(KEY, ANN, 60, within=run).token == epoch + 1
            else:
                ended = ender.release_epoch(KEY, ANN, epoch, within=run)
            snapshot = run("SELECT pg_current_snapshot()", ())[0][0]
        assert ended
        for thread in threads:
            thread.join(30)
        assert not any(t.is_alive() for t in threads)
        late = conn.execute(
            "SELECT count(*) FROM ledger WHERE epoch = %s"
            " AND NOT pg_visible_in_snapshot(xmin::text::xid8, %s::pg_snapshot)",
            (epoch, snapshot),
        ).fetchone()[0]
        late_total += late
        held = {r[0] for r in conn.execute("SELECT id FROM ledger WHERE epoch = %s", (epoch,))}
        for out in outs:
            *appended, last = out
            assert isinstance(last, Fenced)  # every appender was refused in the end
            assert set(appended) <= held  # and what it was told was written, was
    conn.close()
    ender.close()
    assert late_total == 0
