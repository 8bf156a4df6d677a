"""Durability: whether a write must reach the disk before anything acts on it.

The default is `full`: the record fsyncs its objects and its ref move before
an append returns, and SQLite memory commits with `synchronous=FULL`.
`HALE_DNA_DURABILITY=relaxed` turns every fsync off. It is unsafe (a power
loss can take rows a node already acted on, and a restart then does the work
again) and exists for tests and benchmarks only. Any other value is refused,
so a typo never silently picks a mode.
"""

from __future__ import annotations

import os

from hale_runtime import errors

ENV = "HALE_DNA_DURABILITY"
FULL, RELAXED = "full", "relaxed"


class UnknownDurability(errors.Refused, ValueError):
    """HALE_DNA_DURABILITY holds a value that names no mode."""


def durable() -> bool:
    """True unless HALE_DNA_DURABILITY=relaxed (read now: tests change it per test)."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("", FULL):
        return True
    if value == RELAXED:
        return False
    raise UnknownDurability(
        f"{ENV}={os.environ[ENV]} names no durability: "
        f"unset it (or `{FULL}`), or `{RELAXED}` for tests and benches only (unsafe)"
    )
