"""Compiled crons agree with croniter, minute for minute, in UTC."""

from __future__ import annotations

import datetime as dt

import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from hale_runtime.schedules.cron import MINUTE, check, compile_cron

EXPRS = [
    "0 2 * * *", "*/15 9-17 * jan-mar mon-fri", "0 0 1,15 * 1", "30 4 * * 7",
    "5 */3 10-20 * *", "0 0 29 2 *", "0 0 L * *", "0 0 * * 5#2", "* * * * *", "@daily",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(EXPRS), st.integers(1_600_000_000_000, 1_900_000_000_000))
def test_next_and_latest_agree_with_croniter(expr: str, at: int) -> None:
    c = compile_cron(expr)
    base = dt.datetime.fromtimestamp(at / 1000, dt.UTC)
    want = int(croniter(expr, base).get_next(dt.datetime).timestamp()) * 1000
    assert c.next_after(at) == want
    floor = dt.datetime.fromtimestamp((at // MINUTE * MINUTE + MINUTE) / 1000, dt.UTC)
    prev = int(croniter(expr, floor).get_prev(dt.datetime).timestamp()) * 1000
    assert c.latest_at_or_before(at) == prev


def test_count_counts_matching_minutes_inclusive() -> None:
    c = compile_cron("0 2 * * *")
    day = 86_400_000
    assert c.count(2 * 3_600_000, 2 * 3_600_000 + 2 * day) == 3


def test_check_names_what_is_malformed() -> None:
    assert check("0 2 * * *") == ""
    assert "five fields" in check("0 2 * *")
    assert "out of range" in check("0 24 * * *")


def _item(lo: int, hi: int, names: list[str]) -> st.SearchStrategy[str]:
    number = st.integers(lo - 1, hi + 2).map(str) | st.sampled_from(names or ["x"])
    step = st.integers(0, hi + 3).map(lambda n: f"/{n}")
    base = st.sampled_from(["*", "?"]) | number | st.tuples(number, number).map("-".join)
    return st.tuples(base, st.one_of(st.just(""), step)).map("".join)


def _field(lo: int, hi: int, names: list[str] = ()) -> st.SearchStrategy[str]:
    return st.lists(_item(lo, hi, list(names)), min_size=1, max_size=3).map(",".join)


MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
DAYS = "sun mon tue wed thu fri sat".split()


@settings(max_examples=300, deadline=None)
@given(
    st.tuples(
        _field(0, 59), _field(0, 23), _field(1, 31), _field(1, 12, MONTHS), _field(0, 7, DAYS)
    ).map(" ".join)
)
def test_one_pass_compiling_agrees_with_croniter(expr: str) -> None:
    """What the fast parser accepts, croniter accepts with the same sets; the rest
    goes to croniter, so acceptance and refusals are croniter's."""
    from hale_runtime.schedules import cron

    fast = cron._parse(expr)
    try:
        want = cron._from_croniter(expr)
    except cron.CronError:
        assert fast is None
        return
    if fast is not None and not want.special:
        got = cron.Cron(expr, *fast, special=False)
        for name in ("minutes", "hours", "doms", "months", "dows"):
            assert getattr(got, name) == getattr(want, name), name


@pytest.mark.parametrize(
    "expr", ["* * ? * */1", "0 0 1-31 * 1", "0 0 5 * 0-6", "0 0 5 * */1", "0 0 */1 * */1"]
)
def test_a_day_field_written_in_full_follows_croniters_day_rule(expr: str) -> None:
    """`0 0 1-31 * 1` fires every day for croniter (both day fields restricted:
    either matches), not only on Mondays."""
    at = int(dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
    compiled, walker = compile_cron(expr), croniter(expr, at / 1000)
    for _ in range(20):
        at = compiled.next_after(at)
        assert at == int(walker.get_next(float) * 1000), expr


def test_identical_expressions_share_one_compiled_form() -> None:
    assert compile_cron("0 2 * * *") is compile_cron(" 0  2 * * * ")
