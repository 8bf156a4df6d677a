"""Issue 32 item 2: every schedule is its own `convenes` edge in memory's graph,
carrying its cadence; a schedule changed or retired moves its own edge only, and
the processes read from memory agree with the record's (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from pg import fresh_database, shared_postgres  # noqa: E402
from schedule_helpers import HandClock, Org, new_project, terms  # noqa: E402

from hale_runtime.memory import open_memory  # noqa: E402
from hale_runtime.memory.projection import project  # noqa: E402
from hale_runtime.schedules.listing import memory_process_lines, process_lines  # noqa: E402

EDITOR = "position:editor convenes definition:ask-edit"


def cadences(memory) -> dict[str, str]:
    return {e.via: e.props["cadence"] for e in memory.edges("convenes")}


def test_each_schedule_is_its_own_edge_with_its_cadence(tmp_path: Path):
    org = Org(new_project(tmp_path / "p"), HandClock())
    for id, every in (("nightly", 0), ("hourly", 3_600_000), ("brisk", 90_000), ("five", 300_000)):
        assert org.answer(org.ask(terms(id=id, every_ms=every)))["declared"]
    want = {"nightly": "cron 0 2 * * *", "hourly": "every 1h", "brisk": "every 90s",
            "five": "every 5m"}  # fmt: skip
    assert cadences(org.memory) == want
    assert memory_process_lines(org.memory) == process_lines(org.record)
    assert f"{EDITOR} every 90s" in process_lines(org.record)

    assert org.answer(org.ask(terms(id="five", every_ms=600_000)))["declared"]  # changed
    assert cadences(org.memory) == {**want, "five": "every 10m"}
    assert memory_process_lines(org.memory) == process_lines(org.record)
    assert process_lines(org.record)[0].startswith("processes: 4 rhythm(s)")

    # a memory that never saw the locus: the projection of the record alone agrees,
    # on PostgreSQL, where several bodies share one memory
    pg = open_memory(fresh_database(shared_postgres()))
    pg.migrate()
    try:
        while project(org.record, pg):
            pass
        assert cadences(pg) == cadences(org.memory)
        assert memory_process_lines(pg) == process_lines(org.record)
    finally:
        pg.close()


def test_a_memory_from_before_keeps_its_edges_each_under_its_schedule(tmp_path: Path):
    import json
    import sqlite3

    from hale_runtime.memory.schema import MIGRATIONS, VERSION_TABLE

    path = tmp_path / "memory.sqlite3"
    with sqlite3.connect(path) as db:  # memory as schema 4 left it
        for statement in [VERSION_TABLE, *sum(MIGRATIONS["sqlite"][:4], [])]:
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (4)")
        props = json.dumps({"schedule": "five", "cadence": "every 5m"})
        db.execute("INSERT INTO edges VALUES ('position:editor', 'convenes', 'd', ?)", (props,))
        db.execute("INSERT INTO edges VALUES ('a', 'reaches', 'store:forge', '{}')")
    memory = open_memory(path)
    try:
        assert memory.migrate()[1] == 5
        assert [(e.kind, e.via) for e in memory.edges()] == [("reaches", ""), ("convenes", "five")]
    finally:
        memory.close()
