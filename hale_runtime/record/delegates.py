"""The Board's delegates: who besides the Board endorses keys.

`endorse.delegated`, keyed `endorse/<to>`, is a row only the Board writes
(its root key while the Board is unheld, else an endorsed key of its
holder). `to` is a position (`position:<p>`: whoever holds it when an
endorsement is judged) or an identity (`bob`: any key the record endorses
as bob's). `endorse.revoked` ends it. A delegate's endorsement, a
`key.registered` bound `endorsed` for another name, signed by an endorsed
key of the delegate, binds the key to that name as the Board's does, but:

- never for the Board's own name (its holder's identity, or its root
  key's), so a delegate cannot make itself the Board;
- never a key the record revoked, nor a key endorsed for another name;
- a delegate delegates nothing: both rows here are the Board's alone;
- a delegate revokes no key but its own identity's (`key.revoked` keeps
  its rule): revoking what a delegate endorsed is the Board's.

All of it is judged in chain order, like the rest of the trust fold
(trust.py): after `endorse.revoked` the delegate's later endorsements bind
nothing, and the ones before it stand until the Board revokes those keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from hale_runtime.record.kinds import ENDORSE_DELEGATED, ENDORSE_REVOKED
from hale_runtime.record.row import Row

PREFIX = "endorse/"
POSITION = "position:"
KINDS = frozenset({ENDORSE_DELEGATED, ENDORSE_REVOKED})  # what the part takes in


def key_of(to: str) -> str:
    return PREFIX + to


@dataclass
class Delegates:
    given: set[str] = field(default_factory=set)  # `position:<p>` or an identity

    def take(self, row: Row) -> None:
        to = str(row.body.get("to", ""))
        if row.kind == ENDORSE_DELEGATED:
            self.given.add(to)
        elif row.kind == ENDORSE_REVOKED:
            self.given.discard(to)

    def snapshot(self) -> list[str]:
        return sorted(self.given)

    @classmethod
    def restore(cls, data: list[str] | None) -> Delegates:
        return cls(set(data or ()))


class Key(Protocol):
    """What the rules read of a key (trust.py's `Key`)."""

    identity: str
    endorsed: bool
    revoked: bool


class Trust(Protocol):
    """What the rules read of the trust fold (trust.py's `Trust`, which holds the
    `Delegates`): declared here so the fold imports its part, never the reverse."""

    delegates: Delegates
    keys: dict
    root: str

    def key_of(self, fp: str, who: str) -> Key | None: ...

    def holds(self, who: str, fingerprint: str, position: str) -> bool: ...

    def not_board(self, row: Row, fingerprint: str) -> str: ...

    def board_holder(self) -> str: ...


def delegate_of(trust: Trust, who: str, fp: str) -> str:
    """The delegation `who`, signing with `fp`, endorses under ("" when none):
    an endorsed key of the identity named, or of the holder of the position named."""
    key = trust.key_of(fp, who)
    if key is None or not key.endorsed:
        return ""
    for to in sorted(trust.delegates.given):
        if to.startswith(POSITION):
            if trust.holds(who, fp, to.removeprefix(POSITION)):
                return to
        elif key.identity == to:
            return to
    return ""


def board_names(trust: Trust) -> set[str]:
    """The names only the Board endorses keys for: its holder's, its root key's."""
    root = trust.keys.get(trust.root)
    return {n for n in (trust.board_holder(), root.identity if root else "") if n}


# ---- the rules: (trust, row, the fingerprint that signed it) -> why, "" when it may ----


def delegation_rule(trust: Trust, row: Row, fp: str) -> str:
    """`endorse.delegated` and `endorse.revoked`: the Board's, for a position or a name."""
    why = trust.not_board(row, fp)
    if why:
        return why
    to = str(row.body.get("to", ""))
    if row.key != key_of(to):
        return f"{row.key} names {to}; a delegation is keyed {PREFIX}<to>"
    if not to.removeprefix(POSITION) or "@" in to:
        return f"{row.key}: delegate to a position (position:<name>) or an identity"
    if to == POSITION + "board":
        return f"{row.key}: the Board endorses keys already"
    if row.kind == ENDORSE_REVOKED and to not in trust.delegates.given:
        return f"{row.key} is no delegation the Board gave"
    return ""


def endorsed_by_delegate(trust: Trust, row: Row, name: str, old: Key | None, to: str) -> str:
    """Why delegate `to`'s endorsement of a key for `name` binds nothing ("" when it binds)."""
    if name in board_names(trust):
        return f"{row.key} is endorsed for the Board's own name by {to}; only the Board binds it"
    if old is not None and old.revoked:
        return f"{row.key} is revoked; only the Board's holder binds it again"
    return ""
