"""A schedule's terms, and how times, cadences and terms are written.

An occurrence is named by its time: an interval's step from the epoch
(k × every_ms) or a cron's matching minute. Its name in an ask id is the
UTC time in ISO 8601 (`2026-11-30T02:00Z`, with seconds or milliseconds
only when the step needs them), so `sched:<id>@<time>` reads as it is and
parses back. A declaration or a resume names the occurrence it was made at
(`occurrence_at`): the interval step or the minute holding that moment.

`shape_refusal` is what every declaration must be before the Scheduler's
own checks are asked, whatever genome runs: an id that can key a row, one
cadence, an interval the tick can keep (a node ticks once a second), a
cron that occurs, inputs that are a JSON object. The verb asks it before it
writes a request, the organization before it declares, and the fold of
`schedule.declared` rows before it holds one (a row that fails it is poison).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MINUTE = 60_000
TICK_MS = 1_000  # a node ticks once a second: no shorter interval can be kept
MAX_SCHEDULE_ID = 128  # so `sched:<id>@<time>` stays an id (record/kinds.py)
ASK_PREFIX = "sched:"
UNITS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000))


@dataclass(frozen=True)
class Terms:
    """What a declaration says: when, what, with what, convened by whom."""

    id: str
    every_ms: int  # 0 when it is a cron
    cron: str  # "" when it is an interval
    definition: str
    args: str  # the inputs, a JSON object as text
    convener: str  # "position:<name>"

    def same(self, other: Terms) -> bool:
        return (self.every_ms, self.cron, self.definition, self.convener) == (
            other.every_ms,
            other.cron,
            other.definition,
            other.convener,
        ) and _args(self.args) == _args(other.args)

    def as_body(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "every_ms": self.every_ms,
            "cron": self.cron,
            "definition": self.definition,
            "args": self.args,
            "convener": self.convener,
        }

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> Terms:
        every = body.get("every_ms") or 0
        return cls(
            str(body.get("id") or ""),
            every if isinstance(every, int) and not isinstance(every, bool) else -1,
            str(body.get("cron") or ""),
            str(body.get("definition") or ""),
            body["args"] if isinstance(body.get("args"), str) else json.dumps(body.get("args")),
            str(body.get("convener") or ""),
        )


def _args(text: object) -> object:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def shape_refusal(terms: Terms, at: int, inputs: bool = True) -> str:
    """Why `terms` cannot stand whatever the catalog and the graph say, or "";
    the inputs are looked at only when `inputs` (the Scheduler says more of them)."""
    from hale_runtime.record.kinds import ID, shown
    from hale_runtime.schedules.cron import check

    if not terms.id:
        return "the schedule id is empty"
    if ID(terms.id) or len(terms.id) > MAX_SCHEDULE_ID:
        return (
            f"the schedule id is one line of printable text, at most {MAX_SCHEDULE_ID} "
            f"characters, and {shown(terms.id)} is not"
        )
    if "@" in terms.id or " " in terms.id:
        return f"the schedule id `{terms.id}` has @ or a space"
    if terms.every_ms == 0 and not terms.cron:
        return (
            "it names neither an interval (--every MS) nor a cron (--cron EXPR); give exactly one"
        )
    if terms.every_ms != 0 and terms.cron:
        return "it names both an interval and a cron; give exactly one"
    if terms.every_ms < 0:
        return f"an interval is a positive number of milliseconds, and {terms.every_ms} is not"
    if not terms.cron and terms.every_ms < TICK_MS:
        return (
            f"an interval is at least {TICK_MS} ms (a node ticks once a second), "
            f"and {terms.every_ms} ms could not be kept"
        )
    why = check(terms.cron, at) if terms.cron else ""
    if why:
        return (
            f"the cron `{terms.cron}` {why}"
            if why.startswith("never")
            else (f"the cron `{terms.cron}` is malformed: {why}")
        )
    if inputs and not isinstance(_args(terms.args), dict):
        return f"the inputs are a JSON object, and {shown(terms.args)} is not"
    return ""


def cadence(terms: Terms) -> str:
    """`every 1d`, `every 90s`, `every 1500ms`, or `cron <expr>`, as the graph carries it."""
    return f"cron {terms.cron}" if terms.cron else f"every {duration(terms.every_ms)}"


def duration(ms: int) -> str:
    """`1d`, `90s`, `1500ms`: the largest whole unit."""
    for unit, size in UNITS:
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def when(terms: Terms) -> str:
    """`every 86400000ms` or ``cron `0 2 * * *` (UTC)``, as the verbs print it."""
    return f"cron `{terms.cron}` (UTC)" if terms.cron else f"every {terms.every_ms}ms"


def occurrence_at(terms: Terms, at: int) -> int:
    """The occurrence a moment falls in: its interval step, or its minute."""
    step = terms.every_ms if not terms.cron and terms.every_ms > 0 else MINUTE
    return at - at % step


@lru_cache(maxsize=65_536)
def stamp(at: int) -> str:
    """An occurrence's time as its name: `2026-11-30T02:00Z` (UTC); memoised,
    since a tick names the same few minutes for many schedules."""
    t = dt.datetime.fromtimestamp(at // 1000, dt.UTC)
    text = t.strftime("%Y-%m-%dT%H:%M")
    if at % MINUTE:
        text += t.strftime(":%S")
        if at % 1000:
            text += f".{at % 1000:03d}"
    return text + "Z"


def parse_stamp(text: str) -> int:
    """The ms a `stamp` names (ValueError when it is not one)."""
    body = text.removesuffix("Z")
    ms = 0
    if "." in body:
        body, frac = body.split(".", 1)
        ms = int(frac)
    fmt = "%Y-%m-%dT%H:%M:%S" if body.count(":") == 2 else "%Y-%m-%dT%H:%M"
    t = dt.datetime.strptime(body, fmt).replace(tzinfo=dt.UTC)
    return int(t.timestamp()) * 1000 + ms


def ask_id(schedule: str, at: int) -> str:
    return f"{ASK_PREFIX}{schedule}@{stamp(at)}"


def parse_ask(ask: str) -> tuple[str, int] | None:
    """(schedule id, occurrence ms) of a `sched:<id>@<time>` ask, else None."""
    if not ask.startswith(ASK_PREFIX) or "@" not in ask:
        return None
    schedule, _, time = ask[len(ASK_PREFIX) :].rpartition("@")
    try:
        return schedule, parse_stamp(time)
    except ValueError:
        return None
