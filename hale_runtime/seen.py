"""A compact set of ids: the ids a fold has seen, kept as 64-bit digests.

A fold that must answer "was this ask (this occurrence, this request) seen
before?" for every id in a record years old cannot keep each id as a Python
string in a set (about 90 bytes apiece: 90 MB a million). It keeps each id's
8-byte BLAKE2b digest instead: a sorted `array` (8 bytes an id, looked up by
bisection) and a small set of recent digests, merged into the array once
they pass an eighth of it, so adding stays amortised O(log n). Two distinct
ids share a digest with odds of about n²/2⁶⁵ (3·10⁻⁸ at a million), and a
caller that can check (the engine looks the ask up in the record) does.
`to_bytes`/`from_bytes` make it a checkpoint's plain data.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from hashlib import blake2b

MERGE_AT = 4096


def digest(text: str) -> int:
    """The signed 64-bit digest an id is kept as."""
    return int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "little", signed=True)


class Seen:
    __slots__ = ("_sorted", "_recent")

    def __init__(self, ids: Iterable[str] = ()):
        self._sorted = array("q")
        self._recent: set[int] = set()
        for i in ids:
            self.add(i)

    def add(self, text: str) -> None:
        h = digest(text)
        if h in self._recent or self._has(h):
            return
        self._recent.add(h)
        if len(self._recent) > max(MERGE_AT, len(self._sorted) >> 3):
            self._merge()

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        h = digest(text)
        return h in self._recent or self._has(h)

    def _has(self, h: int) -> bool:
        at = bisect_left(self._sorted, h)
        return at < len(self._sorted) and self._sorted[at] == h

    def _merge(self) -> None:
        if self._recent:
            self._sorted = array("q", sorted([*self._sorted, *self._recent]))
            self._recent = set()

    def __len__(self) -> int:
        return len(self._sorted) + len(self._recent)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Seen):
            return NotImplemented
        self._merge()
        other._merge()
        return self._sorted == other._sorted

    def __repr__(self) -> str:
        return f"Seen({len(self)} ids)"

    def to_bytes(self) -> bytes:
        """The digests, sorted, little-endian (a checkpoint's form)."""
        self._merge()
        out = array("q", self._sorted)
        if sys.byteorder == "big":
            out.byteswap()
        return out.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Seen:
        seen = cls()
        seen._sorted.frombytes(data)
        if sys.byteorder == "big":
            seen._sorted.byteswap()
        return seen  # sorted as written: a checkpoint's checksum vouches for it
