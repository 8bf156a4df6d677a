"""What every store of a row holds, in one place.

A row reaches several readers (the index and memory in SQLite or PostgreSQL,
the fold, the printed history); each holds less than JSON can say. A row is
checked against these bounds where it is decoded (row.decode_line), so one
that no store could hold is read as a `row.unreadable` row, quarantined by
every reader alike, before any of them tries to store it. Text that is
printed for a person has its control and direction characters escaped
(`printed`), so a key cannot forge lines or reorder what a terminal shows.
"""

from __future__ import annotations

MAX_INT = 2**63  # a number is an integer of 64 bits, as SQLite's and PostgreSQL's columns hold them
AT_LOW, AT_HIGH = 0, MAX_INT  # a row's time: UTC milliseconds in [AT_LOW, AT_HIGH)
MAX_LINE = 4 << 20  # characters of one stored row


def at_fits(at: object) -> bool:
    """Whether a row's `at` is a time every store holds."""
    return type(at) is int and AT_LOW <= at < AT_HIGH


def printed(text: str) -> str:
    """`text` with every character a terminal would not print as itself (control,
    format such as RLO, line and paragraph separators, unassigned) written as a
    `\\uXXXX` escape; text that prints as itself is returned as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def _escape(c: str) -> str:
    n = ord(c)
    return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"
