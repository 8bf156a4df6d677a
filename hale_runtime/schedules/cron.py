"""Cron expressions compiled once into per-field sets, evaluated in UTC minutes.

croniter parses and validates an expression (`croniter.expand`), once per
distinct expression; matching then needs no croniter call: a day matches
when its month is in the month set and its day-of-month or weekday matches
(the usual cron rule: when both are restricted, either one suffices), and
the next or latest matching minute is found by walking days, then hours and
minutes with bisect. Expressions using `L` or `#` fall back to croniter
itself. Times are UTC milliseconds; an occurrence is a whole minute.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from functools import lru_cache

from croniter import croniter

MINUTE = 60_000
DAY = 86_400_000
HORIZON_DAYS = 366 * 8  # the farthest a search walks ("0 0 29 2 1" fits)
MAX_COUNT = 2_000_000
_EPOCH = dt.date(1970, 1, 1).toordinal()


class CronError(ValueError):
    """A malformed expression; the message says why."""


def check(expr: str) -> str:
    """Nothing ("") when `expr` is a five-field cron croniter accepts, else why not."""
    if len(expr.split()) != 5 and not expr.strip().startswith("@"):
        return "a cron has five fields (minute hour day-of-month month weekday)"
    try:
        croniter.expand(expr)
    except Exception as e:  # croniter raises several types for bad input
        return str(e) or type(e).__name__
    return ""


@lru_cache(maxsize=4096)
def compile_cron(expr: str) -> Cron:
    """The compiled form of `expr` (memoised per distinct expression)."""
    return Cron(expr)


class Cron:
    def __init__(self, expr: str):
        why = check(expr)
        if why:
            raise CronError(why)
        fields, nth = croniter.expand(expr)
        self.expr = expr
        self.special = bool(nth) or any(isinstance(v, str) and v != "*" for f in fields for v in f)
        self.minutes = _values(fields[0], range(60))
        self.hours = _values(fields[1], range(24))
        self.doms = None if fields[2] == ["*"] else set(fields[2])
        self.months = set(_values(fields[3], range(1, 13)))
        dows = None if fields[4] == ["*"] else {int(v) % 7 for v in fields[4]}
        self.dows = dows

    def day_matches(self, days: int) -> bool:
        """Whether the UTC day `days` after the epoch can hold an occurrence."""
        month, day = _month_day(days)
        if month not in self.months:
            return False
        dom = self.doms is None or day in self.doms
        dow = self.dows is None or (days + 4) % 7 in self.dows
        if self.doms is not None and self.dows is not None:
            return dom or dow
        return dom and dow

    def next_after(self, at: int) -> int:
        """The first matching minute strictly after `at` (ms)."""
        if self.special:
            return _croniter_step(self.expr, at, forward=True)
        start = at // MINUTE * MINUTE + MINUTE
        days, rest = divmod(start, DAY)
        for d in range(days, days + HORIZON_DAYS):
            if self.day_matches(d):
                found = self._first_in_day(rest if d == days else 0)
                if found is not None:
                    return d * DAY + found
        raise CronError(f"`{self.expr}` never occurs")

    def latest_at_or_before(self, at: int) -> int:
        """The last matching minute at or before `at` (ms)."""
        if self.special:
            return _croniter_step(self.expr, at // MINUTE * MINUTE + MINUTE, forward=False)
        days, rest = divmod(at // MINUTE * MINUTE, DAY)
        for d in range(days, days - HORIZON_DAYS, -1):
            if self.day_matches(d):
                found = self._last_in_day(rest if d == days else DAY - MINUTE)
                if found is not None:
                    return d * DAY + found
        raise CronError(f"`{self.expr}` never occurred")

    def count(self, first: int, last: int) -> int:
        """How many matching minutes lie in [first, last]."""
        n, at = 0, self.next_after(first - 1)
        while at <= last and n < MAX_COUNT:
            n += 1
            at = self.next_after(at)
        return n

    def _first_in_day(self, from_ms: int) -> int | None:
        h, m = divmod(from_ms // MINUTE, 60)
        i = bisect_left(self.hours, h)
        while i < len(self.hours):
            hour = self.hours[i]
            j = bisect_left(self.minutes, m if hour == h else 0)
            if j < len(self.minutes):
                return (hour * 60 + self.minutes[j]) * MINUTE
            i += 1
        return None

    def _last_in_day(self, upto_ms: int) -> int | None:
        h, m = divmod(upto_ms // MINUTE, 60)
        i = bisect_right(self.hours, h) - 1
        while i >= 0:
            hour = self.hours[i]
            j = bisect_right(self.minutes, m if hour == h else 59) - 1
            if j >= 0:
                return (hour * 60 + self.minutes[j]) * MINUTE
            i -= 1
        return None


@lru_cache(maxsize=8192)
def _month_day(days: int) -> tuple[int, int]:
    date = dt.date.fromordinal(_EPOCH + days)
    return date.month, date.day


def _values(field: list, full: range) -> list[int]:
    return list(full) if field == ["*"] else sorted(int(v) for v in field if v != "l")


def _croniter_step(expr: str, at: int, forward: bool) -> int:
    base = dt.datetime.fromtimestamp(at / 1000, dt.UTC)
    it = croniter(expr, base)
    when = it.get_next(dt.datetime) if forward else it.get_prev(dt.datetime)
    return int(when.timestamp()) * 1000
