"""Claims on PostgreSQL through libpq's prepared statements (memory/postgres.py's
`_write_one`): a statement deallocated under the memory is prepared again, a
failed statement says why in one line, and any key or holder comes back as it
went in (a NUL is refused, never cut short)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pg import fresh_database, shared_postgres

from hale_runtime.memory import MemoryFailed, open_memory


@pytest.fixture(scope="module")
def pg_memory():
    dsn = fresh_database(shared_postgres())
    with open_memory(dsn) as memory:
        memory.migrate()
        yield memory


def test_a_take_after_its_statement_was_deallocated_prepares_it_again(pg_memory):
    first = pg_memory.take("dealloc/a", "ann@box:c1", 30)
    pg_memory._run("DEALLOCATE ALL")  # what psycopg sends after a rollback
    assert pg_memory.release("dealloc/a", "ann@box:c1", first.token)
    second = pg_memory.take("dealloc/a", "bob@box:c2", 30)
    assert (second.holder, second.token) == ("bob@box:c2", first.token + 1)
    with pytest.raises(RuntimeError), pg_memory._transaction() as run:
        run("SELECT 1", ())
        raise RuntimeError("rolled back")
    renewed = pg_memory.renew("dealloc/a", "bob@box:c2", second.token, 60)
    assert renewed.until - renewed.now == 60_000
    assert pg_memory.take("dealloc/a", "ann@box:c1", 30) is None


def test_a_failed_statement_is_one_line_naming_the_database(pg_memory):
    with pytest.raises(MemoryFailed) as failed:
        pg_memory._write_one("SELECT %s::int", ("not a number",))
    assert "invalid input syntax for type integer" in str(failed.value)
    assert "\n" not in str(failed.value) and pg_memory.dsn.split("@")[-1] in str(failed.value)


def test_a_key_holding_nul_is_refused_not_cut_short(pg_memory):
    with pytest.raises(MemoryFailed, match="NUL"):
        pg_memory.take("nul/a\x00b", "ann@box:c1", 30)
    assert pg_memory.claim("nul/a") is None


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(key=TEXT, holder=TEXT)
def test_any_key_and_holder_come_back_as_they_went_in(pg_memory, key, holder):
    key = f"any/{key}"
    if "\x00" in key + holder:
        with pytest.raises(MemoryFailed):
            pg_memory.take(key, holder, 30)
        return
    grant = pg_memory.take(key, holder, 30)
    assert grant is not None and (grant.key, grant.holder) == (key, holder)
    held = pg_memory.claim(key)
    assert (held.holder, held.token) == (holder, grant.token)
    assert pg_memory.release(key, holder, grant.token)
    assert not pg_memory.release(key, holder, grant.token)
