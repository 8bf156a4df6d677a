"""The Board's grants: the Reviews the Leader decides in the Board's stead.

A grant is a row only the Board writes (or genesis while the Board is
unheld): `grant.given`, keyed `grant/<position>`, names the families of
Reviews it covers (a Review's family is what its first `review.opened`
row names, e.g. `operating`) and, optionally, `until`: a time in UTC
milliseconds from which it covers nothing. A later `grant.given` for the
position replaces the grant whole; `grant.revoked` ends it. Only the
Leader is granted (`GRANTABLE`).

A `review.decided` stands when the Board signed it, or when its writer
holds a granted position (an endorsed key of the position's holder, as
trust.py proves it) whose grant, at that place in the chain, is live at
the decision's time and covers the Review's family. Otherwise it is
refused, naming which of these it lacks. Revoking is proven by chain
order; `until` is read against the time the decision's row names, so it
rests on the Leader's clock (docs/record.md).

`Grants` is the part of the trust fold (trust.py) that remembers the live
grants and the Reviews' families; the rules take the whole fold, for
`is_board` and `holds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from hale_runtime.record.kinds import GRANT_GIVEN, GRANT_REVOKED, REVIEW_OPENED
from hale_runtime.record.row import Row

LEADER = "leader"
GRANTABLE = frozenset({LEADER})  # the positions the Board may grant Reviews to
PREFIX = "grant/"
KINDS = frozenset({GRANT_GIVEN, GRANT_REVOKED, REVIEW_OPENED})  # what the part takes in


def key_of(position: str) -> str:
    return PREFIX + position


def when(ms: int) -> str:
    """A time in UTC milliseconds as a grant's line says it (ISO 8601, to the second)."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Grant:
    reviews: tuple[str, ...]  # the families of Reviews it covers
    until: int | None = None  # from this time (UTC ms) it covers nothing

    def live(self, at: int) -> bool:
        return self.until is None or at < self.until

    def says(self) -> str:
        """`operating Reviews` (and `until …` when it ends)."""
        ends = f" until {when(self.until)}" if self.until is not None else ""
        return f"{', '.join(self.reviews)} Reviews{ends}"


@dataclass
class Grants:
    given: dict[str, Grant] = field(default_factory=dict)  # position -> its grant, until revoked
    families: dict[str, str] = field(default_factory=dict)  # Review key -> its family

    def take(self, row: Row) -> None:
        body = row.body
        if row.kind == GRANT_GIVEN:
            until = body.get("until")
            reviews = tuple(str(r) for r in body.get("reviews") or ())
            self.given[str(body.get("position"))] = Grant(reviews, until)
        elif row.kind == GRANT_REVOKED:
            self.given.pop(str(body.get("position")), None)
        elif row.kind == REVIEW_OPENED:
            self.families.setdefault(row.key, str(body.get("family", "")))

    def covers(self, position: str, review: str, at: int) -> str:
        """Why `position`'s grant does not cover deciding `review` at `at` ("" when it does)."""
        grant = self.given.get(position)
        if grant is None:
            return f"{review} is decided by position:{position}, which the Board granted no Reviews"
        if not grant.live(at):
            ended = when(grant.until or 0)
            return f"{review} is decided after position:{position}'s grant ended ({ended})"
        family = self.families.get(review)
        if family is None:
            return f"{review} is no Review the record opened, so no grant covers it"
        if family not in grant.reviews:
            return (
                f"{review} is a Review of {family}, outside position:{position}'s grant "
                f"({', '.join(grant.reviews)})"
            )
        return ""

    def snapshot(self) -> dict[str, Any]:
        return {
            "given": {p: [list(g.reviews), g.until] for p, g in self.given.items()},
            "families": dict(self.families),
        }

    @classmethod
    def restore(cls, data: dict[str, Any] | None) -> Grants:
        data = data or {}
        given = {p: Grant(tuple(r), u) for p, (r, u) in data.get("given", {}).items()}
        return cls(given, dict(data.get("families", {})))


# ---- the rules: (trust, row, the fingerprint that signed it) -> why, "" when it may ----


class Trust(Protocol):
    """What the rules read of the trust fold (trust.py's `Trust`, which holds a `Grants`):
    declared here so the fold imports its part, and never the other way round."""

    grants: Grants

    def is_board(self, who: str, fingerprint: str) -> bool: ...

    def not_board(self, row: Row, fingerprint: str) -> str: ...

    def holds(self, who: str, fingerprint: str, position: str) -> bool: ...


def grant_rule(trust: Trust, row: Row, fp: str) -> str:
    """`grant.given` and `grant.revoked`: the Board's, for a grantable position."""
    why = trust.not_board(row, fp)
    if why:
        return why
    position = str(row.body.get("position", ""))
    if row.key != key_of(position):
        return f"{row.key} names position:{position}; a grant is keyed {PREFIX}<position>"
    if position not in GRANTABLE:
        return f"{row.key}: only position:{LEADER} is granted Reviews"
    if row.kind == GRANT_GIVEN and not row.body.get("reviews"):
        return f"{row.key} names no Reviews (`grant revoke` ends a grant)"
    if row.kind == GRANT_REVOKED and position not in trust.grants.given:
        return f"{row.key} is no grant the Board gave"
    return ""


def decided_rule(trust: Trust, row: Row, fp: str) -> str:
    """`review.decided`: the Board's, or a granted position's holder inside its grant."""
    held = [p for p in sorted(GRANTABLE) if trust.holds(row.who, fp, p)]
    if trust.is_board(row.who, fp) or not held:
        return trust.not_board(row, fp)
    why = ""
    for position in held:
        why = trust.grants.covers(position, row.key, row.at)
        if not why:
            return ""
    return why
