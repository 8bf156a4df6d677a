"""Compiled crons agree with croniter, minute for minute, in UTC."""

from __future__ import annotations

import datetime as dt

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
