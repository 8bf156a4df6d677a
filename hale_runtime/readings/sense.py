"""A reading as a row: its target, its kind, and what the event said.

Every door is hostile, so each part is checked here before a row is made:
the target is an id (what the firing is about: an instance
`<app>@<holder>`, or anything a reflex names), the kind one word
(`unhealthy`, `exited`, `latency-high`), the detail text of at most
`MAX_DETAIL` characters. An event line from the application is either a
JSON object (`{"kind": …, "detail": …, "target": …}`) or plain text,
`KIND [detail …]`; its target defaults to the application's own instance.
The detail is kept as the row's protected body (record/protected.py), so a
redaction can erase what a firing said and leave the reading.
A line that is neither is refused with why, and nothing is recorded for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from hale_runtime.errors import Refused
from hale_runtime.record import kinds, protected
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.row import make_row

WORD = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
MAX_DETAIL = 4000
SOURCES = ("application", "host", "sense")


class ReadingRefused(Refused):
    """An event that cannot be a reading; says why."""


@dataclass(frozen=True)
class Reading:
    target: str
    kind: str
    detail: str = ""
    source: str = "sense"

    def body(self, digest: str = "") -> dict:
        """The row's body; its detail kept apart as the protected body `digest` names."""
        body = {"kind": self.kind, "source": self.source}
        if digest:
            body["protected"] = digest
        return body


def as_rows(record: Any, readings: list[Reading]) -> list[tuple[str, str, dict]]:
    """The rows for these readings, each detail first stored as a protected body
    (record/protected.py): what a firing said may need erasing later."""
    out = []
    for found in readings:
        digest = ""
        if found.detail:
            digest = protected.put(record.repo, {"detail": found.detail}, record.durable)
        out.append((kinds.READING_TAKEN, found.target, found.body(digest)))
    return out


def reading(target: str, kind: str, detail: str = "", source: str = "sense") -> Reading:
    """A checked reading (ReadingRefused naming the part that does not fit)."""
    why = kinds.ID(target)
    if why or not target:
        raise ReadingRefused(f"a reading's target is an id, and {target!r} is not one")
    if not isinstance(kind, str) or not WORD.fullmatch(kind):
        raise ReadingRefused(
            f"a reading's kind is one word of a-z, 0-9, '.', '_' and '-', not {kind!r}"
        )
    if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
        raise ReadingRefused(f"a reading's detail is text of at most {MAX_DETAIL} characters")
    found = Reading(target, kind, detail, source)
    try:  # the record's own door, so a reading made here is never refused there
        make_row(kinds.READING_TAKEN, target, found.body(), "sense", 0, "sense")
        make_row(kinds.READING_TAKEN, target, {"kind": kind, "detail": detail}, "s", 0, "s")
    except RowRefused as refused:
        raise ReadingRefused(f"a reading's {str(refused).removeprefix('a ')}") from None
    return found


def from_line(line: str, instance: str) -> Reading:
    """The reading one event line of the application's says (ReadingRefused)."""
    text = line.strip()
    if text.startswith("{"):
        try:
            found = json.loads(text)
        except ValueError:
            raise ReadingRefused("an event line that starts with { is a JSON object") from None
        if not isinstance(found, dict):
            raise ReadingRefused("an event line that starts with { is a JSON object")
        target = found.get("target", instance)
        detail = found.get("detail", "")
        return reading(target, found.get("kind"), detail, "application")
    kind, _, detail = text.partition(" ")
    return reading(instance, kind, detail.strip(), "application")
