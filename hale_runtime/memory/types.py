"""The values memory hands out and the ways it refuses.

A grant's times are the database's clock in milliseconds (`until`, `now`);
`deadline` is the same expiry carried onto the node's own clock by the
duration only (read the node clock before asking, add `until - now`), so a
node whose wall clock is wrong still knows how long it holds a claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hale_runtime.errors import HaleRuntimeError


class MemoryFailed(HaleRuntimeError):
    """Memory could not be reached or refused a statement; a node stops on it."""


class Fenced(HaleRuntimeError):
    """An act under a claim token that was taken over, released or expired."""

    def __init__(self, key: str, token: int, why: str):
        self.key, self.token, self.why = key, token, why
        super().__init__(f"fenced: {key} token {token} {why}")


@dataclass(frozen=True)
class Grant:
    """One grant of a claim: who holds `key`, under which token, until when."""

    key: str
    holder: str
    token: int
    until: int  # ms since the epoch, database clock
    now: int  # ms since the epoch, database clock, when memory answered
    deadline: float = field(default=0.0, compare=False)  # node clock, seconds


@dataclass(frozen=True)
class SetHolder:
    """Graph op: `position` is held by `holder` (None: nobody)."""

    position: str
    holder: str | None


@dataclass(frozen=True)
class Node:
    """Graph op and value: a node such as `definition:<id>`."""

    id: str
    kind: str
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Edge:
    """Graph op and value: `src -kind-> dst`, e.g. a `convenes` edge with a cadence.
    `via` tells apart edges with the same ends: a `convenes` edge is one a schedule,
    its `via` the schedule's id ("" for an edge that is one per ends)."""

    src: str
    kind: str
    dst: str
    props: dict[str, Any] = field(default_factory=dict)
    via: str = ""


@dataclass(frozen=True)
class DropEdge:
    """Graph op: remove `src -kind-> dst` if it is there (every `via` of it)."""

    src: str
    kind: str
    dst: str


@dataclass(frozen=True)
class DropVia:
    """Graph op: remove the `kind` edges carried by `via` (a schedule's), whatever their ends."""

    kind: str
    via: str


@dataclass(frozen=True)
class KeepProtected:
    """Op: keep a row's protected body by its digest (record/protected.py)."""

    digest: str
    body: dict[str, Any]


@dataclass(frozen=True)
class EraseProtected:
    """Op: erase the protected body `digest` (a redaction stands)."""

    digest: str


GraphOp = SetHolder | Node | Edge | DropEdge | DropVia | KeepProtected | EraseProtected
