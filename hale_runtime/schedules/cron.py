"""Cron expressions compiled once into per-field sets, evaluated in UTC minutes.

Compiling is one pass that checks and builds together: the usual five-field
syntax (numbers, names, `*`, `?`, ranges, steps, lists, and the `@daily`
family) is parsed here into sorted minutes and hours and sets of days,
months and weekdays. Anything else (`L`, `#`, `W`, a weekday range through
7, a malformed field) goes to croniter (`croniter.expand`), which accepts
the rest and words the refusals. Identical expressions (spacing aside)
share one compiled form. A field that covers its whole range reads as `*`,
as croniter reads it, since it decides the day rule: a day matches when
its month is in the month set and its day-of-month or weekday matches
(when both are restricted, either one suffices). A day field written out
in full (`1-31`, `*/1`, `0-6`) counts as restricted or not by croniter's
own rule, which looks at the other field, so such expressions compile
through croniter. The next or latest
matching minute is found by walking days, then hours and minutes with
bisect; expressions using `L` or `#` ask croniter itself. Times are UTC
milliseconds; an occurrence is a whole minute.
"""

from __future__ import annotations

import datetime as dt
import time
from bisect import bisect_left, bisect_right
from functools import lru_cache

from croniter import croniter

from hale_runtime import errors

MINUTE = 60_000
DAY = 86_400_000
HORIZON_DAYS = 366 * 8  # the farthest a search walks ("0 0 29 2 1" fits)
MAX_COUNT = 2_000_000  # occurrences walked one by one (croniter-only syntax)
CYCLE_DAYS = 146_097  # days in 400 Gregorian years: dates and weekdays repeat after it
SHARED = 65_536  # compiled forms kept for sharing
_EPOCH = dt.date(1970, 1, 1).toordinal()
_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_FULL = tuple(frozenset(range(lo, hi + 1)) for lo, hi in _BOUNDS)
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_NAMES: dict[int, dict[str, int]] = {
    3: {name: n for n, name in enumerate(_MONTHS, 1)},
    4: {name: n for n, name in enumerate("sun mon tue wed thu fri sat".split())},
}
_ALIASES = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}  # fmt: skip
FIVE = "a cron has five fields (minute hour day-of-month month weekday)"
NEVER = f"never occurs: no minute in the next {HORIZON_DAYS // 366} years matches it"


class CronError(errors.Refused, ValueError):
    """A malformed expression; the message says why."""


def check(expr: str, at: int | None = None) -> str:
    """Nothing ("") when `expr` is a five-field cron croniter accepts that occurs
    within HORIZON_DAYS after `at` (now when None), else why not."""
    try:
        compiled = compile_cron(expr)
    except CronError as e:
        return str(e)
    at = time.time_ns() // 1_000_000 if at is None else at
    try:
        compiled.next_after(at)
    except (CronError, ValueError, OverflowError, KeyError):  # croniter's own, for `#`/`L`
        return NEVER
    return ""


_shared: dict[str, Cron] = {}


def compile_cron(expr: str) -> Cron:
    """The compiled form of `expr`, shared by every identical expression."""
    key = " ".join(expr.split())
    found = _shared.get(key)
    if found is None:
        if len(_shared) >= SHARED:
            _shared.clear()
        found = _shared[key] = _compile(key)
    return found


def _compile(expr: str) -> Cron:
    fields = _parse(_ALIASES.get(expr.lower(), expr))
    if fields is not None:
        return Cron(expr, *fields, special=False)
    return _from_croniter(expr)


def _parse(expr: str) -> tuple | None:
    """(minutes, hours, doms, months, dows) of the usual syntax, None for anything else.
    A set is None where the field reads as `*`."""
    parts = expr.split(" ")
    if len(parts) != 5:
        return None
    sets: list[frozenset[int] | None] = []
    for index, part in enumerate(parts):
        if "?" in part and part != "?":
            return None  # croniter refuses `?` beside anything
        values: set[int] = set()
        for item in part.split(","):
            got = _item(item, index)
            if got is None:
                return None
            values.update(got)
        if values == _FULL[index] and index in (2, 4) and part not in ("*", "?"):
            return None  # a whole day field written out: croniter's day rule decides (below)
        sets.append(None if values == _FULL[index] else frozenset(values))
    minutes, hours, doms, months, dows = sets
    return (
        sorted(minutes) if minutes is not None else list(range(60)),
        sorted(hours) if hours is not None else list(range(24)),
        doms,
        months if months is not None else _FULL[3],
        dows,
    )


def _item(item: str, index: int) -> range | tuple[int, ...] | None:
    """The values of one list item of field `index`, None when it is not the usual syntax."""
    lo, hi = _BOUNDS[index]
    base, slash, step_text = item.partition("/")
    step = 1
    if slash:
        if not step_text.isdigit() or int(step_text) == 0:
            return None
        step = int(step_text)
    if base == "*" or base == "?" and index in (2, 4) and not slash:
        return range(lo, hi + 1, step)
    first_text, dash, last_text = base.partition("-")
    first = _number(first_text, index)
    if first is None or not lo <= first <= hi:
        return (0,) if index == 4 and first == 7 and not slash and not dash else None
    if not dash:
        return range(first, hi + 1, step) if slash else (first,)
    last = _number(last_text, index)
    if last is None or not first < last <= hi:  # croniter reads `5-5` as `*`: leave it that
        return None
    return range(first, last + 1, step)


def _number(text: str, index: int) -> int | None:
    if text.isdigit() and text.isascii():
        return int(text)
    return _NAMES.get(index, {}).get(text.lower())


def _from_croniter(expr: str) -> Cron:
    """Compile through croniter: the syntax `_parse` leaves to it, and its refusals."""
    if len(expr.split()) != 5 and not expr.strip().startswith("@"):
        raise CronError(FIVE)
    try:
        fields, nth = croniter.expand(expr)
    except Exception as e:  # croniter raises several types for bad input
        raise CronError(str(e) or type(e).__name__) from e
    special = bool(nth) or any(isinstance(v, str) and v != "*" for f in fields for v in f)
    return Cron(
        expr,
        _values(fields[0], range(60)),
        _values(fields[1], range(24)),
        None if "*" in fields[2] else frozenset(fields[2]),
        frozenset(_values(fields[3], range(1, 13))),
        None if "*" in fields[4] else frozenset(int(v) % 7 for v in fields[4]),
        special=special,
    )


class Cron:
    __slots__ = ("expr", "minutes", "hours", "doms", "months", "dows", "special", "_per_cycle")

    def __init__(
        self,
        expr: str,
        minutes: list[int],
        hours: list[int],
        doms: frozenset[int] | None,
        months: frozenset[int],
        dows: frozenset[int] | None,
        special: bool,
    ):
        self.expr = expr
        self.minutes, self.hours = minutes, hours
        self.doms, self.months, self.dows = doms, months, dows
        self.special = special
        self._per_cycle = -1  # matching days in one 400-year cycle, counted when first asked

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
        raise CronError(f"`{self.expr}` {NEVER}")

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
        """How many matching minutes lie in [first, last]: counted by days, not
        walked occurrence by occurrence, so a long gap's count is exact (the
        calendar repeats every 400 years, a whole number of weeks). Only the
        croniter-only syntax is walked, and stops at MAX_COUNT."""
        if last < first:
            return 0
        if self.special:
            n, at = 0, self.next_after(first - 1)
            while at <= last and n < MAX_COUNT:
                n += 1
                at = self.next_after(at)
            return n
        offsets = [(h * 60 + m) * MINUTE for h in self.hours for m in self.minutes]
        d1, r1 = divmod(first, DAY)
        d2, r2 = divmod(last, DAY)
        if d1 == d2:
            inside = bisect_right(offsets, r2) - bisect_left(offsets, r1)
            return inside if self.day_matches(d1) else 0
        n = len(offsets) * self._days_matching(d1 + 1, d2)
        if self.day_matches(d1):
            n += len(offsets) - bisect_left(offsets, r1)
        if self.day_matches(d2):
            n += bisect_right(offsets, r2)
        return n

    def _days_matching(self, start: int, stop: int) -> int:
        """How many days in [start, stop) can hold an occurrence."""
        if stop - start > CYCLE_DAYS:
            if self._per_cycle < 0:
                self._per_cycle = self._days_matching(0, CYCLE_DAYS)
            cycles, rest = divmod(stop - start, CYCLE_DAYS)
            start %= CYCLE_DAYS  # the same days, 400 years on or back
            return cycles * self._per_cycle + self._days_matching(start, start + rest)
        return sum(1 for d in range(start, stop) if self.day_matches(d))

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
    # the calendar repeats every CYCLE_DAYS, so any day maps into the dates Python holds
    date = dt.date.fromordinal(_EPOCH + days % CYCLE_DAYS)
    return date.month, date.day


def _values(field: list, full: range) -> list[int]:
    return list(full) if "*" in field else sorted(int(v) for v in field if v != "l")


def _croniter_step(expr: str, at: int, forward: bool) -> int:
    base = dt.datetime.fromtimestamp(at / 1000, dt.UTC)
    it = croniter(expr, base)
    when = it.get_next(dt.datetime) if forward else it.get_prev(dt.datetime)
    return int(when.timestamp()) * 1000
