"""A cron schedule's missed count is exact however long the gap: counted by days
(and by 400-year cycles), never walked occurrence by occurrence up to a cap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hale_runtime.schedules.cron import MINUTE, compile_cron

EXPRS = [
    "* * * * *",
    "*/7 3-5 * * *",
    "0 0 29 2 *",
    "15 9 1,15 * mon",
    "0 12 * * 1-5",
    "30 2 31 * *",
]
YEAR_MS = 365 * 86_400_000


def _walked(expr: str, first: int, last: int) -> int:
    cron, n = compile_cron(expr), 0
    at = cron.next_after(first - 1)
    while at <= last:
        n, at = n + 1, cron.next_after(at)
    return n


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(EXPRS),
    st.integers(0, 60 * YEAR_MS),
    st.integers(0, 9 * 86_400_000),
)
def test_store_cron_count_agrees_with_walking(expr: str, first: int, span: int) -> None:
    assert compile_cron(expr).count(first, first + span) == _walked(expr, first, first + span)


def test_store_cron_count_passes_the_old_cap() -> None:
    every = compile_cron("* * * * *")
    ten_years = 3652 * 86_400_000  # 1970-01-01 .. 1980-01-01, two leap days inside
    assert every.count(0, ten_years - MINUTE) == 3652 * 1440 > 2_000_000
    # 1000 years of every minute: far past the 1,999,999 the walk stopped at
    assert every.count(0, 1000 * YEAR_MS) > 500_000_000
    leap = compile_cron("0 0 29 2 *")
    span = 400 * 146_097 * 86_400_000 // 400  # one 400-year cycle holds 97 leap days
    assert leap.count(0, span - 1) == 97


def test_store_cron_count_far_in_time() -> None:
    cron = compile_cron("0 12 * * 1-5")
    late = 2**62
    assert cron.count(late, late + 7 * 86_400_000 - 1) == 5
