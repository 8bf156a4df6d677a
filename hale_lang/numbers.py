"""Hale's Ints as decimal text, at any size, and what their arithmetic costs.

CPython converts between int and decimal text in quadratic time, and so
refuses numbers past 4,300 digits (`sys.int_max_str_digits`). Hale's Ints are
unbounded up to a call's memory ceiling, so conversions of big numbers go
through divide and conquer instead, with every piece small enough for
CPython's own conversion:

- text -> int splits the digits in halves, `high * 10**k + low`, so the cost
  is that of Karatsuba multiplication (the method of CPython 3.12's
  `_pylong`, by Bjorn Martinsson);
- int -> text builds a `decimal.Decimal` by halves in binary,
  `high * 2**k + low`, where libmpdec multiplies big numbers fast; a Decimal
  prints in linear time (the method of `_pylong`, by Tim Peters).

Both recurse only log2(digits) deep. The costs below are what the meter
charges for arithmetic on big Ints, in nanoseconds of this machine.
"""

from __future__ import annotations

import decimal
from functools import cache

SMALL_DIGITS = 4000  # below CPython's 4,300-digit limit: one `int`/`str` call
SMALL_BITS = 13000  # 13,000 bits is at most 3,914 decimal digits
DIGIT_BITS = 30
KARATSUBA_CUTOFF = 70


def parse_decimal(text: str) -> int:
    """The Int `text` spells: ASCII digits, with an optional sign."""
    sign = -1 if text[:1] == "-" else 1
    digits = text[1:] if text[:1] in "+-" else text
    if len(digits) <= SMALL_DIGITS:
        return sign * int(digits)
    return sign * _digits_value(digits, 0, len(digits))


def _digits_value(s: str, a: int, b: int) -> int:
    if b - a <= SMALL_DIGITS:
        return int(s[a:b])
    mid = (a + b + 1) // 2
    return _digits_value(s, mid, b) + _digits_value(s, a, mid) * _pow10(b - mid)


@cache
def _pow10(k: int) -> int:
    return 10**k


def int_text(n: int) -> str:
    """`n` in decimal."""
    if -(1 << SMALL_BITS) < n < 1 << SMALL_BITS:
        return str(n)
    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        ctx.Emax = decimal.MAX_EMAX
        ctx.Emin = decimal.MIN_EMIN
        ctx.traps[decimal.Inexact] = 1
        value = _as_decimal(abs(n), abs(n).bit_length(), {})
        return ("-" if n < 0 else "") + str(value)


def _as_decimal(n: int, bits: int, powers: dict[int, decimal.Decimal]) -> decimal.Decimal:
    if bits <= SMALL_BITS:
        return decimal.Decimal(str(n))
    half = bits // 2
    high = n >> half
    low = n - (high << half)
    return _as_decimal(low, half, powers) + _as_decimal(high, bits - half, powers) * _pow2(
        half, powers
    )


def _pow2(k: int, powers: dict[int, decimal.Decimal]) -> decimal.Decimal:
    found = powers.get(k)
    if found is None:
        found = powers[k] = decimal.Decimal(2) ** k
    return found


def digits(n: int) -> int:
    """How many of CPython's 30-bit digits `n` has (at least 1)."""
    return n.bit_length() // DIGIT_BITS + 1


# Costs in nanoseconds, fitted on this kind of machine (CPython 3.11): its
# Karatsuba runs close to n**1.8 once operands leave the cache, long division
# is quotient digits times divisor digits, and a conversion grows like n**1.7.


def mul_cost(a: int, b: int) -> int:
    """Nanoseconds to multiply `a` by `b`."""
    small, big = sorted((digits(a), digits(b)))
    if small < KARATSUBA_CUTOFF:
        return small * big * 2
    return int(small**0.8) * big * 2  # balanced pieces of `small` digits


def div_cost(a: int, b: int) -> int:
    """Nanoseconds to divide `a` by `b`, or take the remainder."""
    da, db = digits(a), digits(b)
    return max(da - db + 1, 1) * db * 3


def text_cost(n: int) -> int:
    """Nanoseconds to print or read an Int as big as `n` in decimal."""
    return int(digits(n) ** 1.7) * 6


def short_text(n: int) -> str:
    """`n` for a message: in full up to 18 digits, else its size."""
    if -(10**18) < n < 10**18:
        return str(n)
    about = int(abs(n).bit_length() * 0.30103) + 1
    return f"{'-' if n < 0 else ''}<an Int of about {about:,} digits>"
