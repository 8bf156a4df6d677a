"""Memory sizes as a person writes and reads them, and the host's ceiling.

`parse_size` reads `64M`-style text (powers of 1,024), `size_text` prints a
size rounded to a tenth of a MiB, and `default_ceiling` reads the host's
HALE_MAX_MEMORY setting. Split from meter.py, which re-exports them.
"""

from __future__ import annotations

DEFAULT_MAX_MEMORY = 64 << 20
MEMORY_ENV = "HALE_MAX_MEMORY"  # the host's setting: bytes, or with a K, M or G suffix


def size_text(size: int, up: bool = False) -> str:
    """Bytes for a person: `12,345 bytes`, `64 MiB`, `64.1 MiB` (rounded up
    with `up`, so a size just past a ceiling never prints as equal to it)."""
    if size < 1 << 20:
        return f"{size:,} bytes"
    tenths = -(-size * 10 // (1 << 20)) if up else size * 10 // (1 << 20)
    whole, frac = divmod(tenths, 10)
    return f"{whole:,} MiB" if frac == 0 else f"{whole:,}.{frac} MiB"


def parse_size(text: str) -> int:
    """`1048576`, `512K`, `64M`, `1G` (powers of 1,024) as bytes; ValueError
    for anything else, or for a size below 1 MiB."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    digits = t[:-1] if scale > 1 else t
    if not digits.isascii() or not digits.isdigit():
        raise ValueError(f"{text!r} is not a size (bytes, or a number with K, M or G)")
    size = int(digits) * scale
    if size < 1 << 20:
        raise ValueError(f"{text!r} is below the smallest ceiling, 1M")
    return size


def default_ceiling(env=None) -> int:
    """The host's setting (HALE_MAX_MEMORY), else DEFAULT_MAX_MEMORY."""
    import os

    text = (os.environ if env is None else env).get(MEMORY_ENV, "").strip()
    return parse_size(text) if text else DEFAULT_MAX_MEMORY
